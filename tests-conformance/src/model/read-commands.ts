import { collect } from "../dump.js";
import {
  Command,
  conversationView,
  js,
  messageView,
  type Outcome,
  on,
  outcome,
  type RealStore,
  scope,
} from "./command.js";
import { ReferenceModel } from "./reference-model.js";

export class ListMessages extends Command {
  readonly code;
  constructor(
    readonly conversationId: string,
    readonly limit: number | undefined,
  ) {
    super();
    const o = limit === undefined ? "" : `, { limit: ${limit} } /* walked to the end */`;
    this.code = `await store.getMessagesByConversationId(${js(conversationId)}${o});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    return { ok: model.transcript(this.conversationId).map(ReferenceModel.messageView) };
  }
  protected call(real: RealStore) {
    return outcome(
      () =>
        collect((o) => real.store.getMessagesByConversationId(this.conversationId, o), this.limit),
      (ms) => ms.map(messageView),
    );
  }
}

export class GetContext extends Command {
  readonly code;
  constructor(
    readonly conversationId: string,
    readonly n: number,
    readonly viewUser: string | null,
  ) {
    super();
    this.code = `await ${scope(viewUser)}.getImmediateContext(${js(conversationId)}, ${n});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const owner = model.conversations.get(this.conversationId)?.userId;
    if (this.viewUser !== null && owner !== this.viewUser) return { ok: [] };
    return { ok: model.context(this.conversationId, this.n).map(ReferenceModel.messageView) };
  }
  protected call(real: RealStore) {
    return outcome(
      () => on(real, this.viewUser).getImmediateContext(this.conversationId, this.n),
      (ms) => ms.map(messageView),
    );
  }
}

export class ConversationsOfUser extends Command {
  readonly code;
  constructor(
    readonly userId: string,
    readonly limit: number | undefined,
  ) {
    super();
    const o = limit === undefined ? "" : `, { limit: ${limit} } /* walked to the end */`;
    this.code = `await store.getConversationsByUserId(${js(userId)}${o});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    return { ok: model.conversationsOf(this.userId) };
  }
  protected call(real: RealStore) {
    return outcome(
      () => collect((o) => real.store.getConversationsByUserId(this.userId, o), this.limit),
      (cs) => cs.map(conversationView),
    );
  }
}

export class GetMessage extends Command {
  readonly code;
  constructor(
    readonly id: string,
    readonly viewUser: string | null,
  ) {
    super();
    this.code = `await ${scope(viewUser)}.getMessage(${js(id)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const m = model.messages.get(this.id);
    if (!m || (this.viewUser !== null && m.userId !== this.viewUser)) return { ok: null };
    return { ok: ReferenceModel.messageView(m) };
  }
  protected call(real: RealStore) {
    return outcome(
      () => on(real, this.viewUser).getMessage(this.id),
      (m) => m && messageView(m),
    );
  }
}

export class GetConversation extends Command {
  readonly code;
  constructor(
    readonly id: string,
    readonly viewUser: string | null,
  ) {
    super();
    this.code = `await ${scope(viewUser)}.getConversation(${js(id)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const c = model.conversations.get(this.id);
    if (!c || (this.viewUser !== null && c.userId !== this.viewUser)) return { ok: null };
    return { ok: model.conversationView(c) };
  }
  protected call(real: RealStore) {
    return outcome(
      () => on(real, this.viewUser).getConversation(this.id),
      (c) => c && conversationView(c),
    );
  }
}

/** Closes the store and opens the storage again: receipt order and everything else survive. */
export class Reopen extends Command {
  readonly code = "store = await reopen();";
  override check(): boolean {
    return true;
  }
  protected expect(): Outcome {
    return { ok: true };
  }
  protected async call(real: RealStore) {
    if (real.reopen) real.store = await real.reopen();
    return { ok: true };
  }
}

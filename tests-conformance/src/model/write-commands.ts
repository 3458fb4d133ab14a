import {
  Command,
  conversationView,
  js,
  messageView,
  type Outcome,
  OWNER,
  outcome,
  type RealStore,
} from "./command.js";
import { ReferenceModel } from "./reference-model.js";

export class StoreConversation extends Command {
  readonly input;
  readonly code;
  constructor(id: string, updatedAt: number) {
    super();
    this.input = { id, userId: OWNER[id]!, createdAt: 0, updatedAt };
    this.code = `await store.storeConversation(${js(this.input)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const existing = model.conversations.get(this.input.id);
    const c = {
      id: this.input.id,
      userId: this.input.userId,
      updatedAt: this.input.updatedAt,
      newestMessageAt: existing?.newestMessageAt ?? null,
    };
    model.conversations.set(c.id, c);
    return { ok: model.conversationView(c) };
  }
  protected call(real: RealStore) {
    return outcome(() => real.store.storeConversation(this.input), conversationView);
  }
}

type MessageSpec = { id: string; timestamp: number; isFlagged: boolean };

function messageInput(conversationId: string, m: MessageSpec) {
  return {
    id: m.id,
    conversationId,
    userId: OWNER[conversationId]!,
    role: "user" as const,
    originalContent: "x",
    timestamp: m.timestamp,
    isFlagged: m.isFlagged,
  };
}

/** Applies a batch to the model (all or nothing), or says which error it must raise. */
function putMessages(model: ReferenceModel, conversationId: string, specs: MessageSpec[]): Outcome {
  if (new Set(specs.map((m) => m.id)).size !== specs.length) return { error: "VALIDATION" };
  const c = model.conversations.get(conversationId);
  if (!c) return { error: "INTEGRITY" };
  for (const m of specs) {
    const old = model.messages.get(m.id);
    if (old && old.conversationId !== conversationId) return { error: "INTEGRITY" };
  }
  const stored = specs.map((m) => {
    const sequence = model.messages.get(m.id)?.sequence ?? model.nextSequence();
    const record = { ...messageInput(conversationId, m), sequence };
    const { role: _r, originalContent: _o, ...kept } = record;
    model.messages.set(m.id, kept);
    c.newestMessageAt = Math.max(c.newestMessageAt ?? m.timestamp, m.timestamp);
    return ReferenceModel.messageView(kept);
  });
  return { ok: stored };
}

export class StoreMessage extends Command {
  readonly input;
  readonly code;
  constructor(
    readonly conversationId: string,
    readonly spec: MessageSpec,
  ) {
    super();
    this.input = messageInput(conversationId, spec);
    this.code = `await store.storeMessage(${js(this.input)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const r = putMessages(model, this.conversationId, [this.spec]);
    return "ok" in r ? { ok: (r.ok as unknown[])[0] } : r;
  }
  protected call(real: RealStore) {
    return outcome(() => real.store.storeMessage(this.input), messageView);
  }
}

export class StoreMessages extends Command {
  readonly input;
  readonly code;
  constructor(
    readonly conversationId: string,
    readonly specs: MessageSpec[],
  ) {
    super();
    this.input = specs.map((m) => messageInput(conversationId, m));
    this.code = `await store.storeMessages(${js(this.input)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    return putMessages(model, this.conversationId, this.specs);
  }
  protected call(real: RealStore) {
    return outcome(
      () => real.store.storeMessages(this.input),
      (ms) => ms.map(messageView),
    );
  }
}

export class FlagMessage extends Command {
  readonly code;
  constructor(
    readonly id: string,
    readonly flagged: boolean,
  ) {
    super();
    this.code = `await store.flagMessage(${js(id)}, ${flagged});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const m = model.messages.get(this.id);
    if (!m) return { error: "NOT_FOUND" };
    m.isFlagged = this.flagged;
    return { ok: ReferenceModel.messageView(m) };
  }
  protected call(real: RealStore) {
    return outcome(() => real.store.flagMessage(this.id, this.flagged), messageView);
  }
}

export class DeleteMessage extends Command {
  readonly code;
  constructor(readonly id: string) {
    super();
    this.code = `await store.deleteMessage(${js(id)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    return { ok: model.messages.delete(this.id) };
  }
  protected call(real: RealStore) {
    return outcome(
      () => real.store.deleteMessage(this.id),
      (v) => v,
    );
  }
}

export class DeleteConversation extends Command {
  readonly code;
  constructor(readonly id: string) {
    super();
    this.code = `await store.deleteConversation(${js(id)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    const existed = model.conversations.has(this.id);
    model.dropConversation(this.id);
    return { ok: existed };
  }
  protected call(real: RealStore) {
    return outcome(
      () => real.store.deleteConversation(this.id),
      (v) => v,
    );
  }
}

export class DeleteUserData extends Command {
  readonly code;
  constructor(readonly userId: string) {
    super();
    this.code = `await store.deleteUserData(${js(userId)});`;
  }
  protected expect(model: ReferenceModel): Outcome {
    let conversations = 0;
    let messages = 0;
    for (const c of [...model.conversations.values()]) {
      if (c.userId !== this.userId) continue;
      conversations++;
      messages += model.dropConversation(c.id);
    }
    return { ok: { conversations, messages, turnTraces: 0 } };
  }
  protected call(real: RealStore) {
    return outcome(
      () => real.store.deleteUserData(this.userId),
      (v) => v,
    );
  }
}

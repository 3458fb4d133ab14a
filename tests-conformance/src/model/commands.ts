import { isMessageStoreError, type MessageStoreApi } from "@message-store/core";
import type fc from "fast-check";
import { collect } from "../dump.js";
import { expectRule } from "../rule-check.js";
import { type ConversationView, type MessageView, ReferenceModel } from "./reference-model.js";

/** The adapter side of a run: the open store, replaced when a command reopens it. */
export interface RealStore {
  store: MessageStoreApi;
  /** Closes the store and opens the same storage again; `null` for non-persistent adapters. */
  reopen: (() => Promise<MessageStoreApi>) | null;
}

export type StoreCommand = fc.AsyncCommand<ReferenceModel, RealStore>;

/** Every conversation belongs to one fixed owner, so no command tries to change an owner. */
export const OWNER: Readonly<Record<string, string>> = { c1: "u1", c2: "u2", c3: "u1" };

export const MODEL_RULE = "every result equals the reference model's (MessageStoreApi as a model)";

type Outcome = { ok: unknown } | { error: string };

async function outcome<T>(call: () => Promise<T>, view: (value: T) => unknown): Promise<Outcome> {
  try {
    return { ok: view(await call()) };
  } catch (error) {
    if (isMessageStoreError(error)) return { error: error.code };
    throw error;
  }
}

const messageView = (m: {
  id: string;
  conversationId: string;
  userId: string;
  timestamp: number;
  isFlagged: boolean;
}): MessageView => ({
  id: m.id,
  conversationId: m.conversationId,
  userId: m.userId,
  timestamp: m.timestamp,
  isFlagged: m.isFlagged,
});

const conversationView = (c: {
  id: string;
  userId: string;
  updatedAt: number;
  lastActivityAt: number;
}): ConversationView => ({
  id: c.id,
  userId: c.userId,
  updatedAt: c.updatedAt,
  lastActivityAt: c.lastActivityAt,
});

/** A command: `expect` predicts the outcome (and applies it to the model), `call` runs it. */
abstract class Command implements StoreCommand {
  abstract readonly code: string;
  check(): boolean {
    return true;
  }
  protected abstract expect(model: ReferenceModel): Outcome;
  protected abstract call(real: RealStore): Promise<Outcome>;
  async run(model: ReferenceModel, real: RealStore): Promise<void> {
    const actual = await this.call(real);
    const expected = this.expect(model);
    expectRule(MODEL_RULE, this.code.replace(/;$/, ""), actual, expected);
  }
  toString(): string {
    return this.code;
  }
}

const js = (v: unknown) => JSON.stringify(v);
const scope = (viewUser: string | null) => (viewUser ? `store.forUser(${js(viewUser)})` : "store");
const on = (real: RealStore, viewUser: string | null) =>
  viewUser ? real.store.forUser(viewUser) : real.store;

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

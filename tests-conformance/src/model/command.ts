import { isMessageStoreError, type MessageStoreApi } from "@message-store/core";
import type fc from "fast-check";
import { expectRule } from "../rule-check.js";
import type { ConversationView, MessageView, ReferenceModel } from "./reference-model.js";

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

export type Outcome = { ok: unknown } | { error: string };

export async function outcome<T>(
  call: () => Promise<T>,
  view: (value: T) => unknown,
): Promise<Outcome> {
  try {
    return { ok: view(await call()) };
  } catch (error) {
    if (isMessageStoreError(error)) return { error: error.code };
    throw error;
  }
}

export const messageView = (m: {
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

export const conversationView = (c: {
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
export abstract class Command implements StoreCommand {
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

export const js = (v: unknown) => JSON.stringify(v);
export const scope = (viewUser: string | null) =>
  viewUser ? `store.forUser(${js(viewUser)})` : "store";
export const on = (real: RealStore, viewUser: string | null) =>
  viewUser ? real.store.forUser(viewUser) : real.store;

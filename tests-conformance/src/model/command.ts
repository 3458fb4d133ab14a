import { isMessageStoreError, type MessageStoreApi } from "@message-store/core";
import type fc from "fast-check";
import { expectRule } from "../rule-check.js";

/** The adapter side of a run: the open store, replaced when a command reopens it. */
export interface RealStore {
  store: MessageStoreApi;
  /** Closes the store and opens the same storage again; `null` for non-persistent adapters. */
  reopen: (() => Promise<MessageStoreApi>) | null;
}

/** The reference side: a store over core's `MemoryDriver`, the contract's reference driver. */
export interface Reference {
  store: MessageStoreApi;
}

export type StoreCommand = fc.AsyncCommand<Reference, RealStore>;

export const MODEL_RULE =
  "every result equals the reference driver's (core's MemoryDriver, the contract as code)";

/** The paged methods of the contract: their last argument takes `limit` and `cursor`. */
type PagedMethod =
  | "getConversationsByUserId"
  | "listConversations"
  | "getMessagesByConversationId"
  | "queryTurnTraces"
  | "searchConversations"
  | "listPendingEmbeddings";

/** One call of the contract, as data: what is run on both stores, and printed on a failure. */
export interface Call {
  readonly method: Exclude<keyof MessageStoreApi, "capabilities" | "forUser" | "forTenant">;
  readonly args: readonly unknown[];
  /** Run through `forUser(viewUser)`. */
  readonly viewUser?: string | null;
  /** Run through `forTenant(viewTenant)`. */
  readonly viewTenant?: string | null;
  /** A paged method walked to its end, `walk` items per page. */
  readonly walk?: number;
}

type Outcome = { ok: unknown } | { error: string };

/**
 * A command of the model-based test: one or more calls run in order on the reference store and
 * on the adapter's, every outcome (result or error code) compared. Values that depend on the
 * clock (soft-delete stamps) are compared as "set or not"; everything else must be equal.
 */
export class ApiCommand implements StoreCommand {
  constructor(readonly calls: readonly Call[]) {}

  check(): boolean {
    return true;
  }

  async run(reference: Reference, real: RealStore): Promise<void> {
    for (const call of this.calls) {
      const expected = await outcome(reference.store, call);
      const actual = await outcome(real.store, call);
      expectRule(MODEL_RULE, printCall(call), actual, expected);
    }
  }

  toString(): string {
    return this.calls.map((c) => `await ${printCall(c)};`).join(" ");
  }
}

/** Closes and reopens the adapter's store (the reference keeps its state, as a restart must). */
export class Reopen implements StoreCommand {
  check(): boolean {
    return true;
  }
  async run(_: Reference, real: RealStore): Promise<void> {
    if (real.reopen) real.store = await real.reopen();
  }
  toString(): string {
    return "/* close the store and open it again */;";
  }
}

async function outcome(store: MessageStoreApi, call: Call): Promise<Outcome> {
  try {
    return { ok: normalize(await invoke(store, call)) };
  } catch (error) {
    if (isMessageStoreError(error)) return { error: error.code };
    throw error;
  }
}

async function invoke(store: MessageStoreApi, call: Call): Promise<unknown> {
  let s = store;
  if (call.viewTenant) s = s.forTenant(call.viewTenant);
  if (call.viewUser) s = s.forUser(call.viewUser);
  const method = s[call.method] as (...args: unknown[]) => Promise<unknown>;
  if (call.walk === undefined) return method.apply(s, [...call.args]);
  const head = call.args.slice(0, -1);
  const options = (call.args.at(-1) ?? {}) as object;
  const items: unknown[] = [];
  let cursor: string | null = null;
  do {
    const page = (await method.apply(s, [...head, { ...options, limit: call.walk, cursor }])) as {
      items: unknown[];
      nextCursor: string | null;
    };
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

/** A deep copy where a clock-made `deletedAt` reads as `true` (set) or `null`. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] = key === "deletedAt" && typeof v === "number" ? true : normalize(v);
  }
  return out;
}

const js = (v: unknown) => JSON.stringify(v);

/** The call as code: `store.forUser("u1").getMessage("m1")`, a walk marked in a comment. */
export function printCall(call: Call): string {
  let target = "store";
  if (call.viewTenant) target += `.forTenant(${js(call.viewTenant)})`;
  if (call.viewUser) target += `.forUser(${js(call.viewUser)})`;
  const args = call.args.map(js).join(", ");
  const walk = call.walk === undefined ? "" : ` /* every page of ${call.walk} */`;
  return `${target}.${call.method}(${args})${walk}`;
}

export type { PagedMethod };

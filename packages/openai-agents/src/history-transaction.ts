import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import type { Json } from "@message-store/core";
import {
  type AgentInputItem,
  protocol,
  type SessionHistoryTransaction,
  type SessionHistoryTransactionArgs,
  UserError,
} from "@openai/agents";
import { itemsAsJson } from "./items-to-record.js";

/** A transaction as the session applies and remembers it: items as stored (JSON). */
export type StoredTransaction =
  | { type: "append_items"; items: AgentInputItem[] }
  | { type: "replace_suffix"; expectedSuffix: AgentInputItem[]; replacement: AgentInputItem[] };

const UNSUPPORTED = "Session history transaction items contain invalid or unsupported data.";

/**
 * True for a value the session can snapshot and compare: `null`, strings, booleans, numbers,
 * bytes, dense arrays and plain objects of those (no dates, class instances, cycles, getters).
 */
function isPlain(value: unknown, ancestors: Set<object> = new Set()): boolean {
  if (value === null || ["string", "boolean", "number"].includes(typeof value)) return true;
  if (typeof value !== "object") return false;
  if (value instanceof Uint8Array) return true;
  if (ancestors.has(value)) return false;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      return (
        Object.keys(value).length === value.length && value.every((v) => isPlain(v, ancestors))
      );
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return false;
    return Reflect.ownKeys(value).every((key) => {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      return (
        typeof key === "string" &&
        descriptor?.enumerable === true &&
        "value" in descriptor &&
        (descriptor.value === undefined || isPlain(descriptor.value, ancestors))
      );
    });
  } finally {
    ancestors.delete(value);
  }
}

function items(value: unknown[]): AgentInputItem[] {
  if (!isPlain(value) || !value.every((item) => protocol.ModelItem.safeParse(item).success)) {
    throw new UserError(UNSUPPORTED);
  }
  return itemsAsJson(value as AgentInputItem[]) as unknown as AgentInputItem[];
}

/**
 * The operation id and transaction of `args`, checked and as JSON; throws the SDK's `UserError`
 * (as its `MemorySession` does) for a blank operation id, an unknown transaction type, fields
 * that are missing or extra, or items that are not protocol items of plain data. Nothing is
 * stored before this passes.
 */
export function parseTransaction(args: SessionHistoryTransactionArgs): {
  operationId: string;
  transaction: StoredTransaction;
} {
  const { operationId, transaction } = (args ?? {}) as Partial<SessionHistoryTransactionArgs>;
  if (typeof operationId !== "string" || operationId.trim() === "") {
    throw new UserError("Session history transaction operationId must be a non-empty string.");
  }
  if (typeof transaction !== "object" || transaction === null) {
    throw new UserError("Session history transaction must be an object.");
  }
  const tx = transaction as SessionHistoryTransaction;
  const keys = Object.keys(tx).sort().join(",");
  if (tx.type === "append_items") {
    if (keys !== "items,type" || !Array.isArray(tx.items)) {
      throw new UserError("Session history append transaction fields are invalid.");
    }
    return { operationId, transaction: { type: tx.type, items: items(tx.items) } };
  }
  if (tx.type === "replace_suffix") {
    if (
      keys !== "expectedSuffix,replacement,type" ||
      !Array.isArray(tx.expectedSuffix) ||
      !Array.isArray(tx.replacement)
    ) {
      throw new UserError("Session history suffix transaction fields are invalid.");
    }
    return {
      operationId,
      transaction: {
        type: tx.type,
        expectedSuffix: items(tx.expectedSuffix),
        replacement: items(tx.replacement),
      },
    };
  }
  throw new UserError("Unsupported session history transaction type.");
}

/** JSON with object keys sorted, so that equal values give equal text. */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k] as Json)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** A digest of a transaction that does not depend on key order: what the session remembers. */
export function transactionDigest(transaction: StoredTransaction): string {
  return createHash("sha256")
    .update(canonical(transaction as unknown as Json))
    .digest("hex");
}

/** True when `actual` (stored items) is the same list as `expected`, key order aside. */
export function sameItems(actual: readonly AgentInputItem[], expected: readonly AgentInputItem[]) {
  return actual.length === expected.length && isDeepStrictEqual(itemsAsJson(actual), expected);
}

import type { DriverOperation, RequestOf, ResultOf } from "../store/operation-table.js";
import type { MemoryState } from "./memory-state.js";
import { applyOperation, type Operation } from "./operations.js";

/** The driver operations that change the state. */
export const WRITE_OPERATIONS = [
  "storeConversation",
  "deleteConversation",
  "softDeleteConversation",
  "restoreConversation",
  "storeMessages",
  "storeSessionMessages",
  "flagMessage",
  "softDeleteMessage",
  "restoreMessage",
  "deleteMessage",
  "purgeDeleted",
  "storeTurnTraces",
  "deleteUserData",
  "setEmbeddings",
  "putCheckpoint",
  "putCheckpointWrites",
  "deleteCheckpoints",
] as const satisfies readonly DriverOperation[];

export type WriteOperation = (typeof WRITE_OPERATIONS)[number];

/** One write as data: the driver method and its request (scope included). */
export type Write = {
  [K in WriteOperation]: { readonly method: K; readonly request: RequestOf<K> };
}[WriteOperation];

/** What a write resolves to for its caller. */
export type WriteResult<W extends Write> = ResultOf<W["method"]>;

/**
 * A write checked against the state: the operations that carry it out (empty when it changes
 * nothing, e.g. a delete of a record outside the scope), and how to answer its caller from what
 * applying them returned. Apply them, in order, to the state they were resolved against (see
 * {@link applyResolved}), before any other write changes what they depend on.
 */
export interface Resolved<R> {
  readonly ops: readonly Operation[];
  answer(results: readonly unknown[]): R;
}

/** Applies the operations of a resolved write and answers it. Synchronous and infallible. */
export function applyResolved<R>(state: MemoryState, resolved: Resolved<R>): R {
  return resolved.answer(resolved.ops.map((op) => applyOperation(state, op)));
}

/**
 * What a write's check and application read or change, as keys; `null` for a write that must be
 * committed alone (the cascades, which touch everything of a conversation or user). Two writes
 * with no key in common resolve and apply the same whether the other one was applied first or
 * not, so a persistence may resolve them together and journal them as one group.
 */
export function writeKeys(state: MemoryState, write: Write): string[] | null {
  switch (write.method) {
    case "storeConversation":
      return [`c:${write.request.conversation.id}`];
    case "storeMessages": {
      const keys: string[] = [];
      for (const m of write.request.messages) keys.push(`c:${m.conversationId}`, `m:${m.id}`);
      return keys;
    }
    case "storeSessionMessages":
      return [
        `c:${write.request.conversation.id}`,
        ...write.request.messages.map((m) => `m:${m.id}`),
      ];
    case "flagMessage":
      return [`m:${write.request.id}`];
    case "setEmbeddings":
      return write.request.updates.map((u) => `m:${u.id}`);
    case "softDeleteMessage":
    case "restoreMessage":
    case "deleteMessage": {
      // Also its trace, and its conversation (whose soft delete a restore depends on).
      const id = write.request.id;
      const m = state.messages.get(id)?.message;
      const trace = state.traceIdByMessage.get(id);
      const keys = [`m:${id}`];
      if (m) keys.push(`c:${m.conversationId}`);
      if (trace !== undefined) keys.push(`t:${trace}`);
      return keys;
    }
    case "storeTurnTraces":
      return write.request.traces.flatMap((t) => [`t:${t.id}`, `m:${t.messageId}`]);
    case "putCheckpoint": {
      // The thread's checkpoints are keyed by their conversation.
      const { conversation, messages, traces } = write.request;
      const keys = [`c:${conversation.id}`];
      for (const m of messages) keys.push(`m:${m.id}`);
      for (const t of traces) keys.push(`t:${t.id}`, `m:${t.messageId}`);
      return keys;
    }
    case "putCheckpointWrites":
      return [`c:${write.request.conversation.id}`];
    case "deleteCheckpoints":
      return [`c:${write.request.id}`];
    case "deleteConversation":
    case "softDeleteConversation":
    case "restoreConversation":
    case "purgeDeleted":
    case "deleteUserData":
      return null;
  }
}

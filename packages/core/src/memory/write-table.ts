import type { RequestOf, ResultOf, WriteOperation } from "../store/operation-table.js";
import type { FieldValues, OperationKind, Resolved, WriteSpec } from "./journal.js";
import type { MemoryState } from "./memory-state.js";
import { CHECKPOINT_OPERATIONS, CHECKPOINT_WRITES } from "./writes/checkpoint-writes.js";
import { CONVERSATION_OPERATIONS, CONVERSATION_WRITES } from "./writes/conversation-writes.js";
import { MESSAGE_OPERATIONS, MESSAGE_WRITES } from "./writes/message-writes.js";
import { SOFT_DELETE_OPERATIONS, SOFT_DELETE_WRITES } from "./writes/soft-delete-writes.js";
import { TRACE_OPERATIONS, TRACE_WRITES } from "./writes/trace-writes.js";

/**
 * Every kind of operation, by name. Each family of `writes/` declares the driver writes it
 * carries out (keys, resolve) and the operations they resolve into (fields, apply, replay
 * check); everything in this file derives from those declarations.
 */
export const OPERATION_KINDS = {
  ...CONVERSATION_OPERATIONS,
  ...SOFT_DELETE_OPERATIONS,
  ...MESSAGE_OPERATIONS,
  ...TRACE_OPERATIONS,
  ...CHECKPOINT_OPERATIONS,
};
type Kinds = typeof OPERATION_KINDS;

/** Every driver write, by name: the table's writes, each carried out by one family. */
const WRITES: { readonly [K in WriteOperation]: WriteSpec<K> } = {
  ...CONVERSATION_WRITES,
  ...SOFT_DELETE_WRITES,
  ...MESSAGE_WRITES,
  ...TRACE_WRITES,
  ...CHECKPOINT_WRITES,
};

/**
 * One change of the state, as data. A write request is checked against the state and resolved
 * into operations (see {@link resolveWrite}); the same operations are what a persistence
 * journals and replays, and {@link applyOperation} applies them alike in both cases. Everything
 * an operation depends on is in it (a soft delete carries its time, a session its chosen
 * timestamps), so applying it to the state it was resolved against always gives the same state.
 */
export type Operation = {
  [K in keyof Kinds]: Kinds[K] extends OperationKind<infer R, infer O, unknown>
    ? { op: K } & FieldValues<R, O>
    : never;
}[keyof Kinds];

/** What {@link applyOperation} returns for `O`: the stored records themselves (callers copy). */
export type OperationResult<O extends Operation> = ReturnType<Kinds[O["op"]]["apply"]>;

type AnyKind = OperationKind<{}, {}, unknown>;
const kindOf = (op: Operation) => OPERATION_KINDS[op.op] as unknown as AnyKind;

/** Applies an operation. Synchronous and infallible, so it is never seen half done. */
export function applyOperation<O extends Operation>(state: MemoryState, op: O): OperationResult<O> {
  return kindOf(op).apply(state, op) as OperationResult<O>;
}

/**
 * Checks an operation read back from a journal against the state before it is applied: only
 * the referential rules the state itself needs. Throws `IntegrityError`.
 */
export function checkOperation(state: MemoryState, op: Operation): void {
  kindOf(op).check?.(state, op);
}

/** The driver operations that change the state. */
export const WRITE_OPERATIONS = Object.keys(WRITES) as readonly WriteOperation[];

/** One write as data: the driver method and its request (scope included). */
export type Write = {
  [K in WriteOperation]: { readonly method: K; readonly request: RequestOf<K> };
}[WriteOperation];

/** What a write resolves to for its caller. */
export type WriteResult<W extends Write> = ResultOf<W["method"]>;

const specOf = (write: Write) => WRITES[write.method] as unknown as WriteSpec<WriteOperation>;

/**
 * Checks a write against the state and the contract's rules, with its scope, and turns it into
 * the operations that carry it out (see {@link Resolved}).
 */
export function resolveWrite<W extends Write>(
  state: MemoryState,
  write: W,
): Resolved<WriteResult<W>> {
  return specOf(write).resolve(state, write.request as never) as Resolved<WriteResult<W>>;
}

/** What a write's check and application read or change, as keys (see `WriteSpec.keys`). */
export function writeKeys(state: MemoryState, write: Write): string[] | null {
  return specOf(write).keys(state, write.request as never);
}

/** Applies the operations of a resolved write and answers it. Synchronous and infallible. */
export function applyResolved<R>(state: MemoryState, resolved: Resolved<R>): R {
  return resolved.answer(resolved.ops.map((op) => applyOperation(state, op)));
}

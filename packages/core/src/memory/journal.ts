import type { CheckpointRecord, CheckpointWritesRecord } from "../models/checkpoint.js";
import type { ConversationRecord } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type { Scope } from "../models/queries.js";
import type { EmbeddingUpdate } from "../models/session.js";
import type { TurnTrace } from "../models/turn-trace.js";
import type { RequestOf, ResultOf, WriteOperation } from "../store/operation-table.js";
import type { MemoryState } from "./memory-state.js";
import type { Operation } from "./write-table.js";

/** The kinds of field an operation records: a persistence encodes and decodes each kind once. */
export interface JournalFieldTypes {
  id: string;
  time: number;
  flag: boolean;
  conversation: ConversationRecord;
  messages: Message[];
  trace: TurnTrace;
  updates: EmbeddingUpdate[];
  scope: Scope;
  checkpoint: CheckpointRecord;
  writes: CheckpointWritesRecord;
}

export type JournalFieldKind = keyof JournalFieldTypes;
type Fields = Readonly<Record<string, JournalFieldKind>>;

/** An operation's fields as values: the required ones, then the optional ones. */
export type FieldValues<R extends Fields, O extends Fields> = {
  [K in keyof R]: JournalFieldTypes[R[K]];
} & { [K in keyof O]?: JournalFieldTypes[O[K]] };

/**
 * One kind of operation: the fields it records (a journal line holds them, in this order; a
 * later version may only add optional ones, so every line ever written stays readable), how it
 * applies to the state (synchronous and infallible, so it is never seen half done), and what
 * replay checks before applying a line read back (the referential rules the state itself needs;
 * the contract's other rules were checked when it was resolved, possibly by an older version).
 */
export interface OperationKind<R extends Fields, O extends Fields, Result> {
  readonly required: R;
  readonly optional: O;
  apply(state: MemoryState, op: FieldValues<R, O>): Result;
  check?(state: MemoryState, op: FieldValues<R, O>): void;
}

/** Declares an operation kind: `Operation` and the results derive from its type. */
export function operationKind<
  const R extends Fields,
  const O extends Fields = Record<never, never>,
  Result = unknown,
>(
  fields: { required: R; optional?: O },
  apply: (state: MemoryState, op: FieldValues<R, O>) => Result,
  check?: (state: MemoryState, op: FieldValues<R, O>) => void,
): OperationKind<R, O, Result> {
  return { required: fields.required, optional: (fields.optional ?? {}) as O, apply, check };
}

/**
 * A write checked against the state: the operations that carry it out (none when it changes
 * nothing), and how to answer its caller from what applying them returned. Apply them, in order,
 * to the state they were resolved against, before any other write changes what they depend on.
 */
export interface Resolved<R> {
  readonly ops: readonly Operation[];
  answer(results: readonly unknown[]): R;
}

/** A write that changes nothing and answers `value`. */
export const unchanged = <R>(value: R): Resolved<R> => ({ ops: [], answer: () => value });

/** A write carried out by one operation, answered from what applying it returned. */
export const one = <R>(op: Operation, answer: (result: any) => R): Resolved<R> => ({
  ops: [op],
  answer: (results) => answer(results[0]),
});

/**
 * How the memory engine carries out one driver write: what it reads or changes, as keys (`null`
 * for a write that must be committed alone: the cascades, which touch everything of a
 * conversation or user), and how it resolves against the state into operations. Two writes with
 * no key in common resolve and apply the same whether the other one was applied first or not, so
 * a persistence may resolve them together and journal them as one group. Resolving throws
 * `IntegrityError` (an `ownerRefusal` for a record that is missing or another owner's) and
 * copies records: the operations hold the store's own copies, and every answer is a copy again
 * (or the request's own record where the store kept it unchanged).
 */
export interface WriteSpec<K extends WriteOperation> {
  keys(state: MemoryState, request: RequestOf<K>): string[] | null;
  resolve(state: MemoryState, request: RequestOf<K>): Resolved<ResultOf<K>>;
}

/** A family's writes: one spec per driver write it carries out. */
export type WriteSpecs<K extends WriteOperation> = { readonly [W in K]: WriteSpec<W> };

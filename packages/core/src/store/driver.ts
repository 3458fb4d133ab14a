import type { MessageStoreError } from "../errors.js";
import type { StoreCapabilities } from "./capabilities.js";
import type { CheckpointsDriver } from "./contract/checkpoints.js";
import type { ConversationsDriver } from "./contract/conversations.js";
import type { EmbeddingQueueDriver } from "./contract/embedding-queue.js";
import type { MessagesDriver } from "./contract/messages.js";
import type { SearchDriver } from "./contract/search.js";
import type { SessionsDriver } from "./contract/sessions.js";
import type { SoftDeleteDriver } from "./contract/soft-delete.js";
import type { TracesDriver } from "./contract/traces.js";

/**
 * What an adapter implements: one method per operation of the operation table
 * (`store/operation-table.ts`, composed of the families under `store/contract/`), each taking one
 * request object and resolving to plain records. `MessageStore` wraps a driver
 * (`new MessageStore(driver)`) and keeps what is the same for every backend; a view
 * (`forUser`, `forTenant`) is a `MessageStore` over the same driver with a narrower scope.
 *
 * What core does, so drivers don't: validate and copy every argument once (a driver only sees
 * valid records and plain-string ids, never an object the caller holds), fill the owner of
 * records written through a view, reject calls after `close()`, wait for calls in flight before
 * `close`, turn the rows a list returns into pages and cursors (ask for `take` rows after
 * `after`), compress, round and re-sort search scores, answer a view's refusal as `NotFoundError`
 * (see {@link ownerRefusal}), and check capabilities before any call. Any error a driver throws
 * reaches the caller as core's: an error of core's classes gets the driver's `name`
 * (`[message-store] [name] …`) if it has none, and anything else goes through {@link mapError}.
 *
 * **The scope.** Every request carries a `scope` (`{}`, or a `userId` and/or a `tenantId`):
 * the request may only see and touch records whose own `userId`/`tenantId` equal the scope's.
 * Enforce it in the same statement or transaction as the read or write, never by a read before
 * it. A record outside the scope is absent for that request: a read by id resolves `null`, a
 * list leaves it out, a delete, flag or restore by id resolves `false` (`null`), a transcript or
 * context window of an out-of-scope conversation is empty. For lists, analytics, search and
 * erasure the scope *is* the owner filter (core merges the caller's `userId`/`tenantId` filter
 * with a view's). Records written through a view already carry the view's owners, so the
 * ownership rules below refuse writes into another owner's records.
 *
 * **The rules every write keeps**, atomically inside the write (`IntegrityError`, nothing
 * stored; see `MessageStoreApi` for the caller's view). They hold on every adapter:
 * - ownership: a conversation's `userId`/`tenantId` never change; a message's `userId` equals its
 *   conversation's and its `tenantId` is the conversation's (`null` filled); a trace's `userId`
 *   and `tenantId` are the conversation's (`null` filled); nothing moves to another parent.
 *   Refuse a write that names a missing conversation (or, for a trace, a missing message), or a
 *   record stored under another owner, with {@link ownerRefusal} (a view then answers "does not
 *   exist", the same for both). Check ownership before the other rules, so a view never learns
 *   that another owner's record exists: for a trace, the conversation's owner, then the message's,
 *   then the message's conversation, then the trace id's owner.
 * - soft delete: reads exclude records with `deletedAt` unless asked; an existing record's
 *   `deletedAt` changes only through the soft-delete methods; no live record is written into a
 *   soft-deleted conversation, nor a live trace onto a soft-deleted message.
 * - embeddings: an upsert that changes `originalContent` and passes the stored embedding stores
 *   `embedding: null` (stale); the record returned says so.
 *
 * Errors: throw `IntegrityError` for the rules, `ConnectionError` for a lost backend,
 * `CorruptDataError` for stored data that fails the model (`readStored` tells). Optional methods
 * are called only when `capabilities` declares them (`MessageStore` checks at construction that
 * a declared capability has its methods). The conformance suite (`@message-store/conformance`)
 * checks all of it end to end.
 */
export interface MessageStoreDriver extends DriverOperations, RemovedHooks {
  /** Short adapter name, used as the error prefix: `[message-store] [name] …`. */
  readonly name: string;
  /** Optional capabilities; see `StoreCapabilities`. */
  readonly capabilities: StoreCapabilities;

  /** Releases resources. Called once, after calls in flight settled. */
  close(): Promise<void>;

  /**
   * Turns an error the driver threw that is not one of core's into one: map your driver's errors
   * (lost connection → `ConnectionError`, disk full → `StorageError`, a write whose answer never
   * came → `OutcomeUnknownError`, …). `operation` is the driver method that threw (`"close"` for
   * `close`), so a lost connection can be told apart for a read (`ConnectionError`) and a write
   * (`OutcomeUnknownError`). For an error it does not know (or without this method), core makes a
   * `StorageError` whose message and cause are scrubbed of passwords. Core stamps the name.
   */
  mapError?(
    error: unknown,
    operation: DriverOperationName | "close",
  ): MessageStoreError | undefined;
}

/** The operations of every family, as one interface declares them. */
type DriverOperations = ConversationsDriver &
  SoftDeleteDriver &
  MessagesDriver &
  SessionsDriver &
  TracesDriver &
  SearchDriver &
  EmbeddingQueueDriver &
  CheckpointsDriver;

/** A driver operation's name (the operation table's keys are the same: `DriverOperation`). */
type DriverOperationName = keyof DriverOperations;

/**
 * The protected hooks adapters implemented before the driver interface (`_storeMessages`, …, and
 * `_storeTurnTrace`, `_close`): declaring one on a driver fails to compile, instead of leaving a
 * method core never calls.
 */
type RemovedHooks = {
  readonly [K in `_${DriverOperationName | "storeTurnTrace" | "close"}`]?: never;
};

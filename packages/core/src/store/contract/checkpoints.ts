import type {
  CheckpointFilter,
  CheckpointInput,
  CheckpointPutOptions,
  CheckpointQueryInput,
  CheckpointReadOptions,
  CheckpointRecord,
  CheckpointWritesInput,
  CheckpointWritesRecord,
  StoredCheckpoint,
} from "../../models/checkpoint.js";
import type { ConversationRecord } from "../../models/conversation.js";
import type { Message } from "../../models/message.js";
import type { Page } from "../../models/queries.js";
import type { SessionOptions } from "../../models/session.js";
import type { TurnTrace } from "../../models/turn-trace.js";
import type { CheckpointKey } from "../../paging/cursor.js";
import type { PageRequest } from "../../paging/page-request.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { ByIdRequest, DriverRequest } from "./requests.js";

/** Checkpoints of agent graphs (capability `checkpoints`). What the caller sees. */
export interface CheckpointsApi {
  /**
   * Stores a checkpoint of the thread `checkpoint.conversationId`, in one atomic write with what
   * it adds to the transcript: creates the conversation when it is missing (owner, agent, tenant
   * and title from `options`, as `storeSessionMessages` does), stores `options.messages` as
   * `storeSessionMessages` stores turns (timestamps after the conversation's activity, a turn
   * already stored keeping its place) and `options.traces` as `storeTurnTraces` (all or
   * nothing), stores the channel values the checkpoint changed (`checkpoint.values`; a value
   * already stored for that channel and version in the thread's namespace is kept) and upserts the
   * checkpoint by conversation, namespace and id. All or nothing: on any error nothing is stored.
   * Throws `ValidationError`, `IntegrityError` when the conversation belongs to another owner or
   * is soft-deleted or a message or trace breaks a rule (through a view: `NotFoundError` for
   * another owner's thread), and `UnsupportedOperationError` unless `capabilities.checkpoints`.
   */
  putCheckpoint(checkpoint: CheckpointInput, options: CheckpointPutOptions): Promise<void>;

  /**
   * Stores the pending writes of one task against a checkpoint of the thread, creating the
   * conversation when it is missing (as {@link putCheckpoint}); the checkpoint itself need not
   * be stored yet. A write with a negative `idx` replaces the task's stored write of that index;
   * one with `idx ≥ 0` leaves a stored one as it is (a retried task keeps its first result). All
   * or nothing. Throws as {@link putCheckpoint} does.
   */
  putCheckpointWrites(writes: CheckpointWritesInput, options: SessionOptions): Promise<void>;

  /**
   * The checkpoint `options.id` of the thread's namespace (default `""`), or without an id the
   * latest one (greatest id in code-point order), with its channel values and pending writes (see
   * `StoredCheckpoint` for their order). Resolves `null` when there is none, or the
   * conversation does not exist, is another owner's (through a view) or is soft-deleted. Throws
   * `UnsupportedOperationError` unless `capabilities.checkpoints`.
   */
  getCheckpoint(
    conversationId: string,
    options?: CheckpointReadOptions,
  ): Promise<StoredCheckpoint | null>;

  /**
   * Checkpoints newest first: `id` descending (code points), then `conversationId` and `namespace`
   * descending, each as {@link getCheckpoint} returns it. Every given filter applies: one thread
   * (`conversationId`), one `namespace`, ids before `before`, `metadata` (each key equal as JSON),
   * and the owners of the thread (`userId`, `tenantId`). Soft-deleted conversations' checkpoints
   * are not listed. Paged like every list. Throws `UnsupportedOperationError` unless
   * `capabilities.checkpoints`.
   */
  listCheckpoints(query?: CheckpointQueryInput): Promise<Page<StoredCheckpoint>>;

  /**
   * Deletes every checkpoint, channel value and pending write of the thread (soft-deleted or
   * not), atomically, and keeps the conversation and its transcript (`deleteConversation` deletes
   * everything). Resolves `false` when there is no such conversation. Throws
   * `UnsupportedOperationError` unless `capabilities.checkpoints`.
   */
  deleteCheckpoints(conversationId: string): Promise<boolean>;
}

/** Checkpoints of agent graphs (capability `checkpoints`). What a driver implements. */
export interface CheckpointsDriver {
  /**
   * `checkpoints`. In one atomic write, all or nothing: creates the conversation from
   * `conversation` when it is missing, or checks the ownership rules against the existing one
   * (`ownerRefusal` for another owner, `IntegrityError` when it is soft-deleted), exactly
   * as `storeSessionMessages`; stores `messages` as `storeSessionMessages` does (timestamps
   * chosen inside the write, same rules), then `traces` as `storeTurnTraces` with
   * `atomicTraceBatches`; then each of `checkpoint.values` unless a value is already stored for
   * that conversation, namespace, channel and version (it is kept); then upserts the checkpoint by
   * `(conversationId, namespace, id)`, replacing every field. Both lists may be empty: the
   * checkpoint alone is then one write.
   */
  putCheckpoint?(
    request: DriverRequest & {
      conversation: ConversationRecord;
      checkpoint: CheckpointRecord;
      messages: readonly Message[];
      traces: readonly TurnTrace[];
      now: number;
    },
  ): Promise<void>;

  /**
   * `checkpoints`. In one atomic write: creates or checks the conversation as {@link putCheckpoint}
   * does, then stores each write by `(conversationId, namespace, checkpointId, taskId, idx)`: a
   * write with a negative `idx` replaces a stored one with that key, one with `idx ≥ 0` leaves a
   * stored one as it is. The checkpoint need not exist (LangGraph writes a task's results while
   * the put of its checkpoint may still be in flight); writes are deleted with their thread.
   */
  putCheckpointWrites?(
    request: DriverRequest & { conversation: ConversationRecord; writes: CheckpointWritesRecord },
  ): Promise<void>;

  /**
   * `checkpoints`. The checkpoint `id` of the conversation's `namespace`, or with `id: null` the
   * one with the greatest id (`compareIds`), with its values and writes as `StoredCheckpoint`
   * says, read atomically. `null` when there is none, or the conversation is out of the scope or
   * soft-deleted.
   */
  getCheckpoint?(
    request: DriverRequest & { conversationId: string; namespace: string; id: string | null },
  ): Promise<StoredCheckpoint | null>;

  /**
   * `checkpoints`. The checkpoints of live conversations in the scope matching every filter
   * (`matchesMetadata` for `metadata`; `before` compares ids with `compareIds`), after
   * `page.after` in `compareCheckpointKeys` order (newest first), at most `page.take`, each as
   * {@link getCheckpoint} returns it, read atomically.
   */
  listCheckpoints?(
    request: DriverRequest & { filter: CheckpointFilter; page: PageRequest<CheckpointKey> },
  ): Promise<StoredCheckpoint[]>;

  /**
   * `checkpoints`. Deletes the checkpoints, channel values and pending writes of the conversation
   * `id` (soft-deleted or not) atomically, and keeps the conversation. `false` when there is no
   * such conversation in the scope.
   */
  deleteCheckpoints?(request: ByIdRequest): Promise<boolean>;
}

/** The driver operations of this family, as the operation table lists them. */
export const CHECKPOINTS = {
  putCheckpoint: { capability: "checkpoints", write: true, owned: true },
  putCheckpointWrites: { capability: "checkpoints", write: true, owned: true },
  getCheckpoint: { capability: "checkpoints" },
  listCheckpoints: { capability: "checkpoints" },
  deleteCheckpoints: { capability: "checkpoints", write: true },
} as const satisfies FamilySpecs<CheckpointsDriver>;

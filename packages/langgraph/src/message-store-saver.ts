import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  WRITES_IDX_MAP,
} from "@langchain/langgraph-checkpoint";
import {
  callPricer,
  type MessageStoreApi,
  type SessionOptions,
  type StoredCheckpoint,
  UnsupportedOperationError,
} from "@message-store/core";
import { nextVersion } from "./channel-version.js";
import type { MessageStoreSaverOptions } from "./saver-options.js";
import {
  checkpointConfig,
  dump,
  dumpMetadata,
  loadValues,
  sendsOf,
  toTuple,
} from "./stored-tuple.js";
import {
  checkOwnerOptions,
  OwnerViews,
  ownerOf,
  requireThread,
  type ThreadConfig,
  threadConfig,
} from "./thread-config.js";
import { mirrorable, mirrorWrites, TranscriptMirror } from "./transcript-mirror.js";

/** Checkpoints read per store call while `list` walks without a limit. */
const LIST_PAGE = 100;

/**
 * A LangGraph checkpointer on a message store: each thread is a conversation of the store
 * (`thread_id` = conversation id), created on the first put with the owner the config names
 * (`configurable.user_id`, `agent_id`, `tenant_id`, defaulting to the options). Checkpoints,
 * channel values (stored once per channel version) and pending writes go through the store's
 * `checkpoints` capability with LangGraph's own serializer; the graph's `messages` channel is
 * mirrored as the conversation's messages (ids kept, tool calls paired, `usage_metadata` as turn
 * traces) in the same atomic write as the checkpoint. Every call acts as the thread's owner
 * (through `store.forUser`): another user's thread reads as absent and refuses writes.
 */
export class MessageStoreSaver extends BaseCheckpointSaver {
  readonly store: MessageStoreApi;
  readonly options: MessageStoreSaverOptions;
  readonly #mirror: TranscriptMirror;
  readonly #views: OwnerViews;

  /**
   * Throws `UnsupportedOperationError` when the store does not declare `capabilities.checkpoints`,
   * `ValidationError` when `userId`, `agentId` or `tenantId` is given and not an id (`""`
   * included). Every call throws `ValidationError` when its config's `user_id`, `agent_id` or
   * `tenant_id` is present and not an id: an empty one never reads as "no owner".
   */
  constructor(store: MessageStoreApi, options: MessageStoreSaverOptions = {}) {
    super(options.serde);
    checkOwnerOptions(options);
    if (store.capabilities.checkpoints !== true) {
      throw new UnsupportedOperationError(
        "MessageStoreSaver needs a store with capabilities.checkpoints (JSON, PostgreSQL, MongoDB)",
        { adapter: "langgraph" },
      );
    }
    callPricer(options.pricing);
    this.store = store;
    this.options = options;
    this.#mirror = new TranscriptMirror(options.cachedThreads ?? 1000);
    this.#views = new OwnerViews(store);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const thread = threadConfig(config, this.options);
    if (thread.threadId === undefined) return undefined;
    const stored = await this.#views.of(thread).getCheckpoint(thread.threadId, {
      namespace: thread.namespace ?? "",
      ...(thread.checkpointId === undefined ? {} : { id: thread.checkpointId }),
    });
    return stored === null ? undefined : this.#tuple(stored, thread);
  }

  async *list(
    config: RunnableConfig,
    options: CheckpointListOptions = {},
  ): AsyncGenerator<CheckpointTuple> {
    const thread = threadConfig(config, this.options);
    const view = this.#views.of(thread);
    const before = options.before?.configurable?.checkpoint_id as string | undefined;
    const query = {
      ...(thread.threadId === undefined ? {} : { conversationId: thread.threadId }),
      ...(thread.namespace === undefined ? {} : { namespace: thread.namespace }),
      ...(before ? { before } : {}),
      ...(options.filter ? { metadata: options.filter } : {}),
    };
    let left = options.limit ?? Number.POSITIVE_INFINITY;
    let cursor: string | null = null;
    while (left > 0) {
      const page = await view.listCheckpoints({
        ...query,
        limit: Math.min(left, LIST_PAGE),
        cursor,
      });
      for (const stored of page.items) {
        if (thread.checkpointId !== undefined && stored.id !== thread.checkpointId) continue;
        left--;
        yield await this.#tuple(stored, thread);
      }
      cursor = page.nextCursor;
      if (cursor === null) return;
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    if (config.configurable === undefined) throw new Error('Missing "configurable" in config');
    const thread = threadConfig(config, this.options);
    const threadId = requireThread(thread, "put checkpoint");
    const owner = await this.#owner(thread, threadId);
    const namespace = thread.namespace ?? "";
    const parentId = thread.checkpointId ?? null;
    const { channel_values: values, ...document } = checkpoint;
    const newValues = Object.entries(newVersions).filter(([channel]) => channel in values);
    const [serialized, stored, meta] = await Promise.all([
      dump(this.serde, document),
      Promise.all(
        newValues.map(async ([channel, version]) => ({
          channel,
          version: String(version),
          value: await dump(this.serde, values[channel]),
        })),
      ),
      dumpMetadata(this.serde, metadata),
    ]);
    const view = this.#views.of(thread);
    const messages = namespace === "" ? this.#messagesOf(values) : null;
    const changed =
      messages && this.#channel() in newVersions
        ? await this.#changes(view, threadId, parentId, messages)
        : [];
    const now = Date.now();
    const mirrored = mirrorWrites(changed, messages ?? [], {
      threadId,
      userId: owner.userId,
      agentId: thread.agentId,
      latencyMs: changed.length > 0 ? this.#mirror.turnDuration(threadId, now, changed) : 0,
      now,
      ...(this.options.pricing ? { pricing: this.options.pricing } : {}),
      checkpoint: { id: checkpoint.id, step: metadata.step },
    });
    await view.putCheckpoint(
      {
        conversationId: threadId,
        namespace,
        id: checkpoint.id,
        parentId,
        checkpoint: serialized,
        channelVersions: Object.fromEntries(
          Object.entries(checkpoint.channel_versions).map(([c, v]) => [c, String(v)]),
        ),
        metadata: meta,
        values: stored,
      },
      { ...owner, messages: mirrored.turns, traces: mirrored.traces },
    );
    if (messages) this.#mirror.remember(threadId, checkpoint.id, messages);
    return checkpointConfig(threadId, namespace, checkpoint.id);
  }

  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath = "",
  ): Promise<void> {
    const thread = threadConfig(config, this.options);
    const threadId = requireThread(thread, "put writes");
    if (thread.checkpointId === undefined)
      throw new Error('Failed to put writes: the config\'s "configurable" has no "checkpoint_id"');
    // One write per index: a special channel written twice keeps the last value, as an upsert would.
    const byIdx = new Map<number, { channel: string; idx: number; value: unknown }>();
    for (const [i, [channel, value]] of writes.entries()) {
      const idx = WRITES_IDX_MAP[channel] ?? i;
      byIdx.set(idx, { channel, idx, value });
    }
    if (byIdx.size === 0) return;
    const serialized = await Promise.all(
      [...byIdx.values()].map(async (w) => ({ ...w, value: await dump(this.serde, w.value) })),
    );
    await this.#views.of(thread).putCheckpointWrites(
      {
        conversationId: threadId,
        namespace: thread.namespace ?? "",
        checkpointId: thread.checkpointId,
        taskId,
        taskPath,
        writes: serialized,
      },
      await this.#owner(thread, threadId),
    );
  }

  /**
   * Deletes the thread: its conversation, with the mirrored transcript, traces, checkpoints and
   * writes (`store.deleteCheckpoints(threadId)` deletes only the checkpoints). Acts as
   * `options.userId` when given: another user's thread is left alone.
   */
  async deleteThread(threadId: string): Promise<void> {
    const thread = threadConfig({}, this.options);
    await this.#views.of(thread).deleteConversation(threadId);
    this.#mirror.forget(threadId);
  }

  /**
   * Versions that never repeat in a thread (see `nextVersion`), so a branch forked from an
   * earlier checkpoint never reuses a version another branch stored a value under.
   */
  override getNextVersion(current: number | undefined): number {
    return nextVersion(current);
  }

  /**
   * Who writes the thread: the config's or the options' user; without one, the owner of the
   * existing conversation (looked up once per thread), so a config LangGraph made itself (a
   * snapshot's `config` for time travel) continues a thread too.
   */
  async #owner(thread: ThreadConfig, threadId: string): Promise<SessionOptions> {
    if (thread.userId !== undefined) return ownerOf(thread);
    let known = this.#mirror.ownerOf(threadId);
    if (!known) {
      const c = await this.#views.of(thread).getConversation(threadId);
      if (c) {
        known = { userId: c.userId, ...(c.tenantId === null ? {} : { tenantId: c.tenantId }) };
        this.#mirror.rememberOwner(threadId, known);
      }
    }
    return ownerOf(thread, known);
  }

  #channel(): string {
    return this.options.messagesChannel || "messages";
  }

  #messagesOf(values: Record<string, unknown>) {
    if (this.options.messagesChannel === false || !(this.#channel() in values)) return null;
    return mirrorable(values[this.#channel()]);
  }

  async #tuple(stored: StoredCheckpoint, thread: ThreadConfig): Promise<CheckpointTuple> {
    const view = this.#views.of(thread);
    const { conversationId, namespace, parentId } = stored;
    const parentSends = async () =>
      sendsOf(this.serde, await view.getCheckpoint(conversationId, { namespace, id: parentId! }));
    const tuple = await toTuple(this.serde, stored, parentSends, () =>
      this.getNextVersion(undefined),
    );
    if (namespace === "") {
      const messages = this.#messagesOf(tuple.checkpoint.channel_values);
      if (messages) this.#mirror.remember(conversationId, stored.id, messages);
    }
    return tuple;
  }

  /** The messages a root put changes: those not in the checkpoint it follows, or different. */
  async #changes(
    view: MessageStoreApi,
    threadId: string,
    parentId: string | null,
    messages: BaseMessage[],
  ): Promise<BaseMessage[]> {
    if (parentId !== null && !this.#mirror.knows(threadId, parentId)) {
      const parent = await view.getCheckpoint(threadId, { id: parentId });
      const values = parent ? await loadValues(this.serde, parent) : {};
      this.#mirror.remember(threadId, parentId, mirrorable(values[this.#channel()]));
    }
    return this.#mirror.changes(threadId, parentId, messages);
  }
}

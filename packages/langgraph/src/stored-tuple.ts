import type { RunnableConfig } from "@langchain/core/runnables";
import {
  type Checkpoint,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  maxChannelVersion,
  type SerializerProtocol,
  TASKS,
} from "@langchain/langgraph-checkpoint";
import type { JsonObject, SerializedValue, StoredCheckpoint } from "@message-store/core";

/** `value` as the serializer writes it, in the store's shape. */
export async function dump(serde: SerializerProtocol, value: unknown): Promise<SerializedValue> {
  const [type, data] = await serde.dumpsTyped(value);
  return { type, data };
}

/** A stored value back through the serializer. */
export function load(serde: SerializerProtocol, value: SerializedValue): Promise<unknown> {
  return serde.loadsTyped(value.type, value.data);
}

/**
 * Metadata as plain JSON the store can filter on: the serializer's JSON text, parsed (its
 * LangChain objects stay in their serialized form, and {@link loadMetadata} revives them).
 */
export async function dumpMetadata(
  serde: SerializerProtocol,
  metadata: CheckpointMetadata,
): Promise<JsonObject> {
  const [type, data] = await serde.dumpsTyped(metadata);
  if (type !== "json")
    throw new Error(`the serializer wrote checkpoint metadata as "${type}"; the store needs JSON`);
  return JSON.parse(new TextDecoder().decode(data)) as JsonObject;
}

export function loadMetadata(
  serde: SerializerProtocol,
  metadata: JsonObject,
): Promise<CheckpointMetadata> {
  return serde.loadsTyped("json", JSON.stringify(metadata));
}

/** The config that names one checkpoint. */
export function checkpointConfig(threadId: string, namespace: string, id: string): RunnableConfig {
  return { configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: id } };
}

/** The channel values of a checkpoint, by channel. */
export async function loadValues(
  serde: SerializerProtocol,
  stored: StoredCheckpoint,
): Promise<Record<string, unknown>> {
  const entries = await Promise.all(
    stored.values.map(async (v) => [v.channel, await load(serde, v.value)] as const),
  );
  return Object.fromEntries(entries);
}

/**
 * A stored checkpoint as LangGraph's tuple. `parentSends` gives, for a checkpoint of a format
 * older than 4, the values its parent's tasks sent (then carried in channel values, as
 * LangGraph's own savers migrate them).
 */
export async function toTuple(
  serde: SerializerProtocol,
  stored: StoredCheckpoint,
  parentSends: () => Promise<unknown[] | null>,
  getNextVersion: (current: undefined) => string | number,
): Promise<CheckpointTuple> {
  const { conversationId: thread, namespace, id, parentId } = stored;
  const [document, channelValues, metadata, pendingWrites] = await Promise.all([
    load(serde, stored.checkpoint) as Promise<Omit<Checkpoint, "channel_values">>,
    loadValues(serde, stored),
    loadMetadata(serde, stored.metadata),
    Promise.all(
      stored.writes.map(
        async (w) => [w.taskId, w.channel, await load(serde, w.value)] as CheckpointPendingWrite,
      ),
    ),
  ]);
  const checkpoint = { ...document, channel_values: channelValues } as Checkpoint;
  if (checkpoint.v < 4 && parentId !== null) {
    const sends = await parentSends();
    if (sends !== null) {
      checkpoint.channel_values[TASKS] = sends;
      const versions = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions[TASKS] =
        versions.length > 0 ? maxChannelVersion(...versions) : getNextVersion(undefined);
    }
  }
  const tuple: CheckpointTuple = {
    config: checkpointConfig(thread, namespace, id),
    checkpoint,
    metadata,
    pendingWrites,
  };
  if (parentId !== null) tuple.parentConfig = checkpointConfig(thread, namespace, parentId);
  return tuple;
}

/** The values a checkpoint's tasks sent (its writes to `TASKS`, in write order); `null` for none. */
export async function sendsOf(
  serde: SerializerProtocol,
  parent: StoredCheckpoint | null,
): Promise<unknown[] | null> {
  const sends = parent?.writes.filter((w) => w.channel === TASKS) ?? [];
  return sends.length === 0 ? null : Promise.all(sends.map((w) => load(serde, w.value)));
}

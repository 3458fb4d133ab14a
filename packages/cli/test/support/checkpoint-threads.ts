import type { MessageStore, StoredCheckpoint } from "@message-store/core";

const json = (value: unknown) => ({
  type: "json",
  data: new TextEncoder().encode(JSON.stringify(value)),
});
/** Every byte value, so that a codec that is not binary-safe shows. */
const allBytes = { type: "bytes", data: Uint8Array.from({ length: 256 }, (_, i) => i) };

/**
 * Threads the way LangGraph's saver leaves them, written with the store's own operations:
 * several checkpoints per thread, values stored by the checkpoint that changed them and read
 * back by later ones, a subgraph namespace, pending writes of several tasks (an interrupt's
 * negative index among them), a tenant's thread; next to them a soft-deleted message and a
 * soft-deleted conversation.
 */
export async function seedThreads(store: MessageStore): Promise<void> {
  const owner = { userId: "u-1" };
  await store.storeConversation({ id: "thread-a", userId: "u-1", agentId: "graph", createdAt: 1 });
  await store.storeMessages([
    {
      id: "a-1",
      conversationId: "thread-a",
      userId: "u-1",
      role: "user",
      originalContent: "hi",
      timestamp: 10,
    },
    {
      id: "a-2",
      conversationId: "thread-a",
      userId: "u-1",
      role: "assistant",
      originalContent: "hello",
      timestamp: 11,
    },
    {
      id: "a-3",
      conversationId: "thread-a",
      userId: "u-1",
      role: "user",
      originalContent: "oops",
      timestamp: 12,
    },
  ]);
  await store.softDeleteMessage("a-3");
  const put = (
    conversationId: string,
    namespace: string,
    id: string,
    parentId: string | null,
    channelVersions: Record<string, string>,
    values: { channel: string; version: string; value: { type: string; data: Uint8Array } }[],
    options: { userId: string; tenantId?: string } = owner,
  ) =>
    store.putCheckpoint(
      {
        conversationId,
        namespace,
        id,
        parentId,
        checkpoint: json({ v: 4, id, channel_versions: channelVersions }),
        channelVersions,
        metadata: {
          source: parentId === null ? "input" : "loop",
          step: id.length,
          nested: { $k: [1, null] },
        },
        values,
      },
      options,
    );
  await put("thread-a", "", "cp-01", null, { messages: "1", step: "1" }, [
    { channel: "messages", version: "1", value: json(["hi"]) },
    { channel: "step", version: "1", value: json(1) },
  ]);
  await put("thread-a", "", "cp-02", "cp-01", { messages: "2", step: "1" }, [
    { channel: "messages", version: "2", value: json(["hi", "hello"]) },
  ]);
  await put("thread-a", "", "cp-03", "cp-02", { messages: "2", step: "2", blob: "1" }, [
    { channel: "step", version: "2", value: json(2) },
    { channel: "blob", version: "1", value: allBytes },
  ]);
  await put("thread-a", "", "cp-04", "cp-03", { messages: "2", step: "2", blob: "1" }, []);
  await put("thread-a", "agent:sub|1", "cp-02a", null, { inner: "1" }, [
    { channel: "inner", version: "1", value: json({ deep: true }) },
  ]);
  await put("thread-a", "agent:sub|1", "cp-03a", "cp-02a", { inner: "2" }, [
    { channel: "inner", version: "2", value: json({ deep: false }) },
  ]);
  const writes = (
    namespace: string,
    checkpointId: string,
    taskId: string,
    taskPath: string,
    list: { channel: string; idx: number; value: { type: string; data: Uint8Array } }[],
  ) =>
    store.putCheckpointWrites(
      { conversationId: "thread-a", namespace, checkpointId, taskId, taskPath, writes: list },
      owner,
    );
  await writes("", "cp-04", "task-2", "~__pregel_pull, tools", [
    { channel: "messages", idx: 0, value: json(["tool result"]) },
    { channel: "branch:to:agent", idx: 1, value: allBytes },
  ]);
  await writes("", "cp-04", "task-1", "~__pregel_pull, agent", [
    { channel: "__interrupt__", idx: -3, value: json([{ value: "run the tool?" }]) },
  ]);
  await writes("", "cp-02", "task-0", "", [{ channel: "messages", idx: 0, value: json("old") }]);
  await writes("agent:sub|1", "cp-03a", "task-s", "~__pregel_pull, inner", [
    { channel: "inner", idx: 0, value: json({ deep: "write" }) },
  ]);

  const tenant = { userId: "u-2", tenantId: "acme" };
  await store.storeConversation({
    id: "thread-b",
    ...tenant,
    createdAt: 2,
    title: "tenant thread",
  });
  await put(
    "thread-b",
    "",
    "cp-b1",
    null,
    { messages: "1" },
    [{ channel: "messages", version: "1", value: json(["acme"]) }],
    tenant,
  );

  await store.storeConversation({ id: "gone", userId: "u-1", createdAt: 3 });
  await store.storeMessage({
    id: "g-1",
    conversationId: "gone",
    userId: "u-1",
    role: "user",
    originalContent: "bye",
    timestamp: 20,
  });
  await store.softDeleteConversation("gone");
}

/** Every checkpoint `store` lists for the seeded threads, newest first. */
export async function seededCheckpoints(store: MessageStore): Promise<StoredCheckpoint[]> {
  const all: StoredCheckpoint[] = [];
  for (const conversationId of ["thread-a", "thread-b"]) {
    let cursor: string | null = null;
    do {
      const page = await store.listCheckpoints({ conversationId, limit: 2, cursor });
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor !== null);
  }
  return all;
}

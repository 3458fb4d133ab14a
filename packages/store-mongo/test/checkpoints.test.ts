import type { CheckpointInput } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { openFixture } from "./helpers.js";

/**
 * The checkpoint documents behind the API, on both deployments: a refused put with transactions
 * stores nothing, and every delete leaves no checkpoint document behind (the conformance suite
 * runs on the standalone server and cannot count documents).
 */

const bytes = (text: string) => new TextEncoder().encode(text);
const OWNER = { userId: "u1" };

function checkpoint(thread: string, id: string): CheckpointInput {
  return {
    conversationId: thread,
    id,
    checkpoint: { type: "json", data: bytes("{}") },
    channelVersions: { a: "1" },
    values: [
      { channel: "a", version: "1", value: { type: "bytes", data: new Uint8Array([0, 255]) } },
    ],
  };
}

async function thread(store: Awaited<ReturnType<typeof openFixture>>["store"], id: string) {
  await store.putCheckpoint(checkpoint(id, "c1"), OWNER);
  await store.putCheckpointWrites(
    {
      conversationId: id,
      checkpointId: "c1",
      taskId: "t",
      writes: [{ channel: "a", idx: 0, value: { type: "json", data: bytes("1") } }],
    },
    OWNER,
  );
}

describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("checkpoint documents: $name", ({ standalone }) => {
  it("every delete of a thread leaves no checkpoint document behind", async () => {
    const f = await openFixture({ standalone });
    const counts = async () =>
      Promise.all(
        ["checkpoints", "checkpoint_values", "checkpoint_writes"].map((c) =>
          f.db.collection(c).countDocuments({ conversationId: { $ne: "keep" } }),
        ),
      );
    await thread(f.store, "keep");
    for (const erase of [
      () => f.store.deleteConversation("gone"),
      () => f.store.deleteCheckpoints("gone"),
      () => f.store.deleteUserData("u1").then(() => thread(f.store, "keep")),
      async () => {
        await f.store.softDeleteConversation("gone");
        await f.store.purgeDeleted({ before: Date.now() + 1000 });
      },
    ]) {
      await thread(f.store, "gone");
      expect(await counts()).toEqual([1, 1, 1]);
      await erase();
      expect(await counts()).toEqual([0, 0, 0]);
    }
    expect(await f.store.getCheckpoint("keep")).not.toBeNull();
  });

  it("a put refused at a trace stores no checkpoint; with transactions no message either", async () => {
    const f = await openFixture({ standalone });
    const refused = f.store.putCheckpoint(checkpoint("t", "c1"), {
      ...OWNER,
      messages: [{ id: "m1", role: "user", content: "hi" }],
      traces: [
        {
          id: "tr",
          messageId: "missing",
          conversationId: "t",
          agentId: "a",
          timestamp: 1,
          totalTokens: 1,
          totalLatencyMs: 1,
        },
      ],
    });
    await expect(refused).rejects.toThrow(/does not exist/);
    expect(await f.db.collection("checkpoints").countDocuments({})).toBe(0);
    expect(await f.db.collection("checkpoint_values").countDocuments({})).toBe(0);
    expect(await f.db.collection("messages").countDocuments({})).toBe(standalone ? 1 : 0);
    expect(f.store.capabilities.atomicTraceBatches).toBe(!standalone);
  });
});

describe.each([
  { name: "replica set (transactions)", standalone: false },
  { name: "standalone (no transactions)", standalone: true },
])("checkpoint commands: $name", ({ standalone }) => {
  it("a read is one aggregation; a put of a known thread a find and two writes, then a find that its conversation is still there", async () => {
    const f = await openFixture({ standalone });
    const commit = standalone ? ["find"] : ["commitTransaction", "find"];
    await thread(f.store, "t");
    expect(await f.commandsOf(() => f.store.getCheckpoint("t"))).toEqual(["aggregate"]);
    expect(await f.commandsOf(() => f.store.listCheckpoints({ conversationId: "t" }))).toEqual([
      "aggregate",
    ]);
    expect(await f.commandsOf(() => f.store.putCheckpoint(checkpoint("t", "c2"), OWNER))).toEqual([
      "find",
      "update",
      "update",
      ...commit,
    ]);
  });
});

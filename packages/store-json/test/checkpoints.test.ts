import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CheckpointInput, MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { crashCopy, tempDir } from "./helpers.js";

const utf8 = (text: string) => new TextEncoder().encode(text);
const OWNER = { userId: "u1", agentId: "graph" };

function checkpoint(id: string, overrides: Partial<CheckpointInput> = {}): CheckpointInput {
  return {
    conversationId: "thread-1",
    id,
    checkpoint: { type: "json", data: utf8(`{"id":"${id}"}`) },
    channelVersions: { messages: "1", raw: "1" },
    metadata: { source: "loop", step: 1 },
    ...overrides,
  };
}

/** A thread with text and binary values, writes, a mirrored message, and a deleted thread. */
async function seed(store: MessageStoreApi): Promise<void> {
  await store.putCheckpoint(
    checkpoint("c1", {
      values: [
        { channel: "messages", version: "1", value: { type: "json", data: utf8('["hi"]') } },
        { channel: "raw", version: "1", value: { type: "bytes", data: new Uint8Array([0xff, 0]) } },
      ],
    }),
    { ...OWNER, messages: [{ id: "m1", role: "user", content: "hi" }] },
  );
  await store.putCheckpointWrites(
    {
      conversationId: "thread-1",
      checkpointId: "c1",
      taskId: "task",
      taskPath: "~0",
      writes: [{ channel: "messages", idx: 0, value: { type: "json", data: utf8('["yo"]') } }],
    },
    OWNER,
  );
  await store.putCheckpoint(checkpoint("c0", { conversationId: "thread-2" }), OWNER);
  await store.deleteCheckpoints("thread-2");
}

describe("checkpoints in the JSON files", () => {
  it("the journal replays every checkpoint operation (a crash copy reads back what the store holds)", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    const live = (await store.listCheckpoints()).items;
    expect(live.map((c) => c.id)).toEqual(["c1"]);
    const journal = readFileSync(`${path}.journal`, "utf8");
    for (const op of ["putCheckpoint", "putCheckpointWrites", "deleteCheckpoints"])
      expect(journal).toContain(`"op":"${op}"`);
    const copy = crashCopy(path);
    await store.close();

    const replayed = await JsonMessageStore.open({ path: copy });
    expect((await replayed.listCheckpoints()).items).toEqual(live);
    expect((await replayed.getMessage("m1"))?.conversationId).toBe("thread-1");
    await replayed.close();
    const compacted = await JsonMessageStore.open({ path: copy });
    expect((await compacted.listCheckpoints()).items).toEqual(live);
    await compacted.close();
  });

  it("the main file holds UTF-8 values as text and other bytes in base64, in three arrays", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    await store.close();
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(Object.keys(doc).slice(-3)).toEqual([
      "checkpoints",
      "checkpointValues",
      "checkpointWrites",
    ]);
    expect(doc.checkpoints).toEqual([
      {
        conversationId: "thread-1",
        namespace: "",
        id: "c1",
        parentId: null,
        checkpoint: { type: "json", text: '{"id":"c1"}' },
        channelVersions: { messages: "1", raw: "1" },
        metadata: { source: "loop", step: 1 },
      },
    ]);
    expect(doc.checkpointValues).toEqual([
      {
        conversationId: "thread-1",
        namespace: "",
        channel: "messages",
        version: "1",
        value: { type: "json", text: '["hi"]' },
      },
      {
        conversationId: "thread-1",
        namespace: "",
        channel: "raw",
        version: "1",
        value: { type: "bytes", base64: "/wA=" },
      },
    ]);
    expect(doc.checkpointWrites).toEqual([
      {
        conversationId: "thread-1",
        namespace: "",
        checkpointId: "c1",
        taskId: "task",
        taskPath: "~0",
        channel: "messages",
        idx: 0,
        value: { type: "json", text: '["yo"]' },
      },
    ]);
  });

  it("a store without checkpoints writes the file an older version reads (no checkpoint arrays)", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "c", userId: "u", createdAt: 1 });
    await store.close();
    const doc = JSON.parse(readFileSync(path, "utf8"));
    expect(Object.keys(doc)).not.toContain("checkpoints");
  });

  it("a checkpoint record of a missing conversation or with a bad value is corrupt data, named", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    await store.close();
    const good = readFileSync(path, "utf8");
    const broken = (edit: (doc: Record<string, any>) => void) => {
      const doc = JSON.parse(good);
      edit(doc);
      writeFileSync(path, JSON.stringify(doc));
      return JsonMessageStore.open({ path });
    };
    await expect(
      broken((d) => {
        d.checkpointValues[0].conversationId = "nope";
      }),
    ).rejects.toThrow(/checkpointValues\[0\]: conversation "nope" does not exist/);
    await expect(
      broken((d) => {
        d.checkpoints[0].checkpoint = { type: "json", text: "x", base64: "eA==" };
      }),
    ).rejects.toThrow(/checkpoints\[0\].*does not match the model/);
    await expect(
      broken((d) => {
        d.checkpointWrites[0].idx = "0";
      }),
    ).rejects.toThrow(/checkpointWrites\[0\].*does not match the model/);
  });
});

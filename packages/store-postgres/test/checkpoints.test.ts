import type { CheckpointInput } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { freshDatabases, openStore, withClient } from "./helpers.js";

/**
 * What the conformance suite cannot see of the checkpoint tables: where a thread's rows live in
 * the partitioned layout, and the codecs (bytes, NUL in text) they go through.
 */

const freshDatabase = freshDatabases("ms_pg_checkpoints");
const bytes = (text: string) => new TextEncoder().encode(text);
const OWNER = { userId: "u1" };

function checkpoint(thread: string, id: string, extra: Partial<CheckpointInput> = {}) {
  return {
    conversationId: thread,
    id,
    checkpoint: { type: "json", data: bytes(`{"id":"${id}"}`) },
    channelVersions: { a: "1" },
    values: [{ channel: "a", version: "1", value: { type: "json", data: bytes(thread) } }],
    ...extra,
  };
}

describe("checkpoint tables", () => {
  it("partitioned layout: a thread's checkpoints, values and writes live in its conversation's partition", async () => {
    const url = await freshDatabase();
    const store = await openStore(url, { partitions: 4 });
    const threads = Array.from({ length: 12 }, (_, i) => `thread-${i}`);
    for (const t of threads) {
      await store.putCheckpoint(checkpoint(t, "c1"), OWNER);
      await store.putCheckpointWrites(
        {
          conversationId: t,
          checkpointId: "c1",
          taskId: "task",
          writes: [{ channel: "a", idx: 0, value: { type: "json", data: bytes("w") } }],
        },
        OWNER,
      );
    }
    await store.close();
    const { rows } = await withClient(url, (c) =>
      c.query(`SELECT t.conversation_id, t.tableoid::regclass::text AS part, c.tableoid::regclass::text AS conv
                 FROM (SELECT conversation_id, tableoid FROM checkpoints
                       UNION ALL SELECT conversation_id, tableoid FROM checkpoint_values
                       UNION ALL SELECT conversation_id, tableoid FROM checkpoint_writes) t
                 JOIN conversations c ON c.id = t.conversation_id`),
    );
    expect(rows).toHaveLength(36);
    const suffix = (name: string) => name.slice(name.lastIndexOf("_p"));
    for (const r of rows) expect(suffix(r.part), r.conversation_id).toBe(suffix(r.conv));
    expect(new Set(rows.map((r) => suffix(r.conv))).size).toBeGreaterThan(1);
  });

  it("bytes of every value round-trip, and NUL in ids, namespaces, channels and metadata", async () => {
    const url = await freshDatabase();
    const store = await openStore(url);
    const raw = new Uint8Array(256).map((_, i) => i);
    await store.putCheckpoint(
      checkpoint("t\u0000x", "c\u0000", {
        namespace: "ns\u0000\u0001",
        channelVersions: { "ch\u0000": "v\u0000" },
        metadata: { "k\u0000": "v\u0000", source: "loop" },
        values: [
          { channel: "ch\u0000", version: "v\u0000", value: { type: "b\u0000", data: raw } },
        ],
      }),
      OWNER,
    );
    const read = await store.getCheckpoint("t\u0000x", { namespace: "ns\u0000\u0001" });
    expect(read).toMatchObject({
      conversationId: "t\u0000x",
      namespace: "ns\u0000\u0001",
      id: "c\u0000",
      channelVersions: { "ch\u0000": "v\u0000" },
      metadata: { "k\u0000": "v\u0000", source: "loop" },
    });
    expect(read!.values).toHaveLength(1);
    expect(read!.values[0]!.value.type).toBe("b\u0000");
    expect([...read!.values[0]!.value.data]).toEqual([...raw]);
    const listed = await store.listCheckpoints({ metadata: { "k\u0000": "v\u0000" } });
    expect(listed.items.map((c) => c.id)).toEqual(["c\u0000"]);
    await store.close();
  });
});

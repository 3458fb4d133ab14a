import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { FIXTURES, tempDir } from "./helpers.js";

/**
 * `fixtures/format-v1/` was written by @message-store/json before soft delete, tenants and the
 * new message fields existed (format version 1): a main file and a journal of a second session
 * (a message, a flag, a trace, a conversation created and deleted, a grouped commit) that was
 * still open. It must open, replay and read back with the new fields' defaults.
 */
function openCopy(): Promise<JsonMessageStore> {
  const dir = tempDir();
  for (const file of ["store.json", "store.json.journal"])
    copyFileSync(join(FIXTURES, "format-v1", file), join(dir, file));
  return JsonMessageStore.open({ path: join(dir, "store.json") });
}

describe("files written by the previous version (format 1)", () => {
  it("open, replay the journal and read back with the new fields' defaults", async () => {
    const store = await openCopy();
    expect(await store.getConversation("c1")).toEqual({
      id: "c1",
      userId: "u1",
      tenantId: null,
      agentId: "a1",
      title: "first",
      description: null,
      status: "active",
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      deletedAt: null,
      tags: ["x"],
      metadata: { k: 1 },
      lastActivityAt: 1_700_000_000_005,
    });
    expect(await store.getConversation("c3")).toBeNull(); // created and deleted in the journal
    const transcript = await store.getMessagesByConversationId("c1");
    expect(transcript.items.map((m) => m.id)).toEqual(["m1", "m2", "m3", "m5", "m8"]);
    const m1 = transcript.items[0]!;
    expect(m1).toMatchObject({
      tenantId: null,
      tags: [],
      traceId: null,
      spanId: null,
      toolArguments: null,
      deletedAt: null,
      embedding: [1, 0, -0.5],
    });
    expect((await store.getMessage("m3"))?.isFlagged).toBe(true);
    expect((await store.getMessage("m7"))?.originalContent).toBe("grouped a");
    // A trace stored without a user gets the conversation's owner, as the contract now says.
    expect((await store.getTurnTraceByMessageId("m2"))?.userId).toBe("u1");
    expect(await store.getTurnTraceByMessageId("m5")).toMatchObject({
      userId: "u1",
      deletedAt: null,
    });
    expect((await store.queryTurnTraces({ userId: "u1" })).items.map((t) => t.id)).toEqual([
      "t2",
      "t1",
    ]);
    // The new operations work on the old data, and the file is rewritten as format 2.
    expect(await store.softDeleteConversation("c1")).toBe(true);
    expect((await store.listPendingEmbeddings()).items.map((m) => m.id)).toEqual(["m4", "m7"]);
    const path = store.driver.path;
    await store.close();
    expect(JSON.parse(readFileSync(path, "utf8")).version).toBe(2);
    const again = await JsonMessageStore.open({ path });
    expect(await again.getConversation("c1")).toBeNull();
    expect(await again.restoreConversation("c1")).toBe(true);
    expect((await again.getMessagesByConversationId("c1")).items).toHaveLength(5);
    await again.close();
  });
});

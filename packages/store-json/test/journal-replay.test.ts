import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { crashCopy, message, tempDir, trace } from "./helpers.js";

/** Everything readable, soft-deleted records included. */
async function dump(store: MessageStoreApi) {
  const withDeleted = { includeDeleted: true };
  const conversations = (await store.listConversations(withDeleted)).items;
  const messages = [];
  const traces = [];
  for (const c of conversations) {
    const page = await store.getMessagesByConversationId(c.id, withDeleted);
    messages.push(...page.items);
    for (const m of page.items) traces.push(await store.getTurnTraceByMessageId(m.id, withDeleted));
  }
  const pending = (await store.listPendingEmbeddings()).items.map((m) => m.id);
  return { conversations, messages, traces, pending };
}

describe("journal replay of the new operations", () => {
  it("a crash copy (journal only) reads back exactly what the live store holds", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "c1", userId: "u1", tenantId: "t1", createdAt: 1 });
    await store.storeConversation({ id: "c2", userId: "u2", tenantId: "t1", createdAt: 1 });
    await store.storeMessages([
      message("m1", "c1", 10),
      message("m2", "c1", 11, { role: "assistant" }),
      message("m3", "c1", 12),
      message("m4", "c2", 10, { userId: "u2" }),
    ]);
    await store.storeTurnTrace(trace("t2", "m2", "c1", 11));
    await store.storeSessionMessages("s1", [{ role: "user", content: "hi" }], {
      userId: "u1",
      tenantId: "t1",
    });
    await store.setEmbeddings([{ id: "m1", embedding: [1, 0], originalContent: "content of m1" }]);
    await store.softDeleteMessage("m3");
    await store.softDeleteConversation("c1");
    await store.restoreConversation("c1");
    await store.softDeleteMessage("m4");
    await store.deleteMessage("m2");
    await store.storeMessage(message("m5", "c2", 20, { userId: "u2" }));
    await store.softDeleteMessage("m5");
    await store.purgeDeleted({ before: Date.now() + 1, userId: "u2" });
    await store.deleteUserData("u9", { tenantId: "t1" });
    const live = await dump(store);
    const journal = readFileSync(`${path}.journal`, "utf8");
    for (const op of [
      "softDeleteConversation",
      "restoreConversation",
      "softDeleteMessage",
      "deleteMessage",
      "purgeDeleted",
      "setEmbeddings",
      "ensureConversation",
    ]) {
      expect(journal).toContain(`"${op}"`);
    }
    const copy = crashCopy(path);
    await store.close();

    const mine = live.messages.filter((m) => m.conversationId !== "s1");
    expect(mine.map((m) => [m.id, m.tenantId, m.deletedAt !== null])).toEqual([
      ["m1", "t1", false],
      ["m3", "t1", true],
    ]);
    expect(live.conversations.map((c) => c.id)).toEqual(["c1", "c2", "s1"]);
    const replayed = await JsonMessageStore.open({ path: copy });
    expect(await dump(replayed)).toEqual(live);
    await replayed.close();
    const compacted = await JsonMessageStore.open({ path: copy });
    expect(await dump(compacted)).toEqual(live);
    await compacted.close();
  });
});

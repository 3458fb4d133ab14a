import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { crashCopy, message, tempDir, trace } from "./helpers.js";

async function seed(store: JsonMessageStore): Promise<void> {
  await store.storeConversation({ id: "c1", userId: "u1", title: "first", createdAt: 10 });
  await store.storeMessages([
    message("m1", "c1", 100, { originalContent: "nul \u0000 inside", embedding: [1, -0.5, 0.25] }),
    message("m2", "c1", 100, { role: "assistant", metadata: { $set: { "a.b": 1 }, "x.y": [] } }),
  ]);
  await store.storeTurnTrace(trace("t1", "m2", "c1", 101));
}

describe("main file", () => {
  it("is a pretty-printed message-store document a person can read", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    await store.close();

    const text = readFileSync(path, "utf8");
    const doc = JSON.parse(text);
    expect(Object.keys(doc)).toEqual([
      "format",
      "version",
      "generation",
      "conversations",
      "messages",
      "turnTraces",
    ]);
    expect(doc.format).toBe("message-store");
    expect(doc.version).toBe(2);
    expect(doc.conversations).toEqual([
      {
        id: "c1",
        userId: "u1",
        tenantId: null,
        agentId: null,
        title: "first",
        description: null,
        status: "active",
        createdAt: 10,
        updatedAt: 10,
        deletedAt: null,
        tags: [],
        metadata: {},
        lastMessageAt: 100,
      },
    ]);
    // Sequence is the position in "messages": the order of first receipt.
    expect(doc.messages.map((m: { id: string }) => m.id)).toEqual(["m1", "m2"]);
    expect(doc.messages[1].metadata).toEqual({ $set: { "a.b": 1 }, "x.y": [] });
    expect(doc.turnTraces[0]).toMatchObject({ id: "t1", messageId: "m2", agentId: "agent-1" });
    // Two-space indentation, one key per line, the embedding kept on one line.
    expect(text).toContain('\n  "conversations": [\n    {\n      "id": "c1",\n');
    expect(text).toContain('\n      "embedding": [1,-0.5,0.25],\n');
    expect(text).toContain('"originalContent": "nul \\u0000 inside"');
    expect(text.endsWith("}\n")).toBe(true);
  });

  it("reads back every record exactly after a reopen", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    const before = {
      conversation: await store.getConversation("c1"),
      messages: await store.getMessagesByConversationId("c1"),
      trace: await store.getTurnTraceByMessageId("m2"),
    };
    await store.close();

    const again = await JsonMessageStore.open({ path });
    expect(await again.getConversation("c1")).toEqual(before.conversation);
    expect(await again.getMessagesByConversationId("c1")).toEqual(before.messages);
    expect(await again.getTurnTraceByMessageId("m2")).toEqual(before.trace);
    const m1 = await again.getMessage("m1");
    expect(m1?.embedding).toEqual([1, -0.5, 0.25]);
    expect(m1?.originalContent).toBe("nul \u0000 inside");
    await again.close();
  });

  it("is created on open, with missing directories", async () => {
    const path = join(tempDir(), "nested", "deeper", "db.json");
    const store = await JsonMessageStore.open({ path });
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({
      format: "message-store",
      conversations: [],
      messages: [],
      turnTraces: [],
    });
    await store.close();
  });

  it("keeps the main file's permission bits, and gives them to the journal", async () => {
    const { chmodSync } = await import("node:fs");
    const path = join(tempDir(), "db.json");
    await (await JsonMessageStore.open({ path })).close();
    chmodSync(path, 0o600);
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    expect(statSync(`${path}.journal`).mode & 0o777).toBe(0o600);
    await store.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("accepts a hand-written file without generation or lastMessageAt", async () => {
    const path = join(tempDir(), "db.json");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(
      path,
      JSON.stringify({
        format: "message-store",
        version: 1,
        conversations: [
          {
            id: "c1",
            userId: "u1",
            agentId: null,
            title: null,
            createdAt: 1,
            updatedAt: 1,
            tags: [],
            metadata: {},
          },
        ],
        messages: [
          {
            id: "m1",
            conversationId: "c1",
            userId: "u1",
            role: "user",
            originalContent: "hi",
            timestamp: 50,
          },
        ],
      }),
    );
    const store = await JsonMessageStore.open({ path });
    expect((await store.getConversation("c1"))?.lastActivityAt).toBe(50);
    expect((await store.getMessage("m1"))?.isFlagged).toBe(false); // defaults filled
    await store.close();
  });
});

describe("journal", () => {
  it("appends one line per committed operation, fsynced before the call resolves", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    await store.flagMessage("m1");
    const lines = readFileSync(`${path}.journal`, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.op)).toEqual([
      "putConversation",
      "putMessages",
      "putTurnTrace",
      "flagMessage",
    ]);
    expect(lines[3]).toEqual({ gen: lines[0].gen, op: "flagMessage", id: "m1", flagged: true });
    // A write that changes nothing, or fails, adds no line.
    await store.deleteConversation("nope");
    await expect(store.storeMessage(message("m9", "nope", 1))).rejects.toMatchObject({
      code: "INTEGRITY",
    });
    expect(readFileSync(`${path}.journal`, "utf8").trimEnd().split("\n")).toHaveLength(4);
    await store.close();
  });

  it("writes each line whole in UTF-8, long and multi-byte lines followed by shorter ones included", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "c1", userId: "u1" });
    await store.storeConversation({ id: "c2", userId: "u1" });
    const long = Array.from({ length: 300 }, (_, i) =>
      message(`long-${i}`, "c1", i, { originalContent: `é – 日本 😀 ${"x".repeat(i)}` }),
    );
    const stored = await store.storeMessages(long);
    await store.storeMessage(message("short", "c1", 1000, { originalContent: "ü" }));
    // The first write goes alone; two on different conversations that arrive during its
    // fdatasync share the next line, a group.
    const [, a, b] = await Promise.all([
      store.storeMessages([message("g0", "c1", 2000)]),
      store.storeMessages([message("g1", "c1", 2001, { originalContent: "ß".repeat(5000) })]),
      store.storeMessages([message("g2", "c2", 2000)]),
    ]);
    const text = readFileSync(`${path}.journal`, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const gen = lines[0].gen;
    expect(lines[2]).toEqual({ gen, op: "putMessages", messages: stored });
    expect(lines[3]).toEqual({ gen, op: "putMessages", messages: [lines[3].messages[0]] });
    expect(lines[3].messages[0].originalContent).toBe("ü");
    expect(lines[4].messages.map((m: { id: string }) => m.id)).toEqual(["g0"]);
    expect(lines[5]).toEqual({
      gen,
      op: "group",
      ops: [
        { op: "putMessages", messages: a },
        { op: "putMessages", messages: b },
      ],
    });
    expect(lines).toHaveLength(6);
    await store.close();
    const reopened = await JsonMessageStore.open({ path });
    expect((await reopened.getMessage("long-299"))?.originalContent).toBe(
      long[299]!.originalContent,
    );
    await reopened.close();
  });

  it("is replayed on open after a crash", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    await store.storeMessage(message("m3", "c1", 100)); // same timestamp: order kept by sequence
    await store.storeMessage(message("m1", "c1", 100, { originalContent: "edited" })); // keeps its place
    await store.flagMessage("m2");
    await store.storeConversation({ id: "c2", userId: "u1", createdAt: 5 });
    await store.storeMessage(message("x1", "c2", 7));
    await store.deleteConversation("c2");
    const expected = await store.getMessagesByConversationId("c1");
    const copy = crashCopy(path);
    await store.close();

    const replayed = await JsonMessageStore.open({ path: copy });
    expect(await replayed.getMessagesByConversationId("c1")).toEqual(expected);
    expect(expected.items.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
    expect((await replayed.getMessage("m1"))?.originalContent).toBe("edited");
    expect(await replayed.getConversation("c2")).toBeNull();
    expect(await replayed.getMessage("x1")).toBeNull();
    await replayed.close();
  });

  it("ignores a torn last line and cuts it off before appending", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    const copy = crashCopy(path);
    await store.close();
    const committed = statSync(`${copy}.journal`).size;
    const { appendFileSync } = await import("node:fs");
    appendFileSync(`${copy}.journal`, '{"gen":1,"op":"putMessages","messages":[{"id":"m');

    const reopened = await JsonMessageStore.open({ path: copy });
    expect(statSync(`${copy}.journal`).size).toBe(committed);
    expect((await reopened.getMessagesByConversationId("c1")).items).toHaveLength(2);
    await reopened.storeMessage(message("m3", "c1", 200));
    const lines = readFileSync(`${copy}.journal`, "utf8").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(JSON.parse(lines.at(-2)!).messages[0].id).toBe("m3");
    await reopened.close();
  });

  it("ignores an unparsable last line even when it ends with a newline", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    const copy = crashCopy(path);
    await store.close();
    const { appendFileSync } = await import("node:fs");
    appendFileSync(`${copy}.journal`, "\u0000\u0000\u0000\n");
    const reopened = await JsonMessageStore.open({ path: copy });
    expect(await reopened.getTurnTraceByMessageId("m2")).not.toBeNull();
    await reopened.close();
  });
});

describe("compaction", () => {
  it("folds the journal into the main file once it passes the threshold", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path, compact_threshold_bytes: 4096 });
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    let compactions = 0;
    let previous = 0;
    for (let i = 0; i < 60; i++) {
      await store.storeMessage(message(`m${i}`, "c1", i, { originalContent: "z".repeat(200) }));
      const size = statSync(`${path}.journal`).size;
      if (size < previous) compactions++;
      previous = size;
    }
    // Compaction runs in the background, so how many writes land during one depends on timing:
    // the threshold's exact bound is tested on FilePersistence (group-commit.test.ts).
    expect(compactions).toBeGreaterThan(0);
    const expected = await store.getMessagesByConversationId("c1");
    const copy = crashCopy(path);
    await store.close();
    const doc = JSON.parse(readFileSync(copy, "utf8"));
    expect(doc.generation).toBeGreaterThan(1);
    const reopened = await JsonMessageStore.open({ path: copy });
    expect(await reopened.getMessagesByConversationId("c1")).toEqual(expected);
    await reopened.close();
  });

  it("runs on close: the journal is gone and the main file holds everything", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await seed(store);
    const expected = await store.getMessagesByConversationId("c1");
    await store.close();
    expect(existsSync(`${path}.journal`)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
    expect(JSON.parse(readFileSync(path, "utf8")).messages).toHaveLength(2);
    const reopened = await JsonMessageStore.open({ path });
    expect(await reopened.getMessagesByConversationId("c1")).toEqual(expected);
    await reopened.close();
  });

  it("is crash-safe: a journal already folded into the main file is not applied twice", async () => {
    const path = join(tempDir(), "db.json");
    const store = await JsonMessageStore.open({ path });
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeMessages([message("a", "c1", 5), message("b", "c1", 5)]);
    await store.deleteConversation("c1");
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeMessages([message("b", "c1", 5), message("a", "c1", 5)]);
    await store.flagMessage("a");
    // Replaying these over the compacted file would move "x" back into c1: they must be skipped.
    await store.storeConversation({ id: "c2", userId: "u1", createdAt: 1 });
    await store.storeMessage(message("x", "c2", 9));
    await store.deleteConversation("c2");
    await store.storeConversation({ id: "c3", userId: "u1", createdAt: 1 });
    await store.storeMessage(message("x", "c3", 9));
    const expected = await store.getMessagesByConversationId("c1");
    // Crash after the rename but before the journal was emptied: new main file + old journal.
    const before = crashCopy(path);
    await store.driver.compact();
    const { copyFileSync, writeFileSync } = await import("node:fs");
    copyFileSync(path, before);
    writeFileSync(`${path}.tmp`, "{ half-written"); // a leftover temporary file is ignored
    await store.close();

    const reopened = await JsonMessageStore.open({ path: before });
    const page = await reopened.getMessagesByConversationId("c1");
    expect(page).toEqual(expected);
    expect(page.items.map((m) => m.id)).toEqual(["b", "a"]);
    expect((await reopened.getMessage("x"))?.conversationId).toBe("c3");
    expect(readFileSync(`${before}.journal`, "utf8")).toBe(""); // obsolete lines dropped
    await reopened.close();
  });
});

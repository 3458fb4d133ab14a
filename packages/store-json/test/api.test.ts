import { realpathSync } from "node:fs";
import { join } from "node:path";
import {
  ConfigurationError,
  IntegrityError,
  MessageStore,
  NotFoundError,
  StorageError,
  StoreClosedError,
  type TurnTrace,
} from "@message-store/core";
import { summarizeTraces } from "@message-store/core/adapter";
import { describe, expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { message, tempDir, trace } from "./helpers.js";

/** The public API end to end, on a file and in memory. */
describe.each([
  ["file", () => join(tempDir(), "db.json")],
  ["memory", () => ":memory:"],
])("JsonMessageStore (%s)", (_name, makePath) => {
  const open = () => JsonMessageStore.open({ path: makePath() });

  it("orders transcripts by (timestamp, receipt) and pages them with stable cursors", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeMessages([message("call", "c1", 50), message("result", "c1", 50)]);
    await store.storeMessage(message("early", "c1", 10));
    await store.storeMessage(message("late", "c1", 90));
    const first = await store.getMessagesByConversationId("c1", { limit: 2 });
    expect(first.items.map((m) => m.id)).toEqual(["early", "call"]);
    await store.storeMessage(message("inserted-before", "c1", 20)); // before the cursor
    await store.storeMessage(message("same-time", "c1", 50)); // ties go after earlier receipts
    await store.storeMessage(message("early", "c1", 95)); // upsert moves it, keeps its sequence
    const rest = await store.getMessagesByConversationId("c1", { cursor: first.nextCursor });
    expect(rest.items.map((m) => m.id)).toEqual(["result", "same-time", "late", "early"]);
    expect(rest.nextCursor).toBeNull();
    await store.close();
  });

  it("keeps parallel writes in call order", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => store.storeMessage(message(`p${i}`, "c1", 7))),
    );
    const page = await store.getMessagesByConversationId("c1");
    expect(page.items.map((m) => m.id)).toEqual(Array.from({ length: 40 }, (_, i) => `p${i}`));
    await store.close();
  });

  it("serves the immediate context from the end, skipping flagged messages", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    for (let i = 0; i < 10; i++) await store.storeMessage(message(`m${i}`, "c1", i));
    await store.flagMessage("m8");
    await store.flagMessage("m5");
    await store.flagMessage("m5", false);
    expect((await store.getImmediateContext("c1", 3)).map((m) => m.id)).toEqual(["m6", "m7", "m9"]);
    expect(await store.getImmediateContext("nope", 3)).toEqual([]);
    await expect(store.flagMessage("missing")).rejects.toBeInstanceOf(NotFoundError);
    await store.close();
  });

  it("lists conversations by activity and by id; lastMessageAt only moves forward", async () => {
    const store = await open();
    await store.storeConversation({ id: "b", userId: "u1", createdAt: 100 });
    await store.storeConversation({ id: "a", userId: "u1", createdAt: 50 });
    await store.storeConversation({ id: "z", userId: "u2", createdAt: 10 });
    await store.storeMessage(message("m1", "a", 500));
    await store.storeMessage(message("m1", "a", 20)); // moved back in time: activity stays 500
    await store.storeConversation({ id: "a", userId: "u1", createdAt: 50, title: "renamed" });
    const byActivity = await store.getConversationsByUserId("u1");
    expect(byActivity.items.map((c) => [c.id, c.lastActivityAt])).toEqual([
      ["a", 500],
      ["b", 100],
    ]);
    const page1 = await store.listConversations({ limit: 2 });
    expect(page1.items.map((c) => c.id)).toEqual(["a", "b"]);
    const page2 = await store.listConversations({ cursor: page1.nextCursor });
    expect(page2.items.map((c) => c.id)).toEqual(["z"]);
    expect((await store.listConversations({ userId: "u2" })).items.map((c) => c.id)).toEqual(["z"]);
    await store.close();
  });

  it("enforces integrity and writes nothing of a failed batch", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeConversation({ id: "c2", userId: "u1", createdAt: 1 });
    await store.storeMessage(message("m1", "c1", 1));
    await expect(
      store.storeMessages([message("ok", "c1", 2), message("bad", "missing", 2)]),
    ).rejects.toBeInstanceOf(IntegrityError);
    expect(await store.getMessage("ok")).toBeNull();
    await expect(store.storeMessage(message("m1", "c2", 1))).rejects.toBeInstanceOf(IntegrityError);
    await expect(store.storeTurnTrace(trace("t1", "m1", "c2", 1))).rejects.toBeInstanceOf(
      IntegrityError,
    );
    await expect(store.storeTurnTrace(trace("t1", "nope", "c1", 1))).rejects.toBeInstanceOf(
      IntegrityError,
    );
    await store.storeTurnTrace(trace("t1", "m1", "c1", 1));
    await expect(store.storeTurnTrace(trace("t2", "m1", "c1", 1))).rejects.toThrow(
      /already has turn trace/,
    );
    await store.close();
  });

  it("cascades deletes and erases a user's data", async () => {
    const store = await open();
    for (const [c, user] of [
      ["c1", "u1"],
      ["c2", "u1"],
      ["c3", "u2"],
    ] as const) {
      await store.storeConversation({ id: c, userId: user, createdAt: 1 });
      await store.storeMessages([
        message(`${c}-a`, c, 1, { userId: user }),
        message(`${c}-b`, c, 2, { userId: user }),
      ]);
      await store.storeTurnTrace(trace(`${c}-t`, `${c}-b`, c, 3, { agentId: "agent" }));
    }
    expect(await store.deleteConversation("c1")).toBe(true);
    expect(await store.deleteConversation("c1")).toBe(false);
    expect(await store.getMessage("c1-a")).toBeNull();
    expect(await store.getTurnTraceByMessageId("c1-b")).toBeNull();
    expect(await store.deleteUserData("u1")).toEqual({
      conversations: 1,
      messages: 2,
      turnTraces: 1,
    });
    expect(await store.deleteUserData("u1")).toEqual({
      conversations: 0,
      messages: 0,
      turnTraces: 0,
    });
    expect((await store.getTurnTracesByAgentId("agent")).items.map((t) => t.id)).toEqual(["c3-t"]);
    expect(await store.getMessage("c3-a")).not.toBeNull();
    await store.close();
  });

  it("queries traces newest first with filters, and summarises usage like core", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeConversation({ id: "c2", userId: "u1", createdAt: 1 });
    const traces: TurnTrace[] = [];
    for (let i = 0; i < 30; i++) {
      const c = i % 3 === 0 ? "c2" : "c1";
      await store.storeMessage(message(`m${i}`, c, i));
      traces.push(
        await store.storeTurnTrace(
          trace(`t${String(i).padStart(2, "0")}`, `m${i}`, c, 3_600_000 * (i % 5) + (i % 2), {
            agentId: i % 2 ? "odd" : "even",
            llmCalls: [
              {
                purpose: "agent_loop",
                model: i % 4 ? "small" : "big",
                promptTokens: i,
                completionTokens: 1,
                latencyMs: 3,
                costUsd: 0.1 * i,
              },
            ],
            errors: i % 7 === 0 ? [{ kind: "boom" }] : [],
          }),
        ),
      );
    }
    const expected = traces
      .filter((t) => t.agentId === "odd" && t.timestamp >= 3_600_000 && t.timestamp < 4 * 3_600_000)
      .sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1))
      .map((t) => t.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await store.getTurnTracesByAgentId("odd", {
        since: 3_600_000,
        until: 4 * 3_600_000,
        limit: 2,
        cursor,
      });
      seen.push(...page.items.map((t) => t.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    const filtered = await store.queryTurnTraces({ conversationId: "c2", model: "big" });
    expect(filtered.items.map((t) => t.id)).toEqual(
      traces
        .filter((t) => t.conversationId === "c2" && t.llmCalls[0]!.model === "big")
        .sort((a, b) => b.timestamp - a.timestamp || (a.id < b.id ? 1 : -1))
        .map((t) => t.id),
    );
    for (const q of [
      { since: 0, until: 10 * 3_600_000, bucket: "hour" as const },
      { since: 3_600_000, until: 3 * 3_600_000, bucket: "hour" as const, agentId: "even" },
      { since: 0, until: 86_400_000, bucket: "day" as const },
    ]) {
      expect(await store.summarizeUsage(q)).toEqual(summarizeTraces(traces, q));
    }
    await store.close();
  });

  it("searches embeddings by cosine similarity", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await store.storeConversation({ id: "c2", userId: "u2", createdAt: 1 });
    await store.storeMessages([
      message("same", "c1", 1, { embedding: [1, 0] }),
      message("tie", "c1", 2, { embedding: [2, 0] }),
      message("ortho", "c1", 3, { embedding: [0, 1] }),
      message("flagged", "c1", 4, { embedding: [1, 0], isFlagged: true }),
      message("other-length", "c1", 5, { embedding: [1, 0, 0] }),
      message("none", "c1", 6),
      message("other-user", "c2", 7, { userId: "u2", embedding: [1, 0.1] }),
    ]);
    const hits = await store.searchMessages({ embedding: [1, 0], limit: 3 });
    expect(hits.map((h) => [h.message.id, h.score])).toEqual([
      ["same", 1],
      ["tie", 1],
      ["other-user", 0.99503719],
    ]);
    const own = await store.searchMessages({ embedding: [1, 0], userId: "u1" });
    expect(own.map((h) => h.message.id)).toEqual(["same", "tie", "ortho"]);
    const inC2 = await store.searchMessages({ embedding: [1, 0], conversationId: "c2" });
    expect(inC2.map((h) => h.message.id)).toEqual(["other-user"]);
    await store.close();
  });

  it("hands out copies: mutating inputs or results does not change the store", async () => {
    const store = await open();
    const input = { id: "c1", userId: "u1", createdAt: 1, metadata: { nested: { n: 1 } } };
    const stored = await store.storeConversation(input);
    input.metadata.nested.n = 2;
    stored.metadata.nested = { n: 3 };
    const read = await store.getConversation("c1");
    expect(read?.metadata).toEqual({ nested: { n: 1 } });
    read!.tags.push("x");
    expect((await store.getConversation("c1"))?.tags).toEqual([]);
    await store.close();
  });

  it("rejects calls after close; close is idempotent", async () => {
    const store = await open();
    await store.storeConversation({ id: "c1", userId: "u1", createdAt: 1 });
    await Promise.all([store.close(), store.close()]);
    await expect(store.getConversation("c1")).rejects.toBeInstanceOf(StoreClosedError);
  });
});

describe("configuration", () => {
  it("validates with the package's JsonConfigSchema and throws ConfigurationError", async () => {
    await expect(JsonMessageStore.open({ path: "" })).rejects.toBeInstanceOf(ConfigurationError);
    await expect(
      JsonMessageStore.open({ storage: "json", path: 5 } as unknown as { path: string }),
    ).rejects.toThrow(/^\[message-store\] \[json\] invalid json config: path: /);
    await expect(
      JsonMessageStore.open({ path: ":memory:", compact_threshold_bytes: 0 }),
    ).rejects.toThrow(/compact_threshold_bytes/);
    await expect(
      JsonMessageStore.open({ path: ":memory:", typo: 1 } as unknown as { path: string }),
    ).rejects.toThrow(/typo/);
    await expect(
      JsonMessageStore.open({ storage: "postgres", path: ":memory:" } as unknown as {
        path: string;
      }),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });

  it("registers on import: MessageStore.initialize opens a JsonMessageStore", async () => {
    const dir = tempDir();
    const store = await MessageStore.initialize({
      storage: "json",
      path: join(dir, "db.json"),
      compact_threshold_bytes: 1024,
    });
    expect(store).toBeInstanceOf(JsonMessageStore);
    expect(store.adapterName).toBe("json");
    expect(store.capabilities.semanticSearch).toBe(true);
    expect((store as JsonMessageStore).path).toBe(join(realpathSync(dir), "db.json"));
    await store.close();
  });
});

describe("errors", () => {
  it("names the adapter once on errors thrown inside and outside the hooks", async () => {
    const store = await JsonMessageStore.open({ path: join(tempDir(), "db.json") });
    const integrity = (await store
      .storeMessage(message("m1", "missing", 1))
      .catch((e: unknown) => e)) as IntegrityError;
    expect(integrity).toBeInstanceOf(IntegrityError);
    expect(integrity.adapter).toBe("json");
    expect(integrity.message).toBe(
      '[message-store] [json] message "m1": conversation "missing" does not exist',
    );
    await store.close();
    await expect(store.compact()).rejects.toThrow(
      /^\[message-store\] \[json\] the store is closed$/,
    );
    await expect(store.compact()).rejects.toBeInstanceOf(StoreClosedError);
  });

  it("maps a file-system error no call site wrapped to a StorageError naming call, file and code", async () => {
    const store = await JsonMessageStore.open({ path: ":memory:" });
    // biome-ignore lint/complexity/useLiteralKeys: mapError is protected; brackets reach it
    const mapError = (e: unknown) => store["mapError"](e);
    const fsError = Object.assign(new Error("ENOSPC: no space left on device, write"), {
      code: "ENOSPC",
      syscall: "write",
      path: "/data/db.json.journal",
    });
    const mapped = mapError(fsError);
    expect(mapped).toBeInstanceOf(StorageError);
    expect(mapped.message).toBe(
      "[message-store] [json] could not write /data/db.json.journal: ENOSPC (disk full)",
    );
    expect(mapped.cause).toBe(fsError);
    const other = mapError(new TypeError("boom"));
    expect(other).toBeInstanceOf(StorageError);
    expect(other.message).toContain("unexpected error: boom");
    await store.close();
  });
});

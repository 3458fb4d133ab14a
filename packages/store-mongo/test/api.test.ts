import { isMessageStoreError, type TurnTrace, type TurnTraceQueryInput } from "@message-store/core";
import { matchesTraceFilter, summarizeTraces } from "@message-store/core/adapter";
import { describe, expect, it } from "vitest";
import { MongoMessageStore } from "../src/index.js";
import { conv, msg, openFixture, T0, traceOf } from "./helpers.js";

const HOUR = 3_600_000;

async function code(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  return isMessageStoreError(error) ? error.code : error;
}

describe("conversations and messages", () => {
  it("fill defaults, list by activity, and keep activity across conversation upserts", async () => {
    const { store } = await openFixture();
    expect(await store.getConversation("nope")).toBeNull();
    const a = await store.storeConversation({ id: "a", userId: "u", createdAt: T0 });
    expect(a).toEqual({
      id: "a",
      userId: "u",
      tenantId: null,
      agentId: null,
      title: null,
      description: null,
      status: "active",
      createdAt: T0,
      updatedAt: T0,
      deletedAt: null,
      tags: [],
      metadata: {},
      lastActivityAt: T0,
    });
    await store.storeConversation({ id: "b", userId: "u", createdAt: T0 + 5 });
    expect((await store.getConversationsByUserId("u")).items.map((c) => c.id)).toEqual(["b", "a"]);
    await store.storeMessage(msg("m1", "a", 10, { userId: "u" }));
    expect((await store.getConversationsByUserId("u")).items.map((c) => c.id)).toEqual(["a", "b"]);
    const renamed = await store.storeConversation({
      id: "a",
      userId: "u",
      createdAt: T0,
      title: "t",
    });
    expect(renamed.lastActivityAt).toBe(T0 + 10);
    expect(await store.getConversation("a")).toEqual(renamed);
    const newer = await store.storeConversation({
      id: "a",
      userId: "u",
      createdAt: T0,
      updatedAt: T0 + 99,
    });
    expect(newer.lastActivityAt).toBe(T0 + 99);
    const older = await store.storeConversation({
      id: "a",
      userId: "u",
      createdAt: T0,
      updatedAt: T0 + 1,
    });
    expect(older.lastActivityAt).toBe(T0 + 10);
    expect(await store.getConversation("a")).toEqual(older);
    const page1 = await store.getConversationsByUserId("u", { limit: 1 });
    const page2 = await store.getConversationsByUserId("u", { limit: 1, cursor: page1.nextCursor });
    expect([...page1.items, ...page2.items].map((c) => c.id)).toEqual(["a", "b"]);
    expect(page2.nextCursor).toBeNull();
    expect((await store.listConversations()).items.map((c) => c.id)).toEqual(["a", "b"]);
  });

  it("upserts replace the whole message but keep its place; flags and the context window", async () => {
    const { store } = await openFixture();
    await store.storeConversation(conv("c"));
    await store.storeMessages([
      msg("m1", "c", 1, { intent: "greet", metadata: { k: 1 } }),
      msg("m2", "c", 1),
      msg("m3", "c", 2),
    ]);
    const replaced = await store.storeMessage(msg("m1", "c", 1));
    expect(replaced.intent).toBeNull();
    expect(await store.getMessage("m1")).toEqual(replaced);
    const ids = async () => (await store.getMessagesByConversationId("c")).items.map((m) => m.id);
    expect(await ids()).toEqual(["m1", "m2", "m3"]);
    await store.storeMessage(msg("m1", "c", 3));
    expect(await ids()).toEqual(["m2", "m3", "m1"]);
    expect((await store.getConversation("c"))?.lastActivityAt).toBe(T0 + 3);
    await store.storeMessage(msg("m1", "c", 0));
    expect((await store.getConversation("c"))?.lastActivityAt).toBe(T0 + 3);
    expect((await store.flagMessage("m3")).isFlagged).toBe(true);
    expect((await store.getImmediateContext("c", 2)).map((m) => m.id)).toEqual(["m1", "m2"]);
    expect(await store.getImmediateContext("c", 0)).toEqual([]);
    expect(await store.getImmediateContext("missing", 3)).toEqual([]);
    expect((await store.flagMessage("m3", false)).isFlagged).toBe(false);
    expect(await code(store.flagMessage("nope"))).toBe("NOT_FOUND");
    expect(await ids()).toEqual(["m1", "m2", "m3"]);
  });

  it("persists across close and reopen; closed stores reject", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c"));
    await f.store.storeMessage(msg("m", "c", 1, { embedding: [0.25, -1, 1e-9] }));
    await f.store.close();
    expect(await code(f.store.getConversation("c"))).toBe("STORE_CLOSED");
    await using again = await MongoMessageStore.open({
      storage: "mongodb",
      uri: f.uri,
      db: f.dbName,
    });
    expect((await again.getMessage("m"))?.embedding).toEqual([0.25, -1, 1e-9]);
    expect((await again.getConversation("c"))?.lastActivityAt).toBe(T0 + 1);
  });

  it("semantic search is not offered", async () => {
    const { store } = await openFixture();
    expect(store.capabilities.semanticSearch).toBe(false);
    expect(await code(store.searchMessages({ embedding: [1, 0] }))).toBe("UNSUPPORTED");
  });
});

describe("traces, analytics and erasure", () => {
  async function seed() {
    const f = await openFixture();
    const traces: TurnTrace[] = [];
    const models = ["gpt-a", "gpt-b", "claude"];
    for (let c = 0; c < 3; c++) {
      const userId = `user-${c % 2}`;
      await f.store.storeConversation(conv(`c${c}`, { userId }));
      for (let i = 0; i < 12; i++) {
        const id = `c${c}-m${i}`;
        await f.store.storeMessage(msg(id, `c${c}`, i, { role: "assistant", userId }));
        const trace = await f.store.storeTurnTrace(
          traceOf(`t-${c}-${i}`, id, `c${c}`, {
            agentId: `agent-${i % 2}`,
            userId: i % 5 === 0 ? null : userId,
            timestamp: T0 + (i * 7 + c) * (HOUR / 3),
            totalTokens: 10 * i,
            totalLatencyMs: 0.1 * i + c / 3,
            llmCalls: [
              {
                purpose: "agent_loop",
                model: models[(i + c) % 3]!,
                promptTokens: i,
                completionTokens: c,
                latencyMs: 1,
                costUsd: i % 4 === 0 ? null : 0.1 + i / 3,
              },
            ],
            toolTraces: i % 3 === 0 ? [{ toolName: "sql" }] : [],
            errors: i % 4 === 1 ? [{ message: "boom" }] : [],
          }),
        );
        traces.push(trace);
      }
    }
    return { f, traces };
  }

  it("queryTurnTraces matches core's matchesTraceFilter for every filter, in order, with paging", async () => {
    const { f, traces } = await seed();
    const queries: TurnTraceQueryInput[] = [
      {},
      { agentId: "agent-1" },
      { conversationId: "c2" },
      { userId: "user-1" },
      { since: T0 + 10 * HOUR, until: T0 + 20 * HOUR },
      { minTotalTokens: 50 },
      { toolName: "sql" },
      { model: "claude" },
      { hasErrors: true },
      { hasErrors: false, agentId: "agent-0", since: T0 + HOUR },
    ];
    const order = (a: TurnTrace, b: TurnTrace) =>
      b.timestamp - a.timestamp || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
    for (const q of queries) {
      const { limit: _l, cursor: _c, ...filter } = q;
      const expected = traces.filter((t) => matchesTraceFilter(t, filter)).sort(order);
      expect((await f.store.queryTurnTraces(q)).items, JSON.stringify(q)).toEqual(expected);
      const paged: TurnTrace[] = [];
      let cursor: string | null = null;
      do {
        const page = await f.store.queryTurnTraces({ ...q, limit: 4, cursor });
        paged.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(paged).toEqual(expected);
    }
    const agent = await f.store.getTurnTracesByAgentId("agent-0", {
      since: T0,
      until: T0 + 5 * HOUR,
    });
    expect(agent.items).toEqual(
      traces.filter((t) => t.agentId === "agent-0" && t.timestamp < T0 + 5 * HOUR).sort(order),
    );
  });

  it("summarizeUsage equals core's summarizeTraces exactly", async () => {
    const { f, traces } = await seed();
    const queries = [
      { since: 0, until: T0 * 2, bucket: "hour" as const },
      { since: T0 + HOUR, until: T0 + 30 * HOUR, bucket: "hour" as const, agentId: "agent-1" },
      { since: 0, until: T0 * 2, bucket: "day" as const, userId: "user-1" },
      { since: T0 * 2, until: T0 * 3, bucket: "day" as const },
    ];
    for (const q of queries) {
      const expected = summarizeTraces(traces, q);
      expect(await f.store.summarizeUsage(q), JSON.stringify(q)).toEqual(expected);
    }
    expect((await f.store.summarizeUsage(queries[0]!)).length).toBeGreaterThan(5);
  });

  it("deleteUserData removes a user's conversations, messages and traces and counts them", async () => {
    const { f } = await seed();
    expect(await f.store.deleteUserData("user-0")).toEqual({
      conversations: 2,
      messages: 24,
      turnTraces: 24,
    });
    expect(await f.store.getConversation("c0")).toBeNull();
    expect(await f.store.getMessage("c2-m1")).toBeNull();
    expect(await f.store.getTurnTraceByMessageId("c2-m1")).toBeNull();
    expect((await f.store.getMessagesByConversationId("c1")).items).toHaveLength(12);
    expect((await f.store.queryTurnTraces({})).items).toHaveLength(12);
    expect(await f.store.deleteUserData("user-0")).toEqual({
      conversations: 0,
      messages: 0,
      turnTraces: 0,
    });
    expect(await f.store.deleteConversation("c1")).toBe(true);
    expect(await f.db.collection("turn_traces").countDocuments()).toBe(0);
    expect(await f.db.collection("messages").countDocuments()).toBe(0);
  });
});

describe("stored data that fails the model", () => {
  it("is a CorruptDataError naming the document, and the data is left untouched", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c"));
    await f.store.storeMessage(msg("m", "c", 1, { role: "assistant" }));
    await f.store.storeTurnTrace(traceOf("t", "m", "c"));
    const messages = f.db.collection("messages");
    await messages.updateOne({ _id: "m" as never }, { $set: { role: "robot" } });
    for (const read of [
      () => f.store.getMessage("m"),
      () => f.store.getMessagesByConversationId("c"),
      () => f.store.getImmediateContext("c", 1),
    ]) {
      const error = await read().catch((e: unknown) => e);
      expect(isMessageStoreError(error) && error.code).toBe("CORRUPT_DATA");
      expect((error as { location: string }).location).toBe("messages/m");
    }
    expect((await messages.findOne({ _id: "m" as never }))?.role).toBe("robot");
    await messages.updateOne({ _id: "m" as never }, { $set: { role: "assistant", sequence: "x" } });
    expect(await code(f.store.getMessage("m"))).toBe("CORRUPT_DATA");
    await f.db
      .collection("turn_traces")
      .updateOne({ _id: "t" as never }, { $unset: { agentId: "" } });
    const error = await f.store.getTurnTraceByMessageId("m").catch((e: unknown) => e);
    expect((error as { location?: string }).location).toBe("turn_traces/t");
    expect((error as Error).message).toMatch(/agentId/);
  });
});

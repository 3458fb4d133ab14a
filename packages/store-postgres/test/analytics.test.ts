import { CorruptDataError, IntegrityError, type TurnTrace } from "@message-store/core";
import { summarizeTraces } from "@message-store/core/adapter";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

const db = useDatabase("ms_pg_analytics");
let store: PostgresMessageStore;

beforeAll(async () => {
  store = await openStore(db.url());
});
afterAll(async () => {
  await store?.close();
});
beforeEach(async () => {
  await withClient(db.url(), (c) => c.query("TRUNCATE conversations CASCADE"));
});

describe("turn traces", () => {
  beforeEach(async () => {
    await store.storeConversation(conversation("c1"));
    await store.storeConversation(conversation("c2"));
    await store.storeMessages([
      message("m1", "c1", 1),
      message("m2", "c1", 2),
      message("m3", "c2", 3),
    ]);
  });

  it("enforces the integrity rules and allows re-upserting the same id", async () => {
    await expect(store.storeTurnTrace(trace("t0", "nope", "c1"))).rejects.toBeInstanceOf(
      IntegrityError,
    );
    await expect(store.storeTurnTrace(trace("t0", "m3", "c1"))).rejects.toBeInstanceOf(
      IntegrityError,
    );
    const first = await store.storeTurnTrace(trace("t1", "m1", "c1"));
    expect(await store.getTurnTraceByMessageId("m1")).toEqual(first);
    await expect(store.storeTurnTrace(trace("t2", "m1", "c1"))).rejects.toBeInstanceOf(
      IntegrityError,
    );
    const changed = await store.storeTurnTrace(trace("t1", "m1", "c1", { totalTokens: 7 }));
    expect(await store.getTurnTraceByMessageId("m1")).toEqual(changed);
    // A trace never moves to another message.
    await expect(store.storeTurnTrace(trace("t1", "m2", "c1"))).rejects.toBeInstanceOf(
      IntegrityError,
    );
    expect(await store.getTurnTraceByMessageId("m2")).toBeNull();
    expect(await store.getTurnTraceByMessageId("zzz")).toBeNull();
  });

  it("filters, pages newest first and summarises exactly like core", async () => {
    const traces: TurnTrace[] = [];
    const ids = ["m1", "m2", "m3"];
    for (const [i, messageId] of ids.entries()) {
      traces.push(
        await store.storeTurnTrace(
          trace(`t${i}`, messageId, messageId === "m3" ? "c2" : "c1", {
            timestamp: 3_600_000 * i + (i === 2 ? -3_600_001 : 0),
            userId: i === 0 ? null : "u1",
            agentId: i === 1 ? "agent-2" : "agent-1",
            totalTokens: 10 * (i + 1),
            totalLatencyMs: 0.1 * (i + 1),
            llmCalls: [
              {
                purpose: "agent_loop",
                model: i ? "big" : "small",
                promptTokens: 3 + i,
                completionTokens: 4,
                latencyMs: 1,
                costUsd: i ? 0.1 + i / 7 : null,
              },
            ],
            toolTraces: i === 2 ? [{ toolName: "web_search", exitCode: 1 }] : [],
            errors: i === 1 ? [{ $kind: "timeout" }] : [],
          }),
        ),
      );
    }
    const all = await store.queryTurnTraces({});
    expect(all.items.map((t) => t.id)).toEqual(["t1", "t2", "t0"]);
    const byTool = await store.queryTurnTraces({ toolName: "web_search" });
    expect(byTool.items.map((t) => t.id)).toEqual(["t2"]);
    const byModel = await store.queryTurnTraces({ model: "big", hasErrors: false });
    expect(byModel.items.map((t) => t.id)).toEqual(["t2"]);
    const byUser = await store.queryTurnTraces({ userId: "u1", minTotalTokens: 20 });
    expect(byUser.items.map((t) => t.id)).toEqual(["t1", "t2"]);
    const agent = await store.getTurnTracesByAgentId("agent-1", { since: 0, until: 3_600_000 });
    expect(agent.items.map((t) => t.id)).toEqual(["t2", "t0"]);
    const p1 = await store.queryTurnTraces({ limit: 1 });
    const p2 = await store.queryTurnTraces({ limit: 5, cursor: p1.nextCursor });
    expect([...p1.items, ...p2.items].map((t) => t.id)).toEqual(["t1", "t2", "t0"]);
    for (const q of [
      { since: 0, until: 10 ** 8, bucket: "hour" as const },
      { since: 0, until: 10 ** 8, bucket: "day" as const, agentId: "agent-1" },
      { since: 0, until: 10 ** 8, bucket: "hour" as const, userId: "u1" },
    ]) {
      expect(await store.summarizeUsage(q)).toEqual(summarizeTraces(traces, q));
    }
  });
});

describe("usage and corruption", () => {
  it("summarizeUsage equals core's summarizeTraces on many random traces", async () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // A trace's userId is its conversation's (or null, filled): one conversation per user.
    await store.storeConversation(conversation("c-u0", "u0"));
    await store.storeConversation(conversation("c-u1", "u1"));
    const n = 300;
    await store.storeMessages(
      Array.from({ length: n }, (_, i) =>
        message(`m${i}`, `c-u${i % 2}`, i, { userId: `u${i % 2}` }),
      ),
    );
    const traces: TurnTrace[] = [];
    for (let i = 0; i < n; i++) {
      traces.push(
        await store.storeTurnTrace(
          trace(`t${i}`, `m${i}`, `c-u${i % 2}`, {
            agentId: `agent-${i % 3}`,
            userId: i % 4 ? `u${i % 2}` : null,
            timestamp: Math.floor(random() * 5 * 86_400_000),
            totalTokens: Math.floor(random() * 10_000),
            totalLatencyMs: random() * 3_000,
            llmCalls: Array.from({ length: i % 4 }, () => ({
              purpose: "agent_loop" as const,
              model: "m",
              promptTokens: Math.floor(random() * 5_000),
              completionTokens: Math.floor(random() * 500),
              latencyMs: random() * 100,
              costUsd: random() < 0.2 ? null : random() / 100,
            })),
            errors: random() < 0.3 ? [{ message: "boom" }] : [],
          }),
        ),
      );
    }
    for (const q of [
      { since: 0, until: 5 * 86_400_000, bucket: "hour" as const },
      { since: 3_600_000, until: 3 * 86_400_000, bucket: "day" as const, agentId: "agent-1" },
      { since: 0, until: 10 ** 10, bucket: "day" as const, userId: "u1" },
    ]) {
      const expected = summarizeTraces(traces, q);
      expect(expected.length).toBeGreaterThan(0);
      expect(await store.summarizeUsage(q)).toEqual(expected);
    }
  });

  it("reports a row edited into an invalid shape as CorruptDataError naming it", async () => {
    await store.storeConversation(conversation("c1"));
    await store.storeMessage(message("m1", "c1", 1));
    await withClient(db.url(), (c) =>
      c.query(`UPDATE messages SET metadata = '[1]', role = 'robot' WHERE id = 'm1'`),
    );
    const error = await store.getMessage("m1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptDataError);
    expect((error as CorruptDataError).location).toBe('public.messages id="m1"');
    await expect(store.getImmediateContext("c1", 5)).rejects.toBeInstanceOf(CorruptDataError);
    const raw = await withClient(db.url(), (c) => c.query(`SELECT role FROM messages`));
    expect(raw.rows).toEqual([{ role: "robot" }]);
  });

  it("rolls back a large batch whose last message is invalid", async () => {
    await store.storeConversation(conversation("c1"));
    const batch = Array.from({ length: 20_000 }, (_, i) => message(`big${i}`, "c1", i));
    batch.push(message("last", "missing", 1));
    await expect(store.storeMessages(batch)).rejects.toBeInstanceOf(IntegrityError);
    expect((await store.getMessagesByConversationId("c1", { limit: 1 })).items).toEqual([]);
    expect((await store.getConversation("c1"))!.lastActivityAt).toBe(1000);
  });
});

describe("erasure and search", () => {
  it("deletes one user's data with exact counts", async () => {
    await store.storeConversation(conversation("c1", "u1"));
    await store.storeConversation(conversation("c2", "u1"));
    await store.storeConversation(conversation("c3", "u2"));
    await store.storeMessages([
      message("m1", "c1", 1),
      message("m2", "c2", 1),
      message("m3", "c3", 1, { userId: "u2" }),
    ]);
    await store.storeTurnTrace(trace("t1", "m1", "c1"));
    await store.storeTurnTrace(trace("t3", "m3", "c3"));
    expect(await store.deleteUserData("u1")).toEqual({
      conversations: 2,
      messages: 2,
      turnTraces: 1,
    });
    expect(await store.deleteUserData("u1")).toEqual({
      conversations: 0,
      messages: 0,
      turnTraces: 0,
    });
    expect(await store.getMessage("m3")).not.toBeNull();
  });

  it("ranks by cosine similarity like core, skipping flagged and other lengths", async () => {
    expect(store.capabilities.semanticSearch).toBe(true);
    await store.storeConversation(conversation("c1", "u1"));
    await store.storeConversation(conversation("c2", "u2"));
    await store.storeMessages([
      message("a", "c1", 1, { embedding: [1, 0, 0] }),
      message("b", "c1", 2, { embedding: [0.8, 0.6, 0] }),
      message("c", "c1", 3, { embedding: [0, 0, 0] }),
      message("d", "c2", 4, { embedding: [1, 0, 0], userId: "u2" }),
      message("e", "c1", 5, { embedding: [1, 0] }),
      message("f", "c1", 6, { embedding: [1, 0, 0], isFlagged: true }),
      message("g", "c1", 7, { embedding: [1e-200, 1, 0] }),
    ]);
    const hits = await store.searchMessages({ embedding: [1, 0.5, 0], limit: 10 });
    expect(hits.map((h) => [h.message.id, h.score])).toEqual([
      ["b", 0.98386991],
      ["a", 0.894427191],
      ["d", 0.894427191],
      ["g", 0.447213595],
      ["c", 0],
    ]);
    const mine = await store.searchMessages({ embedding: [1, 0, 0], userId: "u2" });
    expect(mine.map((h) => h.message.id)).toEqual(["d"]);
    const top = await store.searchMessages({
      embedding: [1, 0, 0],
      conversationId: "c1",
      limit: 1,
    });
    expect(top.map((h) => h.message.id)).toEqual(["a"]);
    const extreme = await store.searchMessages({ embedding: [1e-100, 0, 0], limit: 2 });
    expect(extreme.map((h) => h.message.id)).toEqual(["a", "d"]);
  });
});

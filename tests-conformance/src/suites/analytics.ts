import type { MessageStoreApi, TurnTraceQueryInput, UsageBucket } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { collect } from "../dump.js";
import { conversation, DAY, HOUR, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const call = (
  model: string,
  promptTokens = 1,
  completionTokens = 1,
  costUsd: number | null = null,
) =>
  ({
    purpose: "agent_loop",
    model,
    promptTokens,
    completionTokens,
    latencyMs: 1,
    costUsd,
  }) as const;
const tool = (toolName: string) => ({ toolName });
const err = [{ type: "boom" }];

/** Six traces over three conversations of two users (a trace's user is its conversation's owner). */
async function seedQuery(store: MessageStoreApi) {
  const convA = conversation({ id: "convA", userId: "u1" });
  const convB = conversation({ id: "convB", userId: "u2" });
  const convC = conversation({ id: "convC", userId: "u1" });
  await store.storeConversation(convA);
  await store.storeConversation(convB);
  await store.storeConversation(convC);
  const rows: [
    string,
    string,
    typeof convA,
    string | null,
    number,
    number,
    string[],
    string[],
    boolean,
  ][] = [
    ["q1", "A", convA, "u1", 10, 100, ["search"], ["gpt"], false],
    ["q2", "A", convA, "u1", 20, 50, ["calc", "search"], ["claude"], true],
    ["q3", "B", convB, "u2", 20, 500, [], ["gpt", "claude"], false],
    ["q4", "B", convA, "u1", 30, 0, ["calc"], [], true],
    ["q5", "A", convB, "u2", 40, 1000, ["search"], ["gpt"], false],
    ["q6", "C", convC, "u1", 10, 99, [], [], false],
  ];
  for (const [id, agentId, c, userId, ts, totalTokens, tools, models, errors] of rows) {
    const m = await store.storeMessage(message(c, { id: `msg-${id}`, role: "assistant" }));
    await store.storeTurnTrace(
      trace(m, {
        id,
        agentId,
        userId,
        timestamp: T0 + ts,
        totalTokens,
        toolTraces: tools.map(tool),
        llmCalls: models.map((x) => call(x)),
        errors: errors ? err : [],
      }),
    );
  }
}

/** Filter → expected ids, newest first (ties by id descending). */
const QUERIES: [TurnTraceQueryInput, string[]][] = [
  [{}, ["q5", "q4", "q3", "q2", "q6", "q1"]],
  [{ agentId: "A" }, ["q5", "q2", "q1"]],
  [{ agentId: "B" }, ["q4", "q3"]],
  [{ conversationId: "convA" }, ["q4", "q2", "q1"]],
  [{ userId: "u1" }, ["q4", "q2", "q6", "q1"]],
  [{ userId: "u2" }, ["q5", "q3"]],
  [{ since: T0 + 20 }, ["q5", "q4", "q3", "q2"]],
  [{ until: T0 + 20 }, ["q6", "q1"]],
  [{ minTotalTokens: 100 }, ["q5", "q3", "q1"]],
  [{ minTotalTokens: 0 }, ["q5", "q4", "q3", "q2", "q6", "q1"]],
  [{ toolName: "search" }, ["q5", "q2", "q1"]],
  [{ toolName: "calc" }, ["q4", "q2"]],
  [{ toolName: "Search" }, []],
  [{ model: "gpt" }, ["q5", "q3", "q1"]],
  [{ model: "claude" }, ["q3", "q2"]],
  [{ hasErrors: true }, ["q4", "q2"]],
  [{ hasErrors: false }, ["q5", "q3", "q6", "q1"]],
  [{ agentId: "A", hasErrors: false }, ["q5", "q1"]],
  [{ conversationId: "convA", toolName: "calc" }, ["q4", "q2"]],
  [{ userId: "u1", since: T0 + 10, until: T0 + 20, model: "gpt" }, ["q1"]],
  [{ agentId: "A", minTotalTokens: 60, toolName: "search" }, ["q5", "q1"]],
  [{ agentId: "B", model: "claude", hasErrors: false, conversationId: "convB" }, ["q3"]],
  [{ agentId: "C", hasErrors: true }, []],
];

const D = Date.UTC(2025, 2, 10);

async function seedUsage(store: MessageStoreApi) {
  const owned = {
    u1: conversation({ id: "usage-conv", userId: "u1" }),
    u2: conversation({ id: "usage-conv-2", userId: "u2" }),
  };
  await store.storeConversation(owned.u1);
  await store.storeConversation(owned.u2);
  const rows: [
    string,
    string,
    string,
    number,
    number,
    number,
    ReturnType<typeof call>[],
    boolean,
  ][] = [
    ["s8", "agent-a", "u1", D, 1, 0, [], false],
    ["s1", "agent-a", "u1", D + 0.5 * HOUR, 100, 1000, [call("m", 60, 40, 0.1)], false],
    [
      "s2",
      "agent-a",
      "u1",
      D + 0.75 * HOUR,
      50,
      2000.5,
      [call("m", 20, 10, 0.2), call("m", 15, 5, null)],
      true,
    ],
    ["s3", "agent-a", "u2", D + 2 * HOUR, 10, 3, [call("m", 7, 3, 1e-9)], false],
    ["s4", "agent-a", "u2", D + DAY + 5 * HOUR, 7, 1 / 3, [], true],
    ["s5", "agent-b", "u1", D + 0.6 * HOUR, 1000, 10, [call("m", 1000, 0, 1.5)], false],
    ["s6", "agent-a", "u1", D - 1, 9999, 1, [call("m", 1, 1, 100)], true],
    ["s7", "agent-a", "u1", D + 2 * DAY, 9999, 1, [call("m", 1, 1, 100)], true],
  ];
  for (const [
    id,
    agentId,
    userId,
    timestamp,
    totalTokens,
    totalLatencyMs,
    llmCalls,
    errors,
  ] of rows) {
    const c = owned[userId as keyof typeof owned];
    const m = await store.storeMessage(message(c, { id: `msg-${id}`, role: "assistant" }));
    await store.storeTurnTrace(
      trace(m, {
        id,
        agentId,
        userId,
        timestamp,
        totalTokens,
        totalLatencyMs,
        llmCalls,
        errors: errors ? err : [],
      }),
    );
  }
}

const bucket = (
  bucketStart: number,
  turns: number,
  totalTokens: number,
  promptTokens: number,
  completionTokens: number,
  costUsd: number,
  avgLatencyMs: number,
  maxLatencyMs: number,
  turnsWithErrors: number,
): UsageBucket => ({
  bucketStart,
  turns,
  totalTokens,
  promptTokens,
  completionTokens,
  costUsd,
  avgLatencyMs,
  maxLatencyMs,
  turnsWithErrors,
});

const late = (start: number) => bucket(start, 1, 7, 0, 0, 0, 0.333, 1 / 3, 1);

/** queryTurnTraces (every filter, alone and combined, with paging) and summarizeUsage. */
export function analyticsSuite(h: Harness): void {
  describe("analytics", () => {
    describe("queryTurnTraces", () => {
      it("applies every filter alone and combined, newest first", async () => {
        await seedQuery(h.store);
        for (const [query, expected] of QUERIES) {
          const page = await h.store.queryTurnTraces(query);
          expect(
            page.items.map((t) => t.id),
            JSON.stringify(query),
          ).toEqual(expected);
          expect(page.nextCursor).toBeNull();
        }
      });

      it("pages through filtered results without repeats or gaps", async () => {
        await seedQuery(h.store);
        for (const [query, expected] of QUERIES) {
          for (const limit of [1, 2]) {
            const items = await collect((o) => h.store.queryTurnTraces({ ...query, ...o }), limit);
            expect(
              items.map((t) => t.id),
              `${JSON.stringify(query)} limit ${limit}`,
            ).toEqual(expected);
          }
        }
      });

      it("returns full records equal to getTurnTraceByMessageId", async () => {
        await seedQuery(h.store);
        for (const t of (await h.store.queryTurnTraces()).items) {
          expect(await h.store.getTurnTraceByMessageId(t.messageId)).toEqual(t);
        }
      });
    });

    describe("summarizeUsage", () => {
      const q = { since: D, until: D + 2 * DAY };

      it("hour buckets: exact sums, rounded cost and latency, empty hours omitted", async () => {
        await seedUsage(h.store);
        expect(await h.store.summarizeUsage({ ...q, bucket: "hour", agentId: "agent-a" })).toEqual([
          bucket(D, 3, 151, 95, 55, 0.3, 1000.167, 2000.5, 1),
          bucket(D + 2 * HOUR, 1, 10, 7, 3, 1e-9, 3, 3, 0),
          late(D + DAY + 5 * HOUR),
        ]);
        expect(await h.store.summarizeUsage({ ...q, bucket: "hour", agentId: "agent-b" })).toEqual([
          bucket(D, 1, 1000, 1000, 0, 1.5, 10, 10, 0),
        ]);
      });

      it("day buckets, with and without the agent filter", async () => {
        await seedUsage(h.store);
        expect(await h.store.summarizeUsage({ ...q, bucket: "day", agentId: "agent-a" })).toEqual([
          bucket(D, 4, 161, 102, 58, 0.300000001, 750.875, 2000.5, 1),
          late(D + DAY),
        ]);
        expect(await h.store.summarizeUsage({ ...q, bucket: "day" })).toEqual([
          bucket(D, 5, 1161, 1102, 58, 1.800000001, 602.7, 2000.5, 1),
          late(D + DAY),
        ]);
      });

      it("filters by the trace's userId", async () => {
        await seedUsage(h.store);
        expect(await h.store.summarizeUsage({ ...q, bucket: "day", userId: "u1" })).toEqual([
          bucket(D, 4, 1151, 1095, 55, 1.8, 752.625, 2000.5, 1),
        ]);
        expect(
          await h.store.summarizeUsage({ ...q, bucket: "day", userId: "u1", agentId: "agent-b" }),
        ).toEqual([bucket(D, 1, 1000, 1000, 0, 1.5, 10, 10, 0)]);
      });

      it("since is inclusive and until exclusive", async () => {
        await seedUsage(h.store);
        expect(
          await h.store.summarizeUsage({
            since: D + 0.5 * HOUR,
            until: D + 2 * HOUR,
            bucket: "hour",
            agentId: "agent-a",
          }),
        ).toEqual([bucket(D, 2, 150, 95, 55, 0.3, 1500.25, 2000.5, 1)]);
        expect(
          await h.store.summarizeUsage({
            since: D - 1,
            until: D,
            bucket: "day",
            agentId: "agent-a",
          }),
        ).toEqual([bucket(D - DAY, 1, 9999, 1, 1, 100, 1, 1, 1)]);
      });

      it("an empty window, or one without traces, gives []", async () => {
        await seedUsage(h.store);
        expect(await h.store.summarizeUsage({ since: D, until: D, bucket: "hour" })).toEqual([]);
        expect(
          await h.store.summarizeUsage({ since: D + 3 * DAY, until: D + 4 * DAY, bucket: "day" }),
        ).toEqual([]);
        expect(await h.store.summarizeUsage({ ...q, bucket: "day", agentId: "nobody" })).toEqual(
          [],
        );
        expect(await h.store.summarizeUsage({ since: D + DAY, until: D, bucket: "day" })).toEqual(
          [],
        );
      });
    });
  });
}

import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { allAgentTraces, allTraces } from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { conversation, fullTrace, message, T0, trace } from "../fixtures.js";
import type { Harness } from "../harness.js";

const TRACE_KEYS = [
  "agentId",
  "conversationId",
  "deletedAt",
  "errors",
  "flowEvents",
  "id",
  "llmCalls",
  "messageId",
  "metadata",
  "reasoningSteps",
  "slotEvents",
  "taskEmissions",
  "tenantId",
  "timestamp",
  "toolTraces",
  "totalLatencyMs",
  "totalTokens",
  "userId",
].sort();

/** `count` assistant messages in one new conversation. */
async function assistantMessages(store: MessageStoreApi, count: number) {
  const c = conversation();
  await store.storeConversation(c);
  return store.storeMessages(
    Array.from({ length: count }, (_, i) => message(c, { role: "assistant", timestamp: T0 + i })),
  );
}

/** Turn traces: upsert, defaults, read-back by message and by agent. */
export function tracesSuite(h: Harness): void {
  describe("turn traces", () => {
    it("fills every default and resolves to exactly what every read returns", async () => {
      const [m] = await assistantMessages(h.store, 1);
      const input = trace(m!);
      const stored = await h.store.storeTurnTrace(input);
      const expected = {
        ...input,
        userId: m!.userId,
        tenantId: null,
        llmCalls: [],
        taskEmissions: [],
        toolTraces: [],
        slotEvents: [],
        flowEvents: [],
        errors: [],
        reasoningSteps: [],
        metadata: {},
        deletedAt: null,
      };
      expect(stored).toEqual(expected);
      const read = await h.store.getTurnTraceByMessageId(m!.id);
      expect(read).toEqual(expected);
      expect(Object.keys(read!).sort()).toEqual(TRACE_KEYS);
      expect(await allAgentTraces(h.store, input.agentId)).toEqual([expected]);
      expect(await allTraces(h.store)).toEqual([expected]);
    });

    it("fills the defaults of nested LLM calls, tool traces and script attempts", async () => {
      const [m] = await assistantMessages(h.store, 1);
      const call = {
        purpose: "agent_loop" as const,
        model: "m",
        promptTokens: 1,
        completionTokens: 2,
        latencyMs: 3,
      };
      const stored = await h.store.storeTurnTrace(
        trace(m!, {
          llmCalls: [call],
          toolTraces: [{ toolName: "t", generationAttempts: [{ attempt: 1, script: "s" }] }],
        }),
      );
      expect(stored.llmCalls).toEqual([{ ...call, costUsd: null, startedAt: null, error: null }]);
      expect(stored.toolTraces).toEqual([
        {
          toolName: "t",
          input: null,
          generationAttempts: [{ attempt: 1, script: "s", error: null, llmCall: null }],
          finalScript: null,
          finalData: null,
          stdout: null,
          traceback: null,
          outputBytes: 0,
          peakMemoryBytes: null,
          durationMs: null,
          exitCode: null,
        },
      ]);
      expect(await h.store.getTurnTraceByMessageId(m!.id)).toEqual(stored);
    });

    it("round-trips every field, including finalData of every JSON kind", async () => {
      const [m] = await assistantMessages(h.store, 1);
      const input = fullTrace(m!);
      const expected = { tenantId: null, deletedAt: null, ...input };
      expect(await h.store.storeTurnTrace(input)).toEqual(expected);
      expect(await h.store.getTurnTraceByMessageId(m!.id)).toEqual(expected);
      expect(await allAgentTraces(h.store, input.agentId)).toEqual([expected]);
      const kinds = (await h.store.getTurnTraceByMessageId(m!.id))!.toolTraces.map(
        (t) => t.finalData,
      );
      expect(kinds).toEqual([
        { rows: [{ id: 1 }, { id: 2 }], total: 2 },
        "text",
        0.30000000000000004,
        false,
        null,
        [1, "two", [3], { four: 4 }, null],
      ]);
    });

    it("getTurnTraceByMessageId resolves to null for an unknown or untraced message", async () => {
      const [m] = await assistantMessages(h.store, 1);
      expect(await h.store.getTurnTraceByMessageId(m!.id)).toBeNull();
      expect(await h.store.getTurnTraceByMessageId("no-such-message")).toBeNull();
    });

    it("an upsert with the same id replaces every field", async () => {
      const [m] = await assistantMessages(h.store, 1);
      const full = fullTrace(m!);
      await h.store.storeTurnTrace(full);
      const replaced = await h.store.storeTurnTrace(
        trace(m!, {
          id: full.id,
          agentId: "agent-2",
          timestamp: T0 + 99,
          totalTokens: 1,
          totalLatencyMs: 2,
        }),
      );
      expect(await h.store.getTurnTraceByMessageId(m!.id)).toEqual(replaced);
      expect(replaced).toMatchObject({
        agentId: "agent-2",
        userId: m!.userId,
        llmCalls: [],
        errors: [],
        metadata: {},
      });
      expect(await allAgentTraces(h.store, full.agentId)).toEqual([]);
      expect(await allAgentTraces(h.store, "agent-2")).toEqual([replaced]);
      expect(await allTraces(h.store)).toEqual([replaced]);
    });

    it("an upsert with the same id cannot move the trace to another message (IntegrityError)", async () => {
      const [m1, m2] = await assistantMessages(h.store, 2);
      const t = await h.store.storeTurnTrace(trace(m1!, { id: "movable" }));
      await expectRejection(() => h.store.storeTurnTrace({ ...t, messageId: m2!.id }), "INTEGRITY");
      expect(await h.store.getTurnTraceByMessageId(m1!.id)).toEqual(t);
      expect(await h.store.getTurnTraceByMessageId(m2!.id)).toBeNull();
      expect(await allTraces(h.store)).toEqual([t]);
      const t2 = await h.store.storeTurnTrace(trace(m2!, { id: "new-for-m2" }));
      expect(await h.store.getTurnTraceByMessageId(m2!.id)).toEqual(t2);
    });

    it("getTurnTracesByAgentId: only that agent, newest first, since inclusive, until exclusive", async () => {
      const ms = await assistantMessages(h.store, 6);
      const stamps = [T0 - 1, T0, T0 + 10, T0 + 20, T0 + 30];
      for (const [i, ts] of stamps.entries()) {
        await h.store.storeTurnTrace(trace(ms[i]!, { id: `t-${i}`, agentId: "A", timestamp: ts }));
      }
      await h.store.storeTurnTrace(
        trace(ms[5]!, { id: "other", agentId: "B", timestamp: T0 + 10 }),
      );
      const list = async (o: { since?: number; until?: number; limit?: number }) =>
        (await h.store.getTurnTracesByAgentId("A", o)).items.map((t) => t.id);
      expect(await list({})).toEqual(["t-4", "t-3", "t-2", "t-1", "t-0"]);
      expect(await list({ since: T0 })).toEqual(["t-4", "t-3", "t-2", "t-1"]);
      expect(await list({ until: T0 + 30 })).toEqual(["t-3", "t-2", "t-1", "t-0"]);
      expect(await list({ since: T0, until: T0 + 20 })).toEqual(["t-2", "t-1"]);
      expect(await list({ since: T0 + 10, until: T0 + 10 })).toEqual([]);
      expect(await list({ since: T0 + 31 })).toEqual([]);
      const paged = await allAgentTraces(h.store, "A", 1);
      expect(paged.map((t) => t.id)).toEqual(["t-4", "t-3", "t-2", "t-1", "t-0"]);
      const window = await (async () => {
        const out: string[] = [];
        let cursor: string | null = null;
        do {
          const page = await h.store.getTurnTracesByAgentId("A", {
            since: T0,
            until: T0 + 30,
            limit: 1,
            cursor,
          });
          out.push(...page.items.map((t) => t.id));
          cursor = page.nextCursor;
        } while (cursor !== null);
        return out;
      })();
      expect(window).toEqual(["t-3", "t-2", "t-1"]);
    });

    it("getTurnTracesByAgentId of an unknown agent is an empty page", async () => {
      const [m] = await assistantMessages(h.store, 1);
      await h.store.storeTurnTrace(trace(m!, { agentId: "known" }));
      expect(await h.store.getTurnTracesByAgentId("unknown")).toEqual({
        items: [],
        nextCursor: null,
      });
      expect(await h.store.getTurnTracesByAgentId("KNOWN")).toEqual({
        items: [],
        nextCursor: null,
      });
    });

    it("records are copies: mutating inputs or results afterwards changes nothing stored", async () => {
      const [m] = await assistantMessages(h.store, 1);
      const input = fullTrace(m!);
      const stored = await h.store.storeTurnTrace(input);
      const snapshot = structuredClone(stored);
      (input.llmCalls as any)[0].model = "mutated";
      (input.toolTraces as any)[0].finalData.total = -1;
      (input.errors as any)[0].detail.code = -1;
      stored.metadata.release = "mutated";
      stored.slotEvents.push({ mutated: true });
      const read = await h.store.getTurnTraceByMessageId(m!.id);
      expect(read).toEqual(snapshot);
      read!.llmCalls[0]!.model = "mutated";
      (read!.toolTraces[0]!.finalData as any).rows.length = 0;
      const [listed] = (await h.store.getTurnTracesByAgentId(snapshot.agentId)).items;
      (listed!.toolTraces[0]!.generationAttempts as any[]).length = 0;
      expect(await allTraces(h.store)).toEqual([snapshot]);
    });
  });
}

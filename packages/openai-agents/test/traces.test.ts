import { type MessageStoreApi, newId } from "@message-store/core";
import { BRIDGE_BACKENDS, useBridgeStore } from "@message-store/test-servers/bridge";
import { OpenAIResponsesCompactionSession, RunState, run } from "@openai/agents";
import { assistantMessage, functionCall } from "@openai/agents/testing";
import { describe, expect, it } from "vitest";
import { MessageStoreSession } from "../src/index.js";
import { compactingClient } from "./support/compaction-scenarios.js";
import { shopAgent, step } from "./support/run-scenarios.js";

/** The usage analytics of one agent id, summed over all buckets. */
async function usageOf(store: MessageStoreApi, agentId: string) {
  const buckets = await store.summarizeUsage({
    agentId,
    since: 0,
    until: Date.now() + 60_000,
    bucket: "day",
  });
  return buckets.reduce(
    (sum, b) => ({
      turns: sum.turns + b.turns,
      totalTokens: sum.totalTokens + b.totalTokens,
      promptTokens: sum.promptTokens + b.promptTokens,
      completionTokens: sum.completionTokens + b.completionTokens,
    }),
    { turns: 0, totalTokens: 0, promptTokens: 0, completionTokens: 0 },
  );
}

/** The approval script: a lookup, a refund that waits for approval, then the answer. */
function approvalScript() {
  return [
    step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
    step([functionCall("refund", { id: "7" }, { callId: "call-2" })], [30, 4], 2),
    step([assistantMessage("Refunded.")], [40, 3], 3),
  ];
}

describe.each(BRIDGE_BACKENDS)("turn traces of MessageStoreSession on %s", (backend) => {
  const ctx = useBridgeStore(backend);
  const session = (agentId: string) =>
    new MessageStoreSession({ store: ctx.store, userId: "u1", agentId, model: "gpt-test" });

  it("prices each model request from the session's pricing map, and refuses an invalid map", async () => {
    const agentId = newId();
    const priced = new MessageStoreSession({
      store: ctx.store,
      userId: "u1",
      agentId,
      model: "gpt-4.1-2025-04-14",
      pricing: { "gpt-4.1": { input: 2e-6, output: 8e-6 } },
    });
    const { agent } = shopAgent([step([assistantMessage("Done.")], [1000, 500], 1)]);
    await run(agent, "Hello", { session: priced });
    const traces = (await ctx.store.queryTurnTraces({ conversationId: priced.sessionId })).items;
    expect(traces.flatMap((t) => t.llmCalls.map((c) => c.costUsd))).toEqual([0.006]);

    const unpriced = session(newId());
    await run(shopAgent([step([assistantMessage("Done.")], [10, 5], 1)]).agent, "Hi", {
      session: unpriced,
    });
    const plain = (await ctx.store.queryTurnTraces({ conversationId: unpriced.sessionId })).items;
    expect(plain.flatMap((t) => t.llmCalls.map((c) => c.costUsd))).toEqual([null]);

    expect(
      () =>
        new MessageStoreSession({
          store: ctx.store,
          userId: "u1",
          pricing: { "gpt-4.1": { input: -1, output: 0 } },
        }),
    ).toThrow(expect.objectContaining({ code: "VALIDATION" }));
  });

  it.each([
    ["the live RunState", false],
    ["a serialized RunState", true],
  ])(
    "a run resumed from %s after an approval traces each model request once",
    async (_, serialized) => {
      const agentId = newId();
      const ours = session(agentId);
      const { agent } = shopAgent(approvalScript());
      const first = await run(agent, "Refund order 7", { session: ours });
      if (serialized) {
        const state = await RunState.fromString(agent, first.state.toString());
        for (const approval of state.getInterruptions()) state.approve(approval);
        await run(agent, state, { session: ours });
      } else {
        for (const approval of first.interruptions) first.state.approve(approval);
        await run(agent, first.state, { session: ours });
      }

      expect(await usageOf(ctx.store, agentId)).toEqual({
        turns: 2, // the interrupted write and the answer
        totalTokens: 28 + 34 + 43,
        promptTokens: 90,
        completionTokens: 15,
      });
      const traces = (await ctx.store.queryTurnTraces({ conversationId: ours.sessionId })).items;
      const messages = (await ctx.store.getMessagesByConversationId(ours.sessionId)).items;
      const on = (id: string) => messages.find((m) => m.id === id)!;
      expect(
        traces
          .map((t) => [
            on(t.messageId).toolCalls[0]?.toolName ?? on(t.messageId).originalContent,
            t.llmCalls.length,
          ])
          .sort(),
      ).toEqual([
        ["Refunded.", 1],
        ["refund", 2],
      ]);
    },
  );

  it("an output guardrail trip keeps the tool call and its output, with the trace of the requests made", async () => {
    const agentId = newId();
    const ours = session(agentId);
    const { agent } = shopAgent(
      [
        step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
        step([assistantMessage("The SECRET is 42.")], [40, 6], 2),
      ],
      {
        outputGuardrails: [
          {
            name: "no secrets",
            execute: async ({ agentOutput }) => ({
              tripwireTriggered: String(agentOutput).includes("SECRET"),
              outputInfo: null,
            }),
          },
        ],
      },
    );
    await expect(run(agent, "Where is order 7?", { session: ours })).rejects.toThrow(/guardrail/i);
    const stored = (await ctx.store.getMessagesByConversationId(ours.sessionId)).items;
    expect(
      stored.map((m) => [m.role, m.toolCallId ?? m.toolCalls[0]?.toolCallId ?? m.originalContent]),
    ).toEqual([
      ["user", "Where is order 7?"],
      ["assistant", "call-1"],
      ["tool", "call-1"],
    ]);
    expect(await usageOf(ctx.store, agentId)).toMatchObject({ turns: 1, totalTokens: 28 + 46 });
  });

  it("a compacted session keeps its conversation, messages and turn traces: summarizeUsage is unchanged", async () => {
    const agentId = newId();
    const ours = session(agentId);
    const { agent } = shopAgent([
      step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
      step([assistantMessage("Shipped.")], [40, 6], 2),
      step([assistantMessage("You're welcome.")], [50, 3], 3),
      step(
        [
          { type: "compaction", encrypted_content: "summary-by-model" },
          assistantMessage("Anything else?"),
        ],
        [70, 9],
        4,
      ),
    ]);
    await run(agent, "Where is order 7?", { session: ours });
    await run(agent, "Thanks", { session: ours });
    const before = await usageOf(ctx.store, agentId);
    expect(before).toEqual({
      turns: 2,
      totalTokens: 28 + 46 + 53,
      promptTokens: 110,
      completionTokens: 17,
    });
    const traced = (await ctx.store.queryTurnTraces({ conversationId: ours.sessionId })).items;

    // Compaction by the SDK's compaction session (which clears and rewrites the session).
    const { client } = compactingClient();
    const compacting = new OpenAIResponsesCompactionSession({
      client: client as never,
      underlyingSession: ours,
      model: "gpt-4.1",
      compactionMode: "input",
    });
    await compacting.runCompaction({ force: true });
    expect(await ours.getItems()).toEqual([
      {
        type: "message",
        role: "user",
        content: [{ type: "input_text", text: "Where is order 7?" }],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: "Thanks" }] },
      { type: "compaction", encrypted_content: "summary-1" },
    ]);
    expect(await usageOf(ctx.store, agentId)).toEqual(before);
    expect(await ctx.store.getConversation(ours.sessionId)).toMatchObject({ agentId });
    for (const trace of traced) {
      expect(await ctx.store.getTurnTraceByMessageId(trace.messageId)).toEqual(trace);
    }

    // Compaction by the runner, from a compaction item in a model response.
    await run(agent, "Compact and go on", { session: ours });
    expect(await ours.getItems()).toEqual([
      { type: "compaction", encrypted_content: "summary-by-model" },
      {
        type: "message",
        role: "assistant",
        status: "completed",
        content: [{ type: "output_text", text: "Anything else?" }],
      },
    ]);
    expect(await usageOf(ctx.store, agentId)).toEqual({
      turns: 3,
      totalTokens: before.totalTokens + 79,
      promptTokens: before.promptTokens + 70,
      completionTokens: before.completionTokens + 9,
    });
    const all = (await ctx.store.getMessagesByConversationId(ours.sessionId)).items;
    const hidden = all.filter((m) => m.isFlagged).map((m) => m.metadata["openai-agents"]);
    // The SDK's compaction session clears and rewrites; the runner's compaction replaces.
    expect(hidden.map((m) => (m as { hidden: string }).hidden)).toEqual([
      ...Array(6).fill("cleared"),
      ...Array(2).fill("compacted"),
    ]);
  });
});

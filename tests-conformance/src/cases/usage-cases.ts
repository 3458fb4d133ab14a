import type { MessageStoreApi } from "@message-store/core";
import { conversation, DAY, HOUR, llmCall, message, T0, trace } from "../fixtures.js";
import { expectRule } from "../rule-check.js";
import type { ContractCase } from "./contract-case.js";

const WINDOW = { since: T0, until: T0 + DAY, bucket: "day" } as const;

/** One traced turn per (agent, user) pair, each with a distinct token count. */
async function seedPairs(store: MessageStoreApi) {
  const pairs = [
    ["ua-A", "ua-X", 1],
    ["ua-A", "ua-Y", 10],
    ["ua-B", "ua-X", 100],
    ["ua-B", "ua-Y", 1000],
  ] as const;
  for (const [agentId, userId, tokens] of pairs) {
    const c = await store.storeConversation(conversation({ id: `${agentId}-${userId}`, userId }));
    const m = await store.storeMessage(message(c, { id: `${c.id}-m`, role: "assistant" }));
    await store.storeTurnTrace(
      trace(m, { id: `${c.id}-t`, agentId, userId, totalTokens: tokens, timestamp: T0 + HOUR }),
    );
  }
}

const BOTH_FILTERS = "summarizeUsage applies every given filter together: agentId AND userId";

/** Violation 4 of issue #13: summarizeUsage ignored one of agentId/userId when both were given. */
export const usageAgentAndUser: ContractCase = {
  id: "usage-agent-and-user",
  rule: BOTH_FILTERS,
  title: "summarizeUsage({ agentId, userId }) counts only the turns of that agent for that user",
  async run({ store }) {
    await seedPairs(store);
    const tokens = async (filter: { agentId?: string; userId?: string }) =>
      (await store.summarizeUsage({ ...WINDOW, ...filter })).map((b) => ({
        turns: b.turns,
        totalTokens: b.totalTokens,
      }));
    const one = (totalTokens: number) => [{ turns: 1, totalTokens }];
    expectRule(
      BOTH_FILTERS,
      'summarizeUsage({ agentId: "ua-A", userId: "ua-X" })',
      await tokens({ agentId: "ua-A", userId: "ua-X" }),
      one(1),
    );
    expectRule(
      BOTH_FILTERS,
      'summarizeUsage({ agentId: "ua-B", userId: "ua-Y" })',
      await tokens({ agentId: "ua-B", userId: "ua-Y" }),
      one(1000),
    );
    expectRule(
      BOTH_FILTERS,
      'summarizeUsage({ agentId: "ua-A", userId: "ua-Y" })',
      await tokens({ agentId: "ua-A", userId: "ua-Y" }),
      one(10),
    );
    expectRule(
      BOTH_FILTERS,
      'summarizeUsage({ agentId: "ua-A" })',
      await tokens({ agentId: "ua-A" }),
      [{ turns: 2, totalTokens: 11 }],
    );
    expectRule(
      BOTH_FILTERS,
      'summarizeUsage({ userId: "ua-Y" })',
      await tokens({ userId: "ua-Y" }),
      [{ turns: 2, totalTokens: 1010 }],
    );
    expectRule(
      BOTH_FILTERS,
      'summarizeUsage({ agentId: "ua-A", userId: "nobody" })',
      await tokens({ agentId: "ua-A", userId: "nobody" }),
      [],
    );
    expectRule(
      BOTH_FILTERS,
      'forUser("ua-X").summarizeUsage({ agentId: "ua-B" })',
      (await store.forUser("ua-X").summarizeUsage({ ...WINDOW, agentId: "ua-B" })).map(
        (b) => b.totalTokens,
      ),
      [100],
    );
  },
};

const LLM_CALLS_ONLY =
  "the model filter and the token/cost sums count TurnTrace.llmCalls only, never toolTraces[].generationAttempts[].llmCall";

/** Settles an open meaning of issue #13: model calls nested in tool traces are not counted. */
export const nestedModelCalls: ContractCase = {
  id: "nested-model-calls",
  rule: LLM_CALLS_ONLY,
  title: "model calls nested in tool traces are neither matched by the model filter nor summed",
  async run({ store }) {
    const c = await store.storeConversation(conversation({ id: "nm-conv", userId: "nm-user" }));
    const m = await store.storeMessage(message(c, { id: "nm-m", role: "assistant" }));
    const nested = llmCall({
      model: "nested-model",
      promptTokens: 1000,
      completionTokens: 2000,
      costUsd: 5,
    });
    await store.storeTurnTrace(
      trace(m, {
        id: "nm-t",
        timestamp: T0 + HOUR,
        llmCalls: [
          llmCall({ model: "top-model", promptTokens: 3, completionTokens: 4, costUsd: 0.25 }),
        ],
        toolTraces: [
          {
            toolName: "python",
            generationAttempts: [{ attempt: 1, script: "x", llmCall: nested }],
          },
        ],
      }),
    );
    const ids = async (model: string) =>
      (await store.queryTurnTraces({ model })).items.map((t) => t.id);
    expectRule(
      LLM_CALLS_ONLY,
      'queryTurnTraces({ model: "top-model" }) ids',
      await ids("top-model"),
      ["nm-t"],
    );
    expectRule(
      LLM_CALLS_ONLY,
      'queryTurnTraces({ model: "nested-model" }) ids',
      await ids("nested-model"),
      [],
    );
    const [bucket] = await store.summarizeUsage(WINDOW);
    expectRule(
      LLM_CALLS_ONLY,
      "summarizeUsage(day)[0]",
      {
        promptTokens: bucket?.promptTokens,
        completionTokens: bucket?.completionTokens,
        costUsd: bucket?.costUsd,
      },
      { promptTokens: 3, completionTokens: 4, costUsd: 0.25 },
    );
  },
};

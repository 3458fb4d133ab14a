import type { Observations } from "@message-store/test-servers/bridge";
import {
  Agent,
  type ModelResponse,
  RunState,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from "@openai/agents";
import {
  assistantMessage,
  functionCall,
  ScriptedModel,
  type ScriptedModelInput,
} from "@openai/agents/testing";
import { z } from "zod";
import type { Scenario } from "./differential.js";

setTracingDisabled(true); // no exporter, no network

/** One scripted model response with its usage. */
export function step(
  output: ModelResponse["output"],
  usage: [input: number, output: number],
  n: number,
): ScriptedModelInput {
  return {
    output,
    usage: new Usage({
      requests: 1,
      inputTokens: usage[0],
      outputTokens: usage[1],
      totalTokens: usage[0] + usage[1],
    }),
    responseId: `resp-${n}`,
  };
}

/** Tools of the scenarios: a lookup, and a refund that needs approval. Calls are counted. */
export function shopTools() {
  const executed: string[] = [];
  const lookup = tool({
    name: "lookup",
    description: "Look up an order",
    parameters: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      executed.push(`lookup ${id}`);
      return JSON.stringify({ id, status: "shipped" });
    },
  });
  const refund = tool({
    name: "refund",
    description: "Refund an order",
    parameters: z.object({ id: z.string() }),
    needsApproval: true,
    execute: async ({ id }) => {
      executed.push(`refund ${id}`);
      return `refunded ${id}`;
    },
  });
  return { lookup, refund, executed };
}

/** An agent on a scripted model, with the shop tools (and optional guardrails). */
export function shopAgent(
  script: ScriptedModelInput[],
  options: Partial<ConstructorParameters<typeof Agent>[0]> = {},
) {
  const model = new ScriptedModel(script);
  const tools = shopTools();
  const agent = new Agent({
    name: "shop",
    instructions: "Be brief.",
    model,
    tools: [tools.lookup, tools.refund],
    ...options,
  });
  return { agent, model, executed: tools.executed };
}

/** What the model was sent, call by call. */
function inputs(model: ScriptedModel): unknown[] {
  return model.calls.map((c) => c.request.input);
}

async function turn(
  seen: Observations,
  label: string,
  action: () => Promise<{ finalOutput?: unknown; interruptions?: unknown[] }>,
) {
  try {
    const result = await action();
    seen.record(`${label}: output`, result.finalOutput ?? null);
    seen.record(`${label}: interruptions`, result.interruptions?.length ?? 0);
  } catch (error) {
    seen.record(`${label}: threw`, (error as object).constructor.name);
  }
}

const noSecrets = {
  name: "no secrets",
  execute: async ({ agentOutput }: { agentOutput: unknown }) => ({
    tripwireTriggered: String(agentOutput).includes("SECRET"),
    outputInfo: null,
  }),
};

/** Scenarios that drive the session through the SDK's runner, by name. */
export const RUN_SCENARIOS: Record<string, Scenario> = {
  "three run() turns with a tool: what the model sees and what the session keeps": async (
    session,
    seen,
  ) => {
    const { agent, model, executed } = shopAgent([
      step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
      step([assistantMessage("Order 7 has shipped.")], [40, 6], 2),
      step(
        [
          functionCall("lookup", { id: "8" }, { callId: "call-2" }),
          functionCall("lookup", { id: "9" }, { callId: "call-3" }),
        ],
        [50, 9],
        3,
      ),
      step([assistantMessage("Both shipped.")], [70, 5], 4),
      step([assistantMessage("Bye!")], [80, 2], 5),
    ]);
    await turn(seen, "turn 1", () => run(agent, "Where is order 7?", { session }));
    await turn(seen, "turn 2", () => run(agent, "And orders 8 and 9?", { session }));
    await turn(seen, "turn 3", () =>
      run(agent, [{ role: "user", content: "Thanks" }], { session }),
    );
    seen.record("model inputs", inputs(model));
    seen.record("tools ran", executed);
    seen.record("items", await session.getItems());
    seen.record("newest 4", await session.getItems(4));
  },

  "a streamed run() turn": async (session, seen) => {
    const { agent, model } = shopAgent([
      step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
      step([assistantMessage("Shipped.")], [40, 6], 2),
      step([assistantMessage("Bye!")], [50, 2], 3),
    ]);
    const streamed = await run(agent, "Where is order 7?", { session, stream: true });
    await streamed.completed;
    seen.record("streamed output", streamed.finalOutput);
    await turn(seen, "turn 2", () => run(agent, "Thanks", { session }));
    seen.record("model inputs", inputs(model));
    seen.record("items", await session.getItems());
  },

  "approvals resumed from a serialized RunState: a later call-only approval, then a rejection":
    async (session, seen) => {
      const script = [
        step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
        step([functionCall("refund", { id: "7" }, { callId: "call-2" })], [30, 4], 2),
        step([assistantMessage("Refunded.")], [40, 3], 3),
        step([functionCall("refund", { id: "8" }, { callId: "call-3" })], [50, 4], 4),
        step([assistantMessage("Not refunded.")], [60, 3], 5),
      ];
      const { agent, model, executed } = shopAgent(script, { outputGuardrails: [noSecrets] });
      const first = await run(agent, "Refund order 7", { session });
      seen.record("first interruptions", first.interruptions.length);
      seen.record("items at the interruption", await session.getItems());
      const state = await RunState.fromString(agent, first.state.toString());
      for (const approval of state.getInterruptions()) state.approve(approval);
      await turn(seen, "approved", () => run(agent, state, { session }));
      const second = await run(agent, "Refund order 8", { session });
      const again = await RunState.fromString(agent, second.state.toString());
      for (const approval of again.getInterruptions()) again.reject(approval);
      await turn(seen, "rejected", () => run(agent, again, { session }));
      seen.record("model inputs", inputs(model));
      seen.record("tools ran", executed);
      seen.record("items", await session.getItems());
    },

  "an approval resumed from the live RunState": async (session, seen) => {
    const { agent, model, executed } = shopAgent([
      step([functionCall("refund", { id: "7" }, { callId: "call-1" })], [30, 4], 1),
      step([assistantMessage("Refunded.")], [40, 3], 2),
    ]);
    const first = await run(agent, "Refund order 7", { session });
    for (const approval of first.interruptions) first.state.approve(approval);
    await turn(seen, "approved", () => run(agent, first.state, { session }));
    seen.record("model inputs", inputs(model));
    seen.record("tools ran", executed);
    seen.record("items", await session.getItems());
  },

  "an output guardrail trips after a tool call, and the next turn still sees the call": async (
    session,
    seen,
  ) => {
    const { agent, model } = shopAgent(
      [
        step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
        step([assistantMessage("The SECRET is 42.")], [40, 6], 2),
        step([assistantMessage("Order 7 has shipped.")], [60, 5], 3),
      ],
      { outputGuardrails: [noSecrets] },
    );
    await turn(seen, "tripped", () => run(agent, "Where is order 7?", { session }));
    seen.record("items after the trip", await session.getItems());
    await turn(seen, "next", () => run(agent, "Just the status, please", { session }));
    seen.record("model inputs", inputs(model));
    seen.record("items", await session.getItems());
  },

  "an input guardrail trips": async (session, seen) => {
    const { agent, model } = shopAgent([step([assistantMessage("Hello.")], [10, 2], 1)], {
      inputGuardrails: [
        {
          name: "no shouting",
          execute: async ({ input }) => ({
            tripwireTriggered: JSON.stringify(input).includes("!!!"),
            outputInfo: null,
          }),
        },
      ],
    });
    await turn(seen, "tripped", () => run(agent, "HELLO!!!", { session }));
    seen.record("items after the trip", await session.getItems());
    await turn(seen, "next", () => run(agent, "hello", { session }));
    seen.record("model inputs", inputs(model));
    seen.record("items", await session.getItems());
  },

  "a model response with a compaction item replaces the history before it": async (
    session,
    seen,
  ) => {
    const compaction = { type: "compaction", encrypted_content: "summary-1", id: "cmp_1" } as const;
    const { agent, model } = shopAgent([
      step([functionCall("lookup", { id: "7" }, { callId: "call-1" })], [20, 8], 1),
      step([assistantMessage("Shipped.")], [40, 6], 2),
      step(
        [compaction as ModelResponse["output"][number], assistantMessage("Anything else?")],
        [90, 9],
        3,
      ),
      step([assistantMessage("Bye!")], [30, 2], 4),
    ]);
    await turn(seen, "turn 1", () => run(agent, "Where is order 7?", { session }));
    await turn(seen, "turn 2", () => run(agent, "Compact please", { session }));
    seen.record("items after compaction", await session.getItems());
    await turn(seen, "turn 3", () => run(agent, "No, thanks", { session }));
    seen.record("model inputs", inputs(model));
    seen.record("items", await session.getItems());
  },
};

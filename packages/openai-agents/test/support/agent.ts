import { Agent, setTracingDisabled, tool, Usage } from "@openai/agents";
import {
  assistantMessage,
  functionCall,
  ScriptedModel,
  type ScriptedModelInput,
} from "@openai/agents/testing";
import { z } from "zod";

setTracingDisabled(true); // no exporter, no network

/** A real function tool. */
export const weather = tool({
  name: "weather",
  description: "Current weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => JSON.stringify({ city, sky: "sunny", temp: 21 }),
});

/** One model response as the SDK's normalised `ModelResponse`, with its usage. */
export function response(
  output: "call" | string,
  usage: [input: number, output: number],
  n: number,
): ScriptedModelInput {
  return {
    output:
      output === "call"
        ? [functionCall("weather", { city: "Paris" }, { callId: `call-${n}` })]
        : [assistantMessage(output)],
    usage: new Usage({
      requests: 1,
      inputTokens: usage[0],
      outputTokens: usage[1],
      totalTokens: usage[0] + usage[1],
    }),
    responseId: `resp-${n}`,
  };
}

/** The SDK's deterministic `ScriptedModel` behind an agent with the weather tool. */
export function weatherAgent(script: ScriptedModelInput[]) {
  const model = new ScriptedModel(script);
  const agent = new Agent({
    name: "weather-agent",
    instructions: "Be brief.",
    model,
    tools: [weather],
  });
  return { model, agent };
}

/** The two-turn script the tests run: a tool call and its answer, then a plain answer. */
export function twoTurnScript(): ScriptedModelInput[] {
  return [
    response("call", [20, 8], 1),
    response("Sunny in Paris, 21°C.", [40, 6], 2),
    response("Bye!", [55, 4], 3),
  ];
}

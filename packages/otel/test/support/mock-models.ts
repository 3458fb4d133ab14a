import { MockLanguageModelV4 } from "ai/test";
import { MockLanguageModelV3 } from "ai-v6/test";

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** A scripted step: tool calls, or text, or a thrown provider error. */
export type Step =
  | {
      toolCalls: { id: string; name: string; input: unknown }[];
      usage: [number, number];
      modelId?: string;
    }
  | { text: string; usage: [number, number]; modelId?: string }
  | { fail: string };

/** The AI SDK's own mock model (V4 for ai 7, V3 for ai 6) answering `doGenerate` from a script. */
export function scripted(major: 7, steps: Step[]): MockLanguageModelV4;
export function scripted(major: 6, steps: Step[]): MockLanguageModelV3;
export function scripted(major: 6 | 7, steps: Step[]): MockLanguageModelV4 | MockLanguageModelV3 {
  const Mock = major === 7 ? MockLanguageModelV4 : MockLanguageModelV3;
  let next = 0;
  return new Mock({
    modelId: "mock-model",
    doGenerate: async () => {
      const step = steps[next++];
      if (step === undefined) throw new Error("mock model called past its script");
      if ("fail" in step) throw new Error(step.fail);
      const content =
        "text" in step
          ? [{ type: "text" as const, text: step.text }]
          : step.toolCalls.map((c) => ({
              type: "tool-call" as const,
              toolCallId: c.id,
              toolName: c.name,
              input: JSON.stringify(c.input),
            }));
      return {
        content,
        finishReason:
          "text" in step
            ? { unified: "stop" as const, raw: "stop" }
            : { unified: "tool-calls" as const, raw: "tool_calls" },
        usage: usage(...step.usage),
        warnings: [],
        ...(step.modelId ? { response: { id: `r${next}`, modelId: step.modelId } } : {}),
      };
    },
  } as any);
}

export const WEATHER_SCRIPT: Step[] = [
  {
    toolCalls: [
      { id: "c1", name: "weather", input: { city: "Paris" } },
      { id: "c2", name: "weather", input: { city: "Atlantis" } },
    ],
    usage: [30, 12],
    modelId: "mock-model-2025-01",
  },
  { text: "Sunny in Paris.", usage: [60, 9] },
];

/** The weather tool's `execute`: Atlantis fails. */
export async function weatherOf({ city }: { city: string }) {
  if (city === "Atlantis") throw new Error("no weather under the sea");
  return { city, temp: 21 };
}

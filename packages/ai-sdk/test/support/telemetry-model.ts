import { MockLanguageModelV4 } from "ai/test";

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** A step of a scripted ai 7 mock model: tool calls, else text; or a thrown error. */
export type TelemetryStep =
  | {
      toolCalls: { id: string; name: string; input: unknown }[];
      usage: [number, number];
      modelId?: string;
    }
  | { text: string; usage: [number, number]; modelId?: string }
  | { fail: string };

function content(step: Exclude<TelemetryStep, { fail: string }>) {
  return "text" in step
    ? [{ type: "text" as const, text: step.text }]
    : step.toolCalls.map((c) => ({
        type: "tool-call" as const,
        toolCallId: c.id,
        toolName: c.name,
        input: JSON.stringify(c.input),
      }));
}

/**
 * ai 7's mock model answering `doGenerate` and `doStream` with the next scripted step, the
 * response naming `modelId` when the step gives one (the provider reporting the model).
 */
export function telemetryModel(steps: TelemetryStep[]) {
  let next = 0;
  const take = () => {
    const step = steps[next++];
    if (step === undefined)
      throw new Error(`mock model called ${next} times, scripted ${steps.length}`);
    if ("fail" in step) throw new Error(step.fail);
    return step;
  };
  const finishReason = (step: Exclude<TelemetryStep, { fail: string }>) =>
    "text" in step
      ? { unified: "stop" as const, raw: "stop" }
      : { unified: "tool-calls" as const, raw: "tool_calls" };
  return new MockLanguageModelV4({
    modelId: "mock-model",
    doGenerate: async () => {
      const step = take();
      return {
        content: content(step),
        finishReason: finishReason(step),
        usage: usage(...step.usage),
        warnings: [],
        ...(step.modelId ? { response: { id: `r${next}`, modelId: step.modelId } } : {}),
      };
    },
    doStream: async () => {
      const step = take();
      const parts: object[] = [{ type: "stream-start", warnings: [] }];
      if (step.modelId)
        parts.push({ type: "response-metadata", id: `r${next}`, modelId: step.modelId });
      if ("text" in step) {
        parts.push(
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: step.text },
          { type: "text-end", id: "t" },
        );
      } else {
        for (const c of content(step)) parts.push(c);
      }
      parts.push({ type: "finish", usage: usage(...step.usage), finishReason: finishReason(step) });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const p of parts) controller.enqueue(p);
            controller.close();
          },
        }),
      } as never;
    },
  });
}

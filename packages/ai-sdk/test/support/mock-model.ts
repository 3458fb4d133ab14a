import type { LanguageModel } from "ai";
import * as aiTest from "ai/test";
import { AI_MAJOR } from "./ai-major.js";

// The AI SDK's own mock model of the running major: MockLanguageModelV4 (ai 7), V3 (ai 6) or
// V2 (ai 5). The stream part formats differ only in usage and finish reason.
const Mock = ((aiTest as Record<string, unknown>).MockLanguageModelV4 ??
  (aiTest as Record<string, unknown>).MockLanguageModelV3 ??
  (aiTest as Record<string, unknown>).MockLanguageModelV2) as new (
  options: object,
) => MockModel;

/** What the tests read from the mock. */
export interface MockModel {
  doStreamCalls: { prompt: { role: string; content: unknown }[] }[];
}

function usage(input: number, output: number) {
  if (AI_MAJOR <= 5)
    return { inputTokens: input, outputTokens: output, totalTokens: input + output };
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function finishReason(reason: "stop" | "tool-calls") {
  return AI_MAJOR <= 5 ? reason : { unified: reason, raw: reason };
}

/** One streamed model response: optional reasoning, provider-executed calls, text, tool calls. */
export interface ScriptedStep {
  reasoning?: string;
  /** Calls the provider ran itself (web search, …), with their results. */
  providerCalls?: { id: string; name: string; input: unknown; result: unknown }[];
  text?: string;
  toolCalls?: { id: string; name: string; input: unknown }[];
  usage: [input: number, output: number];
  modelId?: string;
}

function streamOf(step: ScriptedStep, n: number): object[] {
  const parts: object[] = [{ type: "stream-start", warnings: [] }];
  if (step.modelId) {
    parts.push({ type: "response-metadata", id: `resp-${n}`, modelId: step.modelId });
  }
  if (step.reasoning !== undefined) {
    parts.push(
      { type: "reasoning-start", id: `r${n}` },
      { type: "reasoning-delta", id: `r${n}`, delta: step.reasoning },
      { type: "reasoning-end", id: `r${n}` },
    );
  }
  for (const call of step.providerCalls ?? []) {
    parts.push(
      {
        type: "tool-call",
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
        providerExecuted: true,
      },
      {
        type: "tool-result",
        toolCallId: call.id,
        toolName: call.name,
        result: call.result,
        providerExecuted: true,
      },
    );
  }
  if (step.text !== undefined) {
    parts.push(
      { type: "text-start", id: `t${n}` },
      { type: "text-delta", id: `t${n}`, delta: step.text },
      { type: "text-end", id: `t${n}` },
    );
  }
  for (const call of step.toolCalls ?? []) {
    parts.push({
      type: "tool-call",
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.stringify(call.input),
    });
  }
  parts.push({
    type: "finish",
    usage: usage(...step.usage),
    finishReason: finishReason(step.toolCalls?.length ? "tool-calls" : "stop"),
  });
  return parts;
}

/**
 * The AI SDK's mock language model answering each `doStream` call with the next scripted step;
 * a call past the script fails the test. `doStreamCalls` records every prompt it was sent.
 */
export function scriptedModel(steps: ScriptedStep[]): MockModel & Exclude<LanguageModel, string> {
  let next = 0;
  return new Mock({
    modelId: "mock-model",
    doStream: async () => {
      const step = steps[next];
      if (!step) {
        throw new Error(`the mock model was called ${next + 1} times, scripted ${steps.length}`);
      }
      return { stream: aiTest.convertArrayToReadableStream(streamOf(step, next++)) };
    },
  }) as MockModel & Exclude<LanguageModel, string>;
}

/** One generated model response: text and tool calls (`doGenerate`). */
export interface GeneratedStep {
  text?: string;
  toolCalls?: { id: string; name: string; input: unknown }[];
  usage: [input: number, output: number];
}

/** What the tests read from a generating mock. */
export interface GeneratingMockModel {
  doGenerateCalls: { prompt: { role: string; content: unknown }[] }[];
}

/**
 * The AI SDK's mock language model answering each `doGenerate` call (`generateText`) with the
 * next scripted step; a call past the script fails the test.
 */
export function generatingModel(
  steps: GeneratedStep[],
): GeneratingMockModel & Exclude<LanguageModel, string> {
  let next = 0;
  return new Mock({
    modelId: "mock-model",
    doGenerate: async () => {
      const step = steps[next++];
      if (!step)
        throw new Error(`the mock model was called ${next} times, scripted ${steps.length}`);
      const content: object[] = [];
      if (step.text !== undefined) content.push({ type: "text", text: step.text });
      for (const call of step.toolCalls ?? []) {
        content.push({
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.name,
          input: JSON.stringify(call.input),
        });
      }
      return {
        content,
        finishReason: finishReason(step.toolCalls?.length ? "tool-calls" : "stop"),
        usage: usage(...step.usage),
        warnings: [],
      };
    },
  }) as unknown as GeneratingMockModel & Exclude<LanguageModel, string>;
}

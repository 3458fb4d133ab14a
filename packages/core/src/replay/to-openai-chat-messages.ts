import type { Message } from "../models/message.js";
import {
  pairToolCalls,
  type ReplayOptions,
  type ReplayToolResult,
  UNAVAILABLE_TOOL_RESULT,
} from "./pair-tool-calls.js";

// Structural copies of the OpenAI Chat Completions request types, so core needs no dependency on
// `openai`: every value below is assignable to its `ChatCompletionMessageParam`.

/** OpenAI `ChatCompletionMessageFunctionToolCall`; `arguments` is a JSON string. */
export interface OpenAIChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** OpenAI `ChatCompletionMessageParam` as produced by {@link toOpenAIChatMessages}. */
export type OpenAIChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: OpenAIChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Converts stored messages (e.g. `getImmediateContext`) into OpenAI Chat Completions
 * `ChatCompletionMessageParam[]`. Pure; the input is not mutated.
 *
 * Tool calls are paired with their results as {@link pairToolCalls} describes (flagged messages
 * dropped, orphan tool results dropped, unanswered calls answered by an "unavailable" result).
 * Shapes:
 * - system / user: `{ role, content: originalContent }`.
 * - assistant (also `colleague_assistant`): `content` is `originalContent`; with calls it also has
 *   `tool_calls` (`{ id, type: "function", function: { name, arguments: JSON string } }`), and
 *   empty text becomes `content: null`.
 * - Each call's result follows as `{ role: "tool", tool_call_id, content }`, in call order:
 *   the tool message's `originalContent` verbatim, a stored string result verbatim, any other
 *   stored result as JSON text, or the "unavailable" note.
 */
export function toOpenAIChatMessages(
  messages: readonly Message[],
  options?: ReplayOptions,
): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = [];
  for (const step of pairToolCalls(messages, options)) {
    if (step.role !== "assistant") {
      out.push({ role: step.role, content: step.text });
      continue;
    }
    if (step.toolCalls.length === 0) {
      out.push({ role: "assistant", content: step.text });
      continue;
    }
    out.push({
      role: "assistant",
      content: step.text === "" ? null : step.text,
      tool_calls: step.toolCalls.map((call) => ({
        id: call.toolCallId,
        type: "function",
        function: { name: call.toolName, arguments: JSON.stringify(call.arguments) },
      })),
    });
    for (const call of step.toolCalls) {
      out.push({ role: "tool", tool_call_id: call.toolCallId, content: resultText(call.result) });
    }
  }
  return out;
}

function resultText(result: ReplayToolResult): string {
  switch (result.source) {
    case "message":
      return result.content;
    case "stored":
      return typeof result.value === "string" ? result.value : JSON.stringify(result.value);
    case "missing":
      return UNAVAILABLE_TOOL_RESULT;
  }
}

import type { Json, JsonObject } from "../models/json.js";
import type { Message } from "../models/message.js";
import {
  pairToolCalls,
  type ReplayOptions,
  type ReplayToolCall,
  type ReplayToolResult,
  UNAVAILABLE_TOOL_RESULT,
} from "./pair-tool-calls.js";

// Structural copies of the Vercel AI SDK (v5/v6) prompt types, so core needs no dependency on
// `ai`: every value below is assignable to the SDK's `ModelMessage`.

/** AI SDK `TextPart`. */
export interface AiSdkTextPart {
  type: "text";
  text: string;
}

/** AI SDK `ToolCallPart`; `input` is the call's arguments object. */
export interface AiSdkToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: JsonObject;
}

/** The subset of AI SDK `ToolResultOutput` that replay produces. */
export type AiSdkToolResultOutput =
  | { type: "text"; value: string }
  | { type: "json"; value: Json }
  | { type: "error-text"; value: string };

/** AI SDK `ToolResultPart`. */
export interface AiSdkToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: AiSdkToolResultOutput;
}

/** AI SDK `ModelMessage` as produced by {@link toModelMessages}. */
export type AiSdkModelMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | (AiSdkTextPart | AiSdkToolCallPart)[] }
  | { role: "tool"; content: AiSdkToolResultPart[] };

/**
 * Converts stored messages (e.g. `getImmediateContext`) into Vercel AI SDK `ModelMessage[]`, ready
 * for `generateText({ messages })`. Pure; the input is not mutated. JSON values (arguments,
 * stored results) are shared with the input, not copied.
 *
 * Tool calls are paired with their results as {@link pairToolCalls} describes (flagged messages
 * dropped, orphan tool results dropped, unanswered calls answered by an "unavailable" result).
 * Shapes:
 * - system / user: `{ role, content: originalContent }`.
 * - assistant (also `colleague_assistant`): `content` is the text alone when there are no calls;
 *   otherwise a text part (omitted when the text is empty) followed by one `tool-call` part per
 *   call, with the arguments object as `input`.
 * - The results of an assistant message's calls follow it as one `tool` message holding one
 *   `tool-result` part per call, in call order. Output: a tool message's content that parses as a
 *   JSON object or array is `{ type: "json" }`; any other content is `{ type: "text" }` (bare
 *   scalars too, so that e.g. a 20-digit id is not rounded to a float). A stored `ToolCall.result`
 *   is `text` when it is a string and `json` otherwise. A missing result is `error-text`.
 *
 * Stored `system` messages are replayed in place. The AI SDK treats system messages inside
 * `messages` differently per major: ai 5 and 6 accept them, ai 7 rejects them with
 * `InvalidPromptError` unless the call sets `allowSystemInMessages: true`. Pass your own prompt
 * as `generateText({ system })`, and filter stored system messages out (or move them to
 * `system`) for ai 7; `@message-store/ai-sdk`'s `loadModelMessages` has an option for it.
 */
export function toModelMessages(
  messages: readonly Message[],
  options?: ReplayOptions,
): AiSdkModelMessage[] {
  const out: AiSdkModelMessage[] = [];
  for (const step of pairToolCalls(messages, options)) {
    if (step.role !== "assistant") {
      out.push({ role: step.role, content: step.text });
      continue;
    }
    if (step.toolCalls.length === 0) {
      out.push({ role: "assistant", content: step.text });
      continue;
    }
    const parts: (AiSdkTextPart | AiSdkToolCallPart)[] = step.text
      ? [{ type: "text", text: step.text }]
      : [];
    for (const call of step.toolCalls) {
      parts.push({
        type: "tool-call",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: call.arguments,
      });
    }
    out.push({ role: "assistant", content: parts });
    out.push({ role: "tool", content: step.toolCalls.map(toResultPart) });
  }
  return out;
}

function toResultPart(call: ReplayToolCall): AiSdkToolResultPart {
  return {
    type: "tool-result",
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: toOutput(call.result),
  };
}

function toOutput(result: ReplayToolResult): AiSdkToolResultOutput {
  switch (result.source) {
    case "message": {
      const json = parseStructuredJson(result.content);
      return json === undefined
        ? { type: "text", value: result.content }
        : { type: "json", value: json };
    }
    case "stored":
      return typeof result.value === "string"
        ? { type: "text", value: result.value }
        : { type: "json", value: result.value };
    case "missing":
      return { type: "error-text", value: UNAVAILABLE_TOOL_RESULT };
  }
}

/** The parsed value when `text` is a JSON object or array, else undefined. */
function parseStructuredJson(text: string): Json | undefined {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

import type { Json, JsonObject } from "../models/json.js";
import type { Message } from "../models/message.js";

/** Options shared by the replay converters. */
export interface ReplayOptions {
  /** Put first, as a system message. An empty string adds nothing. */
  systemPrompt?: string;
}

/**
 * Where the result of a replayed tool call comes from:
 * - `message`: the `originalContent` of the tool message answering it;
 * - `stored`: the call's own non-null `ToolCall.result`;
 * - `missing`: neither is in the window, so the converter writes {@link UNAVAILABLE_TOOL_RESULT}.
 */
export type ReplayToolResult =
  | { source: "message"; content: string }
  | { source: "stored"; value: Json }
  | { source: "missing" };

/** A tool call with the result that will be replayed right after its assistant message. */
export interface ReplayToolCall {
  toolCallId: string;
  toolName: string;
  arguments: JsonObject;
  result: ReplayToolResult;
}

/** One provider-neutral replay step; tool results travel with the assistant step that made the calls. */
export type ReplayStep =
  | { role: "system" | "user"; text: string }
  | { role: "assistant"; text: string; toolCalls: ReplayToolCall[] };

/** What a call whose result is not in the replayed window gets as its result. */
export const UNAVAILABLE_TOOL_RESULT =
  "Tool result unavailable: the result of this call is not part of the replayed history.";

/**
 * The pairing rules both replay converters share, so that every tool call is answered exactly
 * once, right after the assistant message that made it (what providers require):
 *
 * - `options.systemPrompt`, when not empty, comes first as a system step.
 * - Flagged messages are dropped first, as if they were not in the window.
 * - `user` and `system` map to themselves; `assistant` and `colleague_assistant` to assistant,
 *   with `originalContent` as text and `toolCalls` as calls. Other fields are not replayed.
 * - A call is answered by the first later non-flagged `tool` message with the same `toolCallId`;
 *   that result is moved up to follow the call even if other messages came in between. Failing
 *   that, by the call's stored non-null `result`. Failing both (e.g. the tool message was flagged,
 *   or the turn is still running), by a synthesised "unavailable" error result, so the call
 *   itself is still replayed. To resume a turn whose tools have not returned, store (or append)
 *   their results before replaying, or replay without that last message.
 * - A tool message that answers no call in the window is dropped: its call is outside the window
 *   (the window starts after it), it has no `toolCallId`, or it repeats an answered id. Turning it
 *   into text would put tool output under user or assistant authority.
 * - A call whose `toolCallId` was already used by an earlier call in the window is dropped, since
 *   providers reject duplicate ids.
 * - Everything else keeps its order; results of one message follow the order of its calls.
 */
export function pairToolCalls(
  messages: readonly Message[],
  options: ReplayOptions = {},
): ReplayStep[] {
  const kept = messages.filter((m) => !m.isFlagged);
  const toolMessagesById = new Map<string, number[]>();
  kept.forEach((m, i) => {
    if (m.role !== "tool" || m.toolCallId === null) return;
    const positions = toolMessagesById.get(m.toolCallId);
    if (positions) positions.push(i);
    else toolMessagesById.set(m.toolCallId, [i]);
  });

  const usedCallIds = new Set<string>();
  const steps: ReplayStep[] = options.systemPrompt
    ? [{ role: "system", text: options.systemPrompt }]
    : [];
  kept.forEach((m, i) => {
    switch (m.role) {
      case "user":
      case "system":
        steps.push({ role: m.role, text: m.originalContent });
        return;
      case "tool":
        return; // replayed with its call, or dropped as an orphan
      case "assistant":
      case "colleague_assistant": {
        const toolCalls: ReplayToolCall[] = [];
        for (const call of m.toolCalls) {
          if (usedCallIds.has(call.toolCallId)) continue;
          usedCallIds.add(call.toolCallId);
          const answer = toolMessagesById.get(call.toolCallId)?.find((p) => p > i);
          let result: ReplayToolResult;
          if (answer !== undefined) {
            result = { source: "message", content: kept[answer]!.originalContent };
          } else if (call.result !== null) {
            result = { source: "stored", value: call.result };
          } else {
            result = { source: "missing" };
          }
          toolCalls.push({
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            arguments: call.arguments,
            result,
          });
        }
        steps.push({ role: "assistant", text: m.originalContent, toolCalls });
      }
    }
  });
  return steps;
}

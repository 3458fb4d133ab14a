import type { Message } from "@message-store/core";
import type { AgentInputItem } from "@openai/agents";
import { sessionMetadata } from "./stored-turns.js";

/** The items a message written by the session stands for, or undefined for any other message. */
export function storedItems(record: Message): AgentInputItem[] | undefined {
  const { items } = sessionMetadata(record);
  return Array.isArray(items) ? (items as unknown as AgentInputItem[]) : undefined;
}

function resultText(result: unknown): string {
  return typeof result === "string" ? result : JSON.stringify(result);
}

/**
 * The items of a window of messages, oldest first (see {@link itemGroupsOf}).
 */
export function itemsOf(records: readonly Message[]): AgentInputItem[] {
  return itemGroupsOf(records).flat();
}

/**
 * The items of each message of a window, oldest first, aligned with `records`. Messages written by the session give back
 * their items exactly. Others (written by core, another bridge, the CLI's import) are rebuilt:
 * `user` / `system` → a message item with the text; `assistant` (and `colleague_assistant`) → an
 * output text message when it has text, then one `function_call` per tool call, and for a call
 * with a stored `result` that no `tool` message of the window answers, its `function_call_result`;
 * `tool` → a `function_call_result` with the text (none without a `toolCallId`).
 */
export function itemGroupsOf(records: readonly Message[]): AgentInputItem[][] {
  const answered = new Set<string>();
  for (const r of records)
    if (r.role === "tool" && r.toolCallId !== null) answered.add(r.toolCallId);
  return records.map((r): AgentInputItem[] => {
    const stored = storedItems(r);
    if (stored) return stored;
    switch (r.role) {
      case "user":
        return [{ type: "message", role: "user", content: r.originalContent }];
      case "system":
        return [{ type: "message", role: "system", content: r.originalContent }];
      case "tool":
        if (r.toolCallId === null) return [];
        return [
          {
            type: "function_call_result",
            callId: r.toolCallId,
            name: r.toolName ?? "tool",
            status: "completed",
            output: { type: "text", text: r.originalContent },
          },
        ];
      default: {
        const items: AgentInputItem[] = [];
        if (r.originalContent !== "") {
          items.push({
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: r.originalContent }],
          });
        }
        for (const call of r.toolCalls) {
          items.push({
            type: "function_call",
            callId: call.toolCallId,
            name: call.toolName,
            status: "completed",
            arguments: JSON.stringify(call.arguments),
          });
          if (call.result !== null && !answered.has(call.toolCallId)) {
            items.push({
              type: "function_call_result",
              callId: call.toolCallId,
              name: call.toolName,
              status: "completed",
              output: { type: "text", text: resultText(call.result) },
            });
          }
        }
        return items;
      }
    }
  });
}

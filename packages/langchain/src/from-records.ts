import {
  AIMessage,
  AIMessageChunk,
  type BaseMessage,
  ChatMessageChunk,
  FunctionMessageChunk,
  HumanMessage,
  HumanMessageChunk,
  mapStoredMessageToChatMessage,
  type StoredMessage,
  SystemMessage,
  SystemMessageChunk,
  ToolMessage,
  ToolMessageChunk,
} from "@langchain/core/messages";
import type { Message } from "@message-store/core";
import { langChainMetadata } from "./to-records.js";

/** The chunk class of each serialised message type. */
const CHUNKS: Record<string, new (fields: never) => BaseMessage> = {
  ai: AIMessageChunk,
  human: HumanMessageChunk,
  system: SystemMessageChunk,
  tool: ToolMessageChunk,
  generic: ChatMessageChunk,
  function: FunctionMessageChunk,
};

/** The message the history stored, as the class it was added as; undefined for other messages. */
function restored(record: Message): BaseMessage | undefined {
  const { stored, chunk } = langChainMetadata(record);
  if (typeof stored !== "object" || stored === null) return undefined;
  const message = stored as unknown as StoredMessage;
  const Chunk = chunk ? CHUNKS[message.type] : undefined;
  return Chunk ? new Chunk(message.data as never) : mapStoredMessageToChatMessage(message);
}

/**
 * Stored messages as LangChain messages, in order. A message written by the history comes back
 * exactly as it was added: LangChain's own `mapStoredMessageToChatMessage`, or the chunk class
 * (`AIMessageChunk`, …) for a chunk, with the fields it had. One written any
 * other way (core, another bridge, the CLI's import) is rebuilt from its fields, with its id as
 * the message id: `user` → HumanMessage, `system` → SystemMessage, `assistant` and
 * `colleague_assistant` → AIMessage with `tool_calls`, `tool` → ToolMessage (skipped without a
 * `toolCallId`). A call with a stored `result` that no `tool` message in `records` answers is
 * followed by a ToolMessage holding that result, so every call is answered.
 */
export function fromRecords(records: readonly Message[]): BaseMessage[] {
  const answered = new Set<string>();
  for (const r of records)
    if (r.role === "tool" && r.toolCallId !== null) answered.add(r.toolCallId);
  const out: BaseMessage[] = [];
  for (const r of records) {
    const message = restored(r);
    if (message) {
      out.push(message);
      continue;
    }
    const base = { id: r.id, content: r.originalContent };
    switch (r.role) {
      case "user":
        out.push(new HumanMessage(base));
        break;
      case "system":
        out.push(new SystemMessage(base));
        break;
      case "assistant":
      case "colleague_assistant":
        out.push(
          new AIMessage({
            ...base,
            tool_calls: r.toolCalls.map((c) => ({
              id: c.toolCallId,
              name: c.toolName,
              args: c.arguments,
              type: "tool_call" as const,
            })),
          }),
        );
        for (const c of r.toolCalls) {
          if (c.result === null || answered.has(c.toolCallId)) continue;
          const content = typeof c.result === "string" ? c.result : JSON.stringify(c.result);
          out.push(new ToolMessage({ content, tool_call_id: c.toolCallId, name: c.toolName }));
        }
        break;
      case "tool":
        if (r.toolCallId !== null) {
          out.push(
            new ToolMessage({ ...base, tool_call_id: r.toolCallId, name: r.toolName ?? undefined }),
          );
        }
        break;
    }
  }
  return out;
}

/**
 * Drops the tool messages at the start of a window whose call is older than the window: a
 * provider rejects a tool result without its call.
 */
export function dropCutOffToolResults(messages: BaseMessage[]): BaseMessage[] {
  let start = 0;
  while (start < messages.length && ToolMessage.isInstance(messages[start]!)) start++;
  return start === 0 ? messages : messages.slice(start);
}

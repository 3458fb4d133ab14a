import {
  type Message,
  type MessageInput,
  MessageSchema,
  type ToolCallInput,
  type TurnTrace,
  type TurnTraceInput,
  TurnTraceSchema,
} from "../../src/index.js";

let counter = 0;

/** A valid message with defaults filled; `id` and `timestamp` advance on every call. */
export function message(fields: Partial<MessageInput> = {}): Message {
  counter++;
  return MessageSchema.parse({
    id: `m${String(counter).padStart(4, "0")}`,
    conversationId: "c1",
    userId: "u1",
    role: "user",
    originalContent: `text ${counter}`,
    timestamp: 1_700_000_000_000 + counter,
    ...fields,
  });
}

/** An assistant message making `calls`. */
export function assistant(text: string, calls: ToolCallInput[] = []): Message {
  return message({ role: "assistant", originalContent: text, toolCalls: calls });
}

/** A tool message answering `toolCallId`. */
export function toolMessage(toolCallId: string | null, content: string, toolName = "search") {
  return message({ role: "tool", originalContent: content, toolCallId, toolName });
}

/** A valid trace with defaults filled. */
export function trace(fields: Partial<TurnTraceInput> = {}): TurnTrace {
  counter++;
  return TurnTraceSchema.parse({
    id: `t${counter}`,
    messageId: `m${counter}`,
    conversationId: "c1",
    agentId: "a1",
    timestamp: 1_700_000_000_000,
    totalTokens: 0,
    totalLatencyMs: 0,
    ...fields,
  });
}

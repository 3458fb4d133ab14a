import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import {
  type JsonObject,
  type MessageInput,
  type MessageRole,
  newId,
  type ToolCallInput,
  ValidationError,
} from "@message-store/core";
import { toJson } from "./json-value.js";

/** Where converted messages go. */
export interface RecordTarget {
  conversationId: string;
  userId: string;
  timestamp: number;
}

/** Key under `Message.metadata` holding LangChain's own serialisation of the message. */
export const METADATA_KEY = "langchain";

const ROLES: Record<string, MessageRole> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  system: "system",
  developer: "system",
  tool: "tool",
  function: "tool",
};

/**
 * LangChain messages as messages of the store, one each, in order:
 *
 * - `HumanMessage` → `user`, `AIMessage` → `assistant`, `SystemMessage` → `system`,
 *   `ToolMessage` → `tool` (with `toolCallId` = `tool_call_id` and `toolName` = `name`, or the
 *   name of the call in the same batch); a `ChatMessage` by its role.
 * - `originalContent` is the message's text (`message.text`: its string content or its text
 *   blocks). An AIMessage's `tool_calls` become `toolCalls` (a call without an id gets a new one)
 *   and its reasoning blocks `reasoningSteps`.
 * - The message exactly as LangChain serialises it for its own chat histories (`toDict()`:
 *   content blocks, ids, `additional_kwargs`, `response_metadata`, `usage_metadata`, tool status
 *   and artifact, …) is kept under `metadata.langchain.stored`, so reading back is lossless.
 *
 * Throws `ValidationError` for a message type no history can hold (e.g. `RemoveMessage`).
 */
export function toRecords(messages: readonly BaseMessage[], target: RecordTarget): MessageInput[] {
  const callNames = new Map<string, string>();
  for (const m of messages) {
    if (AIMessage.isInstance(m))
      for (const c of m.tool_calls ?? []) if (c.id) callNames.set(c.id, c.name);
  }
  return messages.map((message, index) => {
    const type = message.type;
    const role = ROLES[type === "generic" ? String((message as { role?: string }).role) : type];
    if (!role) {
      throw new ValidationError(
        `message ${index} has type "${type}", which a chat history cannot store`,
        [{ path: [index, "type"], message: "expected human, ai, system, tool or a chat role" }],
        { adapter: "langchain" },
      );
    }
    const record: MessageInput = {
      id: newId(),
      conversationId: target.conversationId,
      userId: target.userId,
      role,
      originalContent: message.text,
      timestamp: target.timestamp,
      metadata: { [METADATA_KEY]: { stored: toJson(message.toDict(), `message ${index}`) } },
    };
    if (AIMessage.isInstance(message)) {
      const calls = message.tool_calls ?? [];
      if (calls.length > 0) record.toolCalls = calls.map(toToolCall);
      const reasoning = message.contentBlocks.flatMap((b) =>
        b.type === "reasoning" && typeof b.reasoning === "string" ? [b.reasoning] : [],
      );
      if (reasoning.length > 0) record.reasoningSteps = reasoning;
    }
    if (ToolMessage.isInstance(message)) {
      record.toolCallId = message.tool_call_id || null;
      record.toolName = message.name ?? callNames.get(message.tool_call_id) ?? null;
    }
    return record;
  });
}

function toToolCall(call: { id?: string; name: string; args: unknown }): ToolCallInput {
  const args = toJson(call.args, `arguments of tool call ${call.name}`);
  return {
    toolCallId: call.id || newId(),
    toolName: call.name,
    arguments:
      typeof args === "object" && args !== null && !Array.isArray(args)
        ? (args as JsonObject)
        : { input: args },
  };
}

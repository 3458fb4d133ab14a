import {
  AIMessage,
  type BaseMessage,
  isBaseMessageChunk,
  ToolMessage,
} from "@langchain/core/messages";
import {
  type JsonObject,
  type Message,
  type MessageInput,
  type MessageRole,
  newId,
  type SessionTurn,
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

/** What the history stored about `message` (`{}` for a message written by other tools). */
export function langChainMetadata(message: Pick<Message, "metadata">): LangChainMetadata {
  const value = message.metadata[METADATA_KEY];
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as LangChainMetadata)
    : {};
}

/** `metadata.langchain` of a message written by the history. */
export interface LangChainMetadata {
  /** The message as `toDict()` serialises it. */
  stored?: JsonObject;
  /** True for a chunk class (`AIMessageChunk`, …): it is read back as that class. */
  chunk?: boolean;
  /** Set when `clear()` hid the message. */
  hidden?: "cleared";
}

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
 * LangChain messages as turns of `storeSessionMessages`, one each, in order:
 *
 * - `HumanMessage` → `user`, `AIMessage` → `assistant`, `SystemMessage` → `system`,
 *   `ToolMessage` → `tool` (with `toolCallId` = `tool_call_id` and `toolName` = `name`, or the
 *   name of the call in the same batch); a `ChatMessage` by its role; the chunk classes
 *   (`AIMessageChunk`, …) like their messages.
 * - The text (`content`) is the message's text (`message.text`: its string content or its text
 *   blocks). An AIMessage's `tool_calls` become `toolCalls` (a call without an id gets a new one)
 *   and its reasoning blocks `reasoningSteps`.
 * - The message exactly as LangChain serialises it for its own chat histories (`toDict()`:
 *   content blocks, ids, `additional_kwargs`, `response_metadata`, `usage_metadata`, tool status
 *   and artifact, tool call chunks, …) is kept under `metadata.langchain.stored`, with `chunk:
 *   true` for a chunk class, so reading back gives the same class and fields.
 *
 * Each turn gets a new id. Throws `ValidationError` for a message type no history can hold
 * (e.g. `RemoveMessage`).
 */
export function toTurns(messages: readonly BaseMessage[]): SessionTurn[] {
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
    const metadata: LangChainMetadata = {
      stored: toJson(message.toDict(), `message ${index}`) as JsonObject,
      ...(isBaseMessageChunk(message) ? { chunk: true } : {}),
    };
    const turn: SessionTurn = {
      id: newId(),
      role,
      content: message.text,
      metadata: { [METADATA_KEY]: metadata as unknown as JsonObject },
    };
    if (AIMessage.isInstance(message)) {
      const calls = message.tool_calls ?? [];
      if (calls.length > 0) turn.toolCalls = calls.map(toToolCall);
      const reasoning = message.contentBlocks.flatMap((b) =>
        b.type === "reasoning" && typeof b.reasoning === "string" ? [b.reasoning] : [],
      );
      if (reasoning.length > 0) turn.reasoningSteps = reasoning;
    }
    if (ToolMessage.isInstance(message)) {
      turn.toolCallId = message.tool_call_id || null;
      turn.toolName = message.name ?? callNames.get(message.tool_call_id) ?? null;
    }
    return turn;
  });
}

/**
 * LangChain messages as messages for `storeMessages`, one each, in order: {@link toTurns} with
 * the conversation, user and timestamp of `target`.
 */
export function toRecords(messages: readonly BaseMessage[], target: RecordTarget): MessageInput[] {
  return toTurns(messages).map(({ content, ...turn }) => ({
    ...turn,
    id: turn.id ?? newId(),
    conversationId: target.conversationId,
    userId: target.userId,
    originalContent: content,
    timestamp: target.timestamp,
  }));
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

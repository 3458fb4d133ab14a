import {
  type Json,
  type JsonObject,
  type MessageInput,
  newId,
  type ToolCallInput,
  UNAVAILABLE_TOOL_RESULT,
} from "@message-store/core";
import type { ModelMessage } from "ai";
import { isJsonObject, toJson } from "./json-value.js";

/** Where converted messages go and how they are stamped. */
export interface FromModelMessagesOptions {
  conversationId: string;
  userId: string;
  /** Timestamp of every converted message (epoch ms); array order is kept. Default: now. */
  timestamp?: number;
  /** Id of the i-th converted message. Default: a fresh {@link newId} each. */
  messageId?: (index: number) => string;
  /** Merged into every converted message's `metadata`. */
  metadata?: JsonObject;
}

type ToolResultOutput = Extract<
  Extract<ModelMessage, { role: "tool" }>["content"][number],
  { type: "tool-result" }
>["output"];

/**
 * Converts AI SDK `ModelMessage[]` (for example `await result.responseMessages` of `streamText`,
 * or `response.messages` on ai 5/6, with the user's prompt in front) into messages for
 * `storeMessages`: the inverse of core's `toModelMessages`. Pure; ids and timestamps come from
 * the options.
 *
 * - `system` / `user`: one message each; the text is the string content, or the text parts
 *   concatenated. Image and file parts are dropped.
 * - `assistant`: one message; text parts concatenated into `originalContent`, `reasoning` parts
 *   into `reasoningSteps`, `tool-call` parts into `toolCalls` (`input` as `arguments`; an input
 *   that is not an object is kept as `{ input }`). A provider-executed `tool-result` part in the
 *   same message becomes that call's `result`. File, custom and approval parts are dropped.
 * - `tool`: one `tool` message per `tool-result` part, with `toolCallId`, `toolName` and the
 *   output as text: `text` / `error-text` verbatim, `json` / `error-json` as compact JSON,
 *   `execution-denied` as its reason, `content` as its text parts. An `error-text` result that is
 *   core's "unavailable" placeholder is a replay artefact, not a result, and is skipped.
 *
 * Throws `ValidationError` only for values JSON cannot hold; the store validates the rest.
 */
export function fromModelMessages(
  messages: readonly ModelMessage[],
  options: FromModelMessagesOptions,
): MessageInput[] {
  const timestamp = options.timestamp ?? Date.now();
  const out: MessageInput[] = [];
  const push = (fields: Partial<MessageInput> & Pick<MessageInput, "role">) => {
    out.push({
      id: options.messageId ? options.messageId(out.length) : newId(),
      conversationId: options.conversationId,
      userId: options.userId,
      originalContent: "",
      timestamp,
      ...(options.metadata ? { metadata: options.metadata } : {}),
      ...fields,
    });
  };

  for (const message of messages) {
    switch (message.role) {
      case "system":
        push({ role: "system", originalContent: message.content });
        break;
      case "user":
        push({ role: "user", originalContent: textOf(message.content) });
        break;
      case "assistant":
        push({ role: "assistant", ...assistantFields(message.content) });
        break;
      case "tool":
        for (const part of message.content) {
          if (part.type !== "tool-result") continue;
          const text = outputText(part.output);
          if (text === null) continue;
          push({
            role: "tool",
            originalContent: text,
            toolCallId: part.toolCallId,
            toolName: part.toolName,
          });
        }
        break;
    }
  }
  return out;
}

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
}

function assistantFields(
  content: Extract<ModelMessage, { role: "assistant" }>["content"],
): Pick<MessageInput, "originalContent" | "reasoningSteps" | "toolCalls"> {
  if (typeof content === "string") return { originalContent: content };
  let text = "";
  const reasoningSteps: string[] = [];
  const toolCalls: ToolCallInput[] = [];
  const results = new Map<string, Json>();
  for (const part of content) {
    switch (part.type) {
      case "text":
        text += part.text;
        break;
      case "reasoning":
        reasoningSteps.push(part.text);
        break;
      case "tool-call": {
        const input = toJson(part.input, `input of tool call ${part.toolCallId}`);
        toolCalls.push({
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          arguments: isJsonObject(input) ? input : { input },
        });
        break;
      }
      case "tool-result":
        results.set(part.toolCallId, outputValue(part.output));
        break;
    }
  }
  for (const call of toolCalls) {
    const result = results.get(call.toolCallId);
    if (result !== undefined) call.result = result;
  }
  return {
    originalContent: text,
    ...(reasoningSteps.length > 0 ? { reasoningSteps } : {}),
    ...(toolCalls.length > 0 ? { toolCalls } : {}),
  };
}

/** A tool result as the text of a `tool` message, or null for core's "unavailable" placeholder. */
function outputText(output: ToolResultOutput): string | null {
  switch (output.type) {
    case "text":
      return output.value;
    case "error-text":
      return output.value === UNAVAILABLE_TOOL_RESULT ? null : output.value;
    case "json":
    case "error-json":
      return JSON.stringify(toJson(output.value, "tool result"));
    case "execution-denied":
      return output.reason ?? "Tool execution denied.";
    case "content":
      return textOf(output.value);
    default:
      return JSON.stringify(toJson(output, "tool result"));
  }
}

/** A provider-executed tool result as `ToolCall.result`: JSON values stay JSON, text stays text. */
function outputValue(output: ToolResultOutput): Json {
  switch (output.type) {
    case "json":
    case "error-json":
      return toJson(output.value, "tool result");
    default:
      return outputText(output) ?? null;
  }
}

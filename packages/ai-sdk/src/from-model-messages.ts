import {
  type Json,
  type JsonObject,
  type MessageInput,
  newId,
  type ToolCallInput,
  UNAVAILABLE_TOOL_RESULT,
} from "@message-store/core";
import type { ModelMessage } from "ai";
import { withBridgeMetadata } from "./bridge-metadata.js";
import { isJsonObject, toJson } from "./json-value.js";
import { assertModelMessages } from "./model-message-input.js";

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

/** What one AI SDK `ModelMessage` becomes: the fields of its stored messages, in order. */
export type ModelMessageFields = Pick<
  MessageInput,
  "role" | "originalContent" | "reasoningSteps" | "toolCalls" | "toolCallId" | "toolName"
> & {
  /** Ids of the message's provider-executed tool calls (web search and other provider tools). */
  providerExecuted?: string[];
};

/**
 * The stored messages one `ModelMessage` stands for (see {@link fromModelMessages}): one for a
 * system, user or assistant message, one per tool result for a `tool` message.
 */
export function modelMessageFields(message: ModelMessage): ModelMessageFields[] {
  switch (message.role) {
    case "system":
      return [{ role: "system", originalContent: message.content }];
    case "user":
      return [{ role: "user", originalContent: textOf(message.content) }];
    case "assistant":
      return [{ role: "assistant", ...assistantFields(message.content) }];
    case "tool":
      return message.content.flatMap((part) => {
        if (part.type !== "tool-result") return [];
        const text = outputText(part.output);
        if (text === null) return [];
        return [
          {
            role: "tool" as const,
            originalContent: text,
            toolCallId: part.toolCallId,
            toolName: part.toolName,
          },
        ];
      });
    default:
      return [];
  }
}

/**
 * Converts AI SDK `ModelMessage[]` (a prompt and `await result.responseMessages` on ai 7, or
 * `(await result.response).messages` on ai 5/6) into messages for `storeMessages`: the inverse
 * of core's `toModelMessages`. Pure; ids and timestamps come from the options.
 *
 * - `system` / `user`: one message each; the text is the string content, or the text parts
 *   concatenated. Image and file parts are dropped.
 * - `assistant`: one message; text parts concatenated into `originalContent`, `reasoning` parts
 *   into `reasoningSteps`, `tool-call` parts into `toolCalls` (`input` as `arguments`; an input
 *   that is not an object is kept as `{ input }`). A provider-executed `tool-result` part in the
 *   same message becomes that call's `result`, and the ids of provider-executed calls are listed
 *   in `metadata["ai-sdk"].providerExecuted`. File, custom and approval parts are dropped.
 * - `tool`: one `tool` message per `tool-result` part, with `toolCallId`, `toolName` and the
 *   output as text: `text` / `error-text` verbatim, `json` / `error-json` as compact JSON,
 *   `execution-denied` as its reason, `content` as its text parts. An `error-text` result that is
 *   core's "unavailable" placeholder is a replay artefact, not a result, and is skipped.
 *
 * `saveModelMessages` also keeps each `ModelMessage` itself, so that `loadModelMessages` gives it
 * back exactly. Throws `ValidationError` for a message that is not a `ModelMessage` (an unknown
 * role, a content of the wrong type) and for values JSON cannot hold.
 */
export function fromModelMessages(
  messages: readonly ModelMessage[],
  options: FromModelMessagesOptions,
): MessageInput[] {
  assertModelMessages(messages);
  const timestamp = options.timestamp ?? Date.now();
  const fields = messages.flatMap(modelMessageFields);
  return fields.map(({ providerExecuted, ...message }, i) => {
    const metadata = withBridgeMetadata(
      options.metadata,
      providerExecuted ? { providerExecuted } : {},
    );
    return {
      id: options.messageId ? options.messageId(i) : newId(),
      conversationId: options.conversationId,
      userId: options.userId,
      timestamp,
      ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
      ...message,
    };
  });
}

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content.map((p) => (p.type === "text" ? (p.text ?? "") : "")).join("");
}

function assistantFields(
  content: Extract<ModelMessage, { role: "assistant" }>["content"],
): Omit<ModelMessageFields, "role" | "toolCallId" | "toolName"> {
  if (typeof content === "string") return { originalContent: content };
  let text = "";
  const reasoningSteps: string[] = [];
  const toolCalls: ToolCallInput[] = [];
  const providerExecuted: string[] = [];
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
        if (part.providerExecuted) providerExecuted.push(part.toolCallId);
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
    ...(providerExecuted.length > 0 ? { providerExecuted } : {}),
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

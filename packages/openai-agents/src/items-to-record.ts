import {
  type Json,
  type JsonObject,
  type MessageInput,
  type MessageRole,
  newId,
  type ToolCallInput,
  ValidationError,
} from "@message-store/core";
import type { AgentInputItem } from "@openai/agents";

/** Items that become a message of their own; every other item rides along with one. */
function isPrimary(item: AgentInputItem): boolean {
  return (
    item.type === undefined ||
    item.type === "message" ||
    item.type === "function_call" ||
    item.type === "function_call_result"
  );
}

/**
 * Splits a batch of items into the groups that become one message each: every message, function
 * call and function call result starts its own group; any other item (reasoning, hosted tool
 * calls, computer / shell / patch calls, compaction, …) joins the group of the next primary item
 * of the batch, or of the last one when none follows, or forms a group alone in a batch without
 * primary items.
 */
export function groupItems(items: readonly AgentInputItem[]): AgentInputItem[][] {
  const groups: AgentInputItem[][] = [];
  let pending: AgentInputItem[] = [];
  for (const item of items) {
    pending.push(item);
    if (isPrimary(item)) {
      groups.push(pending);
      pending = [];
    }
  }
  if (pending.length > 0) {
    if (groups.length > 0) groups[groups.length - 1]!.push(...pending);
    else groups.push(pending);
  }
  return groups;
}

/**
 * Items as they are stored: JSON, with binary data (the SDK normally sends data URLs already) as
 * `data:` URLs. Throws `ValidationError` for what JSON cannot hold.
 */
export function itemsAsJson(items: readonly AgentInputItem[]): Json[] {
  try {
    return JSON.parse(
      JSON.stringify(items, (_key, value) =>
        value instanceof Uint8Array
          ? `data:application/octet-stream;base64,${Buffer.from(value).toString("base64")}`
          : value,
      ),
    ) as Json[];
  } catch (error) {
    throw new ValidationError(`session items are not JSON: ${(error as Error).message}`, [], {
      adapter: "openai-agents",
      cause: error,
    });
  }
}

type Fields = Pick<
  MessageInput,
  "role" | "originalContent" | "toolCalls" | "toolCallId" | "toolName" | "reasoningSteps"
>;

function texts(content: unknown, types: readonly string[]): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part: { type?: string; text?: unknown; refusal?: unknown }) => {
    if (!part || !types.includes(part.type ?? "")) return [];
    const text = part.type === "refusal" ? part.refusal : part.text;
    return typeof text === "string" ? [text] : [];
  });
}

function argumentsOf(raw: unknown): JsonObject {
  if (typeof raw !== "string") return {};
  try {
    const parsed = JSON.parse(raw) as Json;
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed;
    return { input: parsed };
  } catch {
    return { input: raw };
  }
}

/** The text a function call result gave the model: its string, text part or text parts. */
export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return texts(output, ["input_text", "text"]).join("");
  const single = output as { type?: string; text?: unknown } | null;
  return single?.type === "text" && typeof single.text === "string" ? single.text : "";
}

/**
 * The message fields a group of items (JSON, see {@link itemsAsJson}) stands for:
 * - user / system / assistant message → that role, its text (input / output text parts and
 *   refusals concatenated; images, files and audio are not text);
 * - function call → `assistant` with one tool call (`callId`, `name`, `arguments` parsed; JSON
 *   that is not an object is kept as `{ input }`);
 * - function call result → `tool` with `toolCallId`, `toolName` and the output's text;
 * - reasoning → `reasoningSteps` (raw reasoning text, else the summary); a hosted tool call →
 *   a tool call whose `result` is its output; any other item only in the stored items.
 * A group without a primary item is an `assistant` message with no text. Every field is set, so
 * the result also resets a message rewritten from fewer items.
 */
export function fieldsOf(group: readonly AgentInputItem[]): Required<Fields> {
  const fields: Required<Fields> = {
    role: "assistant",
    originalContent: "",
    toolCalls: [],
    toolCallId: null,
    toolName: null,
    reasoningSteps: [],
  };
  const reasoning: string[] = [];
  const calls: ToolCallInput[] = [];
  for (const item of group) {
    switch (item.type) {
      case undefined:
      case "message": {
        fields.role = item.role as MessageRole;
        fields.originalContent = texts(item.content, ["input_text", "output_text", "refusal"]).join(
          "",
        );
        break;
      }
      case "function_call":
        calls.push({
          toolCallId: item.callId,
          toolName: item.name,
          arguments: argumentsOf(item.arguments),
        });
        break;
      case "function_call_result":
        fields.role = "tool";
        fields.toolCallId = item.callId;
        fields.toolName = item.name;
        fields.originalContent = outputText(item.output);
        break;
      case "reasoning": {
        const raw = texts(item.rawContent, ["reasoning_text"]);
        reasoning.push(...(raw.length > 0 ? raw : texts(item.content, ["input_text"])));
        break;
      }
      case "hosted_tool_call":
        calls.push({
          toolCallId: item.id ?? newId(),
          toolName: item.name,
          arguments: argumentsOf(item.arguments),
          ...(item.output === undefined ? {} : { result: item.output }),
        });
        break;
    }
  }
  if (fields.role === "assistant") fields.toolCalls = calls;
  fields.reasoningSteps = reasoning;
  return fields;
}

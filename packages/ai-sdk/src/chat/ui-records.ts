import {
  type Json,
  type JsonObject,
  type Message,
  type MessageInput,
  type ToolCall,
  UNAVAILABLE_TOOL_RESULT,
} from "@message-store/core";
import { convertToModelMessages, type ToolSet, type UIMessage } from "ai";
import { fromModelMessages } from "../from-model-messages.js";
import { isJsonObject, parseStructuredJson, toJson } from "../json-value.js";

// How a UIMessage lives in the store. It is converted by the AI SDK's own
// `convertToModelMessages` and then `fromModelMessages`, so other tools (replay, CLI, analytics)
// see ordinary messages: one per step, tool results as `tool` messages. The first of them keeps
// the UIMessage's id and carries the UIMessage itself under `metadata["ai-sdk"].ui`, so that
// loading gives back exactly the parts that were saved; the others get `<id>:<n>` ids and point
// back with `metadata["ai-sdk"].uiMessageId`.

const KEY = "ai-sdk";

interface StoredUI {
  role: UIMessage["role"];
  parts: Json[];
  metadata?: Json;
}

/** A UIMessage read back, with the stored messages that hold it. */
export interface LoadedUIMessage {
  ui: UIMessage;
  records: Message[];
}

function bridgeMetadata(record: Message): { ui?: StoredUI; uiMessageId?: string } {
  const value = record.metadata[KEY];
  return isJsonObject(value ?? null) ? (value as { ui?: StoredUI; uiMessageId?: string }) : {};
}

/** The UIMessage as JSON, the way the AI SDK's persistence guide writes it. */
export function uiAsJson(message: UIMessage): UIMessage {
  return toJson(message, `UIMessage ${JSON.stringify(message.id)}`) as unknown as UIMessage;
}

/** The stored messages of one UIMessage (already JSON, see {@link uiAsJson}), in order. */
export async function uiMessageToInputs(
  message: UIMessage,
  target: { conversationId: string; userId: string; timestamp: number; tools?: ToolSet },
): Promise<MessageInput[]> {
  const model = await convertToModelMessages([message], {
    tools: target.tools,
    ignoreIncompleteToolCalls: true,
  });
  const inputs = fromModelMessages(model, {
    conversationId: target.conversationId,
    userId: target.userId,
    timestamp: target.timestamp,
    messageId: (i) => (i === 0 ? message.id : `${message.id}:${i}`),
    metadata: { [KEY]: { uiMessageId: message.id } },
  });
  const stored: StoredUI = {
    role: message.role,
    parts: message.parts as unknown as Json[],
    ...(message.metadata === undefined ? {} : { metadata: message.metadata as Json }),
  };
  const head = inputs[0] ?? {
    id: message.id,
    conversationId: target.conversationId,
    userId: target.userId,
    role: message.role,
    originalContent: "",
    timestamp: target.timestamp,
  };
  inputs[0] = { ...head, metadata: { [KEY]: { ui: stored as unknown as JsonObject } } };
  return inputs;
}

/**
 * The UIMessages of a transcript (non-flagged messages, oldest first). Messages saved as
 * UIMessages come back exactly as saved. Messages written any other way (core, other bridges,
 * {@link saveModelMessages}) come back one UIMessage per message with the same id: user and
 * system text as a text part; an assistant message as a step, with its reasoning, its text and
 * one `dynamic-tool` part per call holding the result of the `tool` message that answers it (JSON
 * objects and arrays parsed), or the call's stored `result`, or an "unavailable" error. `tool`
 * messages are folded into their call; one that answers no call is left out.
 */
export function recordsToUIMessages(records: readonly Message[]): LoadedUIMessage[] {
  const answers = new Map<string, Message>();
  for (const r of records) {
    if (r.role === "tool" && r.toolCallId !== null && !bridgeMetadata(r).uiMessageId) {
      if (!answers.has(r.toolCallId)) answers.set(r.toolCallId, r);
    }
  }
  const out: LoadedUIMessage[] = [];
  const byId = new Map<string, LoadedUIMessage>();
  for (const r of records) {
    const meta = bridgeMetadata(r);
    if (meta.ui) {
      const ui = {
        id: r.id,
        role: meta.ui.role,
        parts: meta.ui.parts,
        ...(meta.ui.metadata === undefined ? {} : { metadata: meta.ui.metadata }),
      } as unknown as UIMessage;
      const loaded = { ui, records: [r] };
      out.push(loaded);
      byId.set(r.id, loaded);
    } else if (meta.uiMessageId !== undefined) {
      byId.get(meta.uiMessageId)?.records.push(r);
    } else if (r.role === "user" || r.role === "system") {
      out.push({
        ui: { id: r.id, role: r.role, parts: [{ type: "text", text: r.originalContent }] },
        records: [r],
      });
    } else if (r.role === "assistant" || r.role === "colleague_assistant") {
      out.push(assistantUIMessage(r, answers));
    }
  }
  return out;
}

function assistantUIMessage(record: Message, answers: Map<string, Message>): LoadedUIMessage {
  const parts: UIMessage["parts"] = [{ type: "step-start" }];
  for (const text of record.reasoningSteps) parts.push({ type: "reasoning", text, state: "done" });
  if (record.originalContent !== "") {
    parts.push({ type: "text", text: record.originalContent, state: "done" });
  }
  const records = [record];
  for (const call of record.toolCalls) {
    const answer = answers.get(call.toolCallId);
    if (answer) records.push(answer);
    parts.push(toolPart(call, answer));
  }
  return { ui: { id: record.id, role: "assistant", parts }, records };
}

function toolPart(call: ToolCall, answer: Message | undefined): UIMessage["parts"][number] {
  const base = {
    type: "dynamic-tool" as const,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    input: call.arguments,
  };
  if (answer) {
    const text = answer.originalContent;
    return { ...base, state: "output-available", output: parseStructuredJson(text) ?? text };
  }
  if (call.result !== null) return { ...base, state: "output-available", output: call.result };
  return { ...base, state: "output-error", errorText: UNAVAILABLE_TOOL_RESULT };
}

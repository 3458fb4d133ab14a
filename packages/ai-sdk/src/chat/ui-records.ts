import { createHash } from "node:crypto";
import {
  type Json,
  type JsonObject,
  type Message,
  type SessionTurn,
  type ToolCall,
  UNAVAILABLE_TOOL_RESULT,
} from "@message-store/core";
import { convertToModelMessages, type ToolSet, type UIMessage } from "ai";
import { bridgeMetadata, type StoredUI, withBridgeMetadata } from "../bridge-metadata.js";
import { fromModelMessages } from "../from-model-messages.js";
import { parseStructuredJson, toJson } from "../json-value.js";
import type { SystemMessages } from "../model-window.js";

// How a UIMessage lives in the store. It is converted by the AI SDK's own
// `convertToModelMessages` and then `fromModelMessages`, so other tools (replay, CLI, analytics)
// see ordinary messages: one per step, tool results as `tool` messages. The first of them
// carries the UIMessage itself under `metadata["ai-sdk"].ui`, so that loading gives back exactly
// the parts that were saved; the others point back with `metadata["ai-sdk"].uiMessageId`.

/** A UIMessage read back, with the stored messages that hold it. */
export interface LoadedUIMessage {
  ui: UIMessage;
  records: Message[];
}

/**
 * The id of the first stored message of UIMessage `uiMessageId` in chat `chatId` (the others are
 * `<id>:1`, `<id>:2`, …): derived from both, so that the same UIMessage in two chats (a copied
 * or forked chat) is two stored messages, and saving it again rewrites the same ones. A UUID
 * (version 8) built from a SHA-256 of the two ids.
 */
export function chatMessageId(chatId: string, uiMessageId: string): string {
  const hex = createHash("sha256").update(`${chatId}\u0000${uiMessageId}`).digest("hex");
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The UIMessage as JSON, the way the AI SDK's persistence guide writes it. */
export function uiAsJson(message: UIMessage): UIMessage {
  return toJson(message, `UIMessage ${JSON.stringify(message.id)}`) as unknown as UIMessage;
}

/**
 * The turns of `storeSessionMessages` that store one UIMessage (already JSON, see
 * {@link uiAsJson}), in order, the first with id `baseId`.
 */
export async function uiMessageTurns(
  message: UIMessage,
  baseId: string,
  tools: ToolSet | undefined,
): Promise<SessionTurn[]> {
  const model = await convertToModelMessages([message], { tools, ignoreIncompleteToolCalls: true });
  const inputs = fromModelMessages(model, {
    conversationId: "-",
    userId: "-",
    messageId: (i) => (i === 0 ? baseId : `${baseId}:${i}`),
    metadata: withBridgeMetadata(undefined, { uiMessageId: message.id }),
  });
  const turns: SessionTurn[] = inputs.map(
    ({ conversationId: _c, userId: _u, timestamp: _t, originalContent, ...fields }) => ({
      ...fields,
      content: originalContent,
    }),
  );
  const stored: StoredUI = {
    id: message.id,
    role: message.role,
    parts: message.parts as unknown as Json[],
    ...(message.metadata === undefined ? {} : { metadata: message.metadata as Json }),
  };
  const head = turns[0] ?? { id: baseId, role: message.role, content: "" };
  const { uiMessageId: _, ...rest } = bridgeMetadata({
    metadata: (head.metadata ?? {}) as JsonObject,
  });
  turns[0] = { ...head, metadata: withBridgeMetadata(undefined, { ...rest, ui: stored }) };
  return turns;
}

/**
 * The UIMessages of a transcript (non-flagged messages, oldest first). Messages saved as
 * UIMessages come back exactly as saved. Messages written any other way (core, other bridges,
 * `saveModelMessages`) come back one UIMessage per message with the stored id: user (and, with
 * `systemMessages: "keep"`, system) text as a text part; an assistant message as a step, with
 * its reasoning, its text and one `dynamic-tool` part per call (`providerExecuted` as stored)
 * holding the result of the `tool` message that answers it (JSON objects and arrays parsed), or
 * the call's stored `result`, or an "unavailable" error. `tool` messages are folded into their
 * call; one that answers no call is left out.
 */
export function recordsToUIMessages(
  records: readonly Message[],
  systemMessages: SystemMessages = "omit",
): LoadedUIMessage[] {
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
        id: meta.ui.id,
        role: meta.ui.role,
        parts: meta.ui.parts,
        ...(meta.ui.metadata === undefined ? {} : { metadata: meta.ui.metadata }),
      } as unknown as UIMessage;
      const loaded = { ui, records: [r] };
      out.push(loaded);
      byId.set(meta.ui.id, loaded);
    } else if (meta.uiMessageId !== undefined) {
      byId.get(meta.uiMessageId)?.records.push(r);
    } else if (r.role === "user" || (r.role === "system" && systemMessages === "keep")) {
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
  const providerExecuted = new Set(bridgeMetadata(record).providerExecuted ?? []);
  for (const call of record.toolCalls) {
    const answer = answers.get(call.toolCallId);
    if (answer) records.push(answer);
    parts.push(toolPart(call, answer, providerExecuted.has(call.toolCallId)));
  }
  return { ui: { id: record.id, role: "assistant", parts }, records };
}

function toolPart(
  call: ToolCall,
  answer: Message | undefined,
  providerExecuted: boolean,
): UIMessage["parts"][number] {
  const base = {
    type: "dynamic-tool" as const,
    toolName: call.toolName,
    toolCallId: call.toolCallId,
    input: call.arguments,
    ...(providerExecuted ? { providerExecuted: true } : {}),
  };
  if (answer) {
    const text = answer.originalContent;
    return { ...base, state: "output-available", output: parseStructuredJson(text) ?? text };
  }
  if (call.result !== null) return { ...base, state: "output-available", output: call.result };
  return { ...base, state: "output-error", errorText: UNAVAILABLE_TOOL_RESULT };
}

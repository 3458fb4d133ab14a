import { type Message, type ReplayOptions, toModelMessages } from "@message-store/core";
import type { AssistantModelMessage, ModelMessage } from "ai";
import { bridgeMetadata } from "./bridge-metadata.js";
import { modelMessageFields } from "./from-model-messages.js";

/** How stored `system` messages are loaded; see {@link LoadModelMessagesOptions}. */
export type SystemMessages = "omit" | "keep";

/**
 * An assistant `original` with its text replaced by `text`, the shortened text `compress` gave
 * the stored message: a string content becomes `text`, text parts one part where the first was.
 */
function withText(original: AssistantModelMessage, text: string): ModelMessage {
  if (typeof original.content === "string") return { ...original, content: text };
  const parts: typeof original.content = [...original.content];
  const at = parts.findIndex((p) => p.type === "text");
  const rest: typeof parts = parts.filter((p) => p.type !== "text");
  rest.splice(Math.max(at, 0), 0, { type: "text", text });
  return { ...original, content: rest };
}

/**
 * The original of a stored message written by `saveModelMessages`; an assistant message that
 * `compress` shortened (its text is not the original's) with the shortened text.
 */
function originalOf(record: Message): ModelMessage | undefined {
  const { model } = bridgeMetadata(record);
  if (!model) return undefined;
  const original = model as unknown as ModelMessage;
  if (original.role !== "assistant") return original;
  const [fields] = modelMessageFields(original);
  return fields?.originalContent === record.originalContent
    ? original
    : withText(original, record.originalContent);
}

/** Drops tool results whose call is not in `messages` before them (a window cut it off). */
function withoutOrphanResults(messages: ModelMessage[]): ModelMessage[] {
  const calls = new Set<string>();
  const out: ModelMessage[] = [];
  for (const message of messages) {
    if (message.role === "assistant" && typeof message.content !== "string") {
      for (const part of message.content) if (part.type === "tool-call") calls.add(part.toolCallId);
    }
    if (message.role !== "tool") {
      out.push(message);
      continue;
    }
    const content = message.content.filter(
      (part) => part.type !== "tool-result" || calls.has(part.toolCallId),
    );
    if (content.length > 0) out.push({ ...message, content });
  }
  return out;
}

/**
 * A window of stored messages (oldest first) as AI SDK `ModelMessage[]`. Messages written by
 * `saveModelMessages` give back the `ModelMessage` that was saved (once, from its first stored
 * message); runs of other messages go through core's `toModelMessages` (tool calls paired with
 * their results). Tool results whose call is older than the window are dropped; `system`
 * messages are dropped unless `systemMessages` is `"keep"`.
 */
export function modelMessagesOf(
  window: readonly Message[],
  options: ReplayOptions & { systemMessages?: SystemMessages } = {},
): ModelMessage[] {
  const { systemMessages = "omit", ...replay } = options;
  const out: ModelMessage[] = [];
  let others: Message[] = [];
  const flush = () => {
    if (others.length > 0) out.push(...(toModelMessages(others, replay) as ModelMessage[]));
    others = [];
  };
  for (const record of window) {
    const meta = bridgeMetadata(record);
    if (meta.modelMessageId !== undefined) continue; // part of a ModelMessage given by its first
    const original = originalOf(record);
    if (!original) {
      others.push(record);
      continue;
    }
    flush();
    out.push(original);
  }
  flush();
  const kept = systemMessages === "keep" ? out : out.filter((m) => m.role !== "system");
  return withoutOrphanResults(kept);
}

import type { Message } from "../models/message.js";

/** How `getImmediateContext(…, { compress })` shortens long assistant messages. */
export interface CompressOptions {
  /** Assistant messages whose `originalContent` is longer than this are compressed. */
  maxChars: number;
  /** Characters kept from the head and from the tail. */
  keepChars: number;
}

const COMPRESSIBLE: ReadonlySet<Message["role"]> = new Set(["assistant", "colleague_assistant"]);

/** The hint put between head and tail; it names the message and how to get it back. */
export function compressionHint(messageId: string, omitted: number): string {
  return `\n\n… [message truncated: ${omitted} characters omitted — call getMessage(${JSON.stringify(messageId)}) to recover the full text] …\n\n`;
}

/** Moves a cut index off the middle of a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/**
 * Returns the messages with every long assistant message replaced by head + hint + tail. User,
 * tool and system messages are never touched; nor is a message the hint would not shorten. The
 * input array and its messages are not mutated; order is kept.
 */
export function compressMessages(
  messages: readonly Message[],
  options: CompressOptions,
): Message[] {
  return messages.map((m) => {
    const text = m.originalContent;
    if (!COMPRESSIBLE.has(m.role) || text.length <= options.maxChars) return m;
    const headEnd = safeCut(text, options.keepChars);
    const tailStart = safeCut(text, text.length - options.keepChars);
    if (tailStart <= headEnd) return m;
    const omitted = tailStart - headEnd;
    const compressed =
      text.slice(0, headEnd) + compressionHint(m.id, omitted) + text.slice(tailStart);
    return compressed.length < text.length ? { ...m, originalContent: compressed } : m;
  });
}

import type { Message } from "../models/message.js";
import { LOOKUP_MESSAGE_TOOL } from "./lookup-message-tool.js";

/** Assistant messages longer than this many characters are compressed by default. */
export const DEFAULT_MAX_CHARS = 1000;
/** Characters kept from the head and from the tail by default (as in the original design). */
export const DEFAULT_KEEP_CHARS = 200;

/**
 * How compression shortens long assistant messages. Both fields default: `maxChars` to
 * {@link DEFAULT_MAX_CHARS}, `keepChars` to {@link DEFAULT_KEEP_CHARS}.
 */
export interface CompressOptions {
  /** Assistant messages whose `originalContent` is longer than this are compressed. */
  maxChars?: number;
  /** Characters kept from the head and from the tail. */
  keepChars?: number;
}

const COMPRESSIBLE: ReadonlySet<Message["role"]> = new Set(["assistant", "colleague_assistant"]);

/**
 * The hint put between head and tail: it says how much was cut and names the tool the model can
 * call to get the text back ({@link LOOKUP_MESSAGE_TOOL}, see `lookupMessage`).
 */
export function compressionHint(messageId: string, omitted: number): string {
  return `\n\n… [message truncated: ${omitted} characters omitted — call the ${LOOKUP_MESSAGE_TOOL} tool with id ${JSON.stringify(messageId)} to recover the full text] …\n\n`;
}

/** Moves a cut index off the middle of a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xdc00 && code <= 0xdfff ? index - 1 : index;
}

/** The options with their defaults filled; `true` means the defaults. */
export function compressionSizes(options: CompressOptions | true): Required<CompressOptions> {
  const o = options === true ? {} : options;
  return {
    maxChars: o.maxChars ?? DEFAULT_MAX_CHARS,
    keepChars: o.keepChars ?? DEFAULT_KEEP_CHARS,
  };
}

/**
 * Returns the messages with every long assistant message replaced by head + hint + tail. User,
 * tool and system messages are never touched; nor is a message the hint would not shorten. The
 * input array and its messages are not mutated; order is kept.
 */
export function compressMessages(
  messages: readonly Message[],
  options: CompressOptions | true = {},
): Message[] {
  const { maxChars, keepChars } = compressionSizes(options);
  return messages.map((m) => {
    const text = m.originalContent;
    if (!COMPRESSIBLE.has(m.role) || text.length <= maxChars) return m;
    const headEnd = safeCut(text, keepChars);
    const tailStart = safeCut(text, text.length - keepChars);
    if (tailStart <= headEnd) return m;
    const omitted = tailStart - headEnd;
    const compressed =
      text.slice(0, headEnd) + compressionHint(m.id, omitted) + text.slice(tailStart);
    return compressed.length < text.length ? { ...m, originalContent: compressed } : m;
  });
}

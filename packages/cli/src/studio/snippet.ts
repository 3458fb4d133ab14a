import { foldAscii } from "@message-store/core/adapter";
import type { Snippet } from "./api-types.js";

/** Characters of context kept on each side of a match. */
const AROUND = 60;

/**
 * The part of `text` around the first match of `query` (ASCII letters case-insensitively, as
 * `searchConversations` matches), split so the page can highlight the match.
 */
export function snippet(text: string, query: string): Snippet {
  const at = foldAscii(text).indexOf(foldAscii(query));
  if (at < 0) return { before: text.slice(0, 2 * AROUND), match: "", after: "" };
  const start = Math.max(0, at - AROUND);
  const end = Math.min(text.length, at + query.length + AROUND);
  return {
    before: (start > 0 ? "…" : "") + text.slice(start, at),
    match: text.slice(at, at + query.length),
    after: text.slice(at + query.length, end) + (end < text.length ? "…" : ""),
  };
}

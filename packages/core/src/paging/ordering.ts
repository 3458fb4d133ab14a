import type { CheckpointKey, ConversationKey, MessageKey, TraceKey } from "./cursor.js";

/**
 * Compares strings by Unicode code point, which is the byte order of their UTF-8 encoding: the
 * order PostgreSQL (`COLLATE "C"`) and MongoDB (simple binary) use, so ties break identically on
 * every adapter. Plain `<` compares UTF-16 code units and differs above U+FFFF.
 */
export function compareIds(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
    if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** Messages: `timestamp` ascending, then `sequence` (first-received order) ascending. */
export function compareMessageKeys(a: MessageKey, b: MessageKey): number {
  return a.timestamp - b.timestamp || a.sequence - b.sequence;
}

/** Conversations: `lastActivityAt` descending, then `id` ascending. */
export function compareConversationKeys(a: ConversationKey, b: ConversationKey): number {
  return b.lastActivityAt - a.lastActivityAt || compareIds(a.id, b.id);
}

/** Traces: `timestamp` descending, then `id` descending. */
export function compareTraceKeys(a: TraceKey, b: TraceKey): number {
  return b.timestamp - a.timestamp || compareIds(b.id, a.id);
}

/** Checkpoints: `id` descending, then `conversationId` descending, then `namespace` descending. */
export function compareCheckpointKeys(a: CheckpointKey, b: CheckpointKey): number {
  return (
    compareIds(b.id, a.id) ||
    compareIds(b.conversationId, a.conversationId) ||
    compareIds(b.namespace, a.namespace)
  );
}

import { IntegrityError } from "../errors.js";

/**
 * Why `storeSessionMessages` refuses a conversation whose activity is at the end of time: its
 * new messages follow `lastActivityAt` (`max(now, lastActivityAt + 1) + i`), and no timestamp
 * exceeds `Number.MAX_SAFE_INTEGER`. One message stored at that timestamp (by `storeMessage`,
 * which takes timestamps as given) leaves no later one to give.
 */
export function endOfTimeMessage(conversationId: string, lastActivityAt: number): string {
  return `conversation ${JSON.stringify(conversationId)}: its activity is at the end of time (lastActivityAt ${lastActivityAt}; no timestamp exceeds Number.MAX_SAFE_INTEGER = ${Number.MAX_SAFE_INTEGER}), so storeSessionMessages has no later timestamp for a new message. Correct the message or conversation carrying that timestamp, or store messages with timestamps of your own (storeMessages)`;
}

/**
 * For a driver's `storeSessionMessages`, inside its atomic write once the timestamps are chosen:
 * throws the `IntegrityError` of {@link endOfTimeMessage} when `newest`, the greatest timestamp
 * given to a new message, exceeds `Number.MAX_SAFE_INTEGER` (nothing may be stored then).
 */
export function checkSessionTimestamps(
  conversationId: string,
  newest: number,
  lastActivityAt: number,
): void {
  if (newest <= Number.MAX_SAFE_INTEGER) return;
  throw new IntegrityError(
    `${endOfTimeMessage(conversationId, lastActivityAt)}; nothing was stored`,
  );
}

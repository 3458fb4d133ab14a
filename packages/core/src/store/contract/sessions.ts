import type { ConversationRecord } from "../../models/conversation.js";
import type { Message } from "../../models/message.js";
import type { LoadSessionOptions } from "../../models/queries.js";
import type { SessionOptions, SessionTurn } from "../../models/session.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { DriverRequest } from "./requests.js";

/** Sessions: plain turns stored with timestamps chosen inside the write, and read back whole. What the caller sees. */
export interface SessionsApi {
  /**
   * Stores plain turns (`{ role, content, toolCalls?, … }`) in a conversation in one atomic
   * write: each becomes a message with a new UUID v7 id (unless the turn has one) and a timestamp
   * after the conversation's newest activity (`max(now, lastActivityAt + 1)`, then `+ 1` per
   * turn in array order), chosen inside the write, and the conversation (with `userId`,
   * `agentId`, `tenantId`, `title`) is created if it is missing. Two calls racing on one session
   * therefore never interleave: each call's messages are contiguous in the transcript. A turn
   * whose id is already stored in the conversation keeps its stored timestamp and place, so a
   * retried call (same turn ids) is an idempotent upsert that keeps the transcript's order.
   * Resolves to the stored messages in input order. Throws `IntegrityError` when the
   * conversation belongs to another user or tenant, is soft-deleted, or its activity is at the
   * end of time (a new message's timestamp would exceed `Number.MAX_SAFE_INTEGER`, which one
   * message stored at that timestamp causes; nothing is stored).
   */
  storeSessionMessages(
    conversationId: string,
    turns: SessionTurn[],
    options: SessionOptions,
  ): Promise<Message[]>;

  /**
   * The whole live transcript in order (flagged messages included), read page by page; with
   * `compress`, long assistant messages shortened as in `getImmediateContext`. An unknown
   * conversation gives `[]`.
   */
  loadSessionMessages(conversationId: string, options?: LoadSessionOptions): Promise<Message[]>;
}

/** Sessions: plain turns stored with timestamps chosen inside the write, and read back whole. What a driver implements. */
export interface SessionsDriver {
  /**
   * `storeSessionMessages`: like `storeMessages` for messages of one conversation, which
   * the same atomic write creates from `conversation` if it is missing (an existing one is left
   * as it is and the ownership rules are checked against it). Inside that write, under the same
   * lock as the messages, the timestamps are chosen: each message whose id is already stored in
   * the conversation keeps its stored timestamp (and its place); each other message `i` (array
   * index) gets `start + i`, where `start = max(now, lastActivityAt + 1)` of the conversation at
   * that moment (`now` for a new one). Core passes `timestamp = now + i`, so `start - now` is the
   * shift to add. Concurrent calls on one session therefore never interleave, and a retry keeps
   * the stored order. A new message's timestamp past `Number.MAX_SAFE_INTEGER` refuses the whole
   * write inside it (`checkSessionTimestamps` from `@message-store/core/adapter`).
   */
  storeSessionMessages(
    request: DriverRequest & {
      conversation: ConversationRecord;
      messages: readonly Message[];
      now: number;
    },
  ): Promise<Message[]>;
}

/** The driver operations of this family, as the operation table lists them. */
export const SESSIONS = {
  storeSessionMessages: { write: true, owned: true },
} as const satisfies FamilySpecs<SessionsDriver>;

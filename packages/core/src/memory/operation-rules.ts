import { IntegrityError } from "../errors.js";
import type { ConversationRecord } from "../models/conversation.js";
import type { Message } from "../models/message.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { ownerRefusal } from "../store/owner-refusal.js";
import type { MemoryState, StoredConversation } from "./memory-state.js";

/**
 * `live`: a call of the API, checked against every rule of the contract. `replay`: a journal
 * line, which was checked when it was written — possibly by an older version with fewer rules
 * (a conversation's owner could change, a trace could move), so only the referential rules the
 * state itself needs are checked again.
 */
export type CheckMode = "live" | "replay";

/*
 * The contract's integrity rules for writes, checked against the state inside the write (check
 * and apply run back to back), and how a record is stored once accepted. A record named by a
 * write that is missing or stored under another owner is refused with `ownerRefusal`, so that a
 * view cannot tell the two apart; every other rule is a plain `IntegrityError`.
 */

const integrity = (message: string) => new IntegrityError(message);
const q = JSON.stringify;

/** A conversation upsert: its owner and its `deletedAt` never change through an upsert. */
export function checkConversation(state: MemoryState, c: ConversationRecord): void {
  const old = state.conversations.get(c.id);
  if (!old) return;
  if (old.userId !== c.userId || old.tenantId !== c.tenantId) {
    throw ownerRefusal(
      `conversation ${q(c.id)} exists with another userId or tenantId; a conversation's owner never changes`,
      "conversation",
      c.id,
    );
  }
  if (old.deletedAt !== c.deletedAt) {
    throw integrity(
      `conversation ${q(c.id)}: deletedAt changes only through softDeleteConversation and restoreConversation`,
    );
  }
}

/**
 * The conversation a session write (`storeSessionMessages`, a checkpoint put) names: created
 * from `conversation` when missing, else its owner must be the write's (`ownerRefusal`) and it
 * must be live. Returns the stored one, or `undefined` when the write creates it.
 */
export function checkSessionConversation(
  state: MemoryState,
  conversation: ConversationRecord,
): StoredConversation | undefined {
  const existing = state.conversations.get(conversation.id);
  if (!existing) return undefined;
  const tenant = conversation.tenantId;
  if (existing.userId !== conversation.userId || (tenant !== null && existing.tenantId !== tenant))
    throw ownerRefusal(
      `conversation ${q(conversation.id)} belongs to another owner`,
      "conversation",
      conversation.id,
    );
  if (existing.deletedAt !== null)
    throw integrity(`conversation ${q(conversation.id)} is soft-deleted; restore it first`);
  return existing;
}

/** A journaled checkpoint write: its conversation exists, or the write creates it. */
export function checkThread(
  state: MemoryState,
  conversationId: string,
  ensure: ConversationRecord | undefined,
): void {
  if (!state.conversations.has(conversationId) && ensure?.id !== conversationId)
    throw integrity(`checkpoint of conversation ${q(conversationId)}, which does not exist`);
}

/** A batch of messages (with the conversation `storeSessionMessages` creates if missing). */
export function checkMessages(
  state: MemoryState,
  messages: readonly Message[],
  ensure: ConversationRecord | undefined,
  mode: CheckMode,
): void {
  for (const m of messages) {
    const c =
      state.conversations.get(m.conversationId) ??
      (ensure?.id === m.conversationId ? ensure : undefined);
    if (!c) {
      throw ownerRefusal(
        `message ${q(m.id)}: conversation ${q(m.conversationId)} does not exist`,
        "conversation",
        m.conversationId,
      );
    }
    const existing = state.messages.get(m.id)?.message;
    if (mode === "live") {
      if (m.userId !== c.userId || (m.tenantId !== null && m.tenantId !== c.tenantId)) {
        throw ownerRefusal(
          `message ${q(m.id)}: its userId and tenantId must be those of conversation ${q(m.conversationId)}`,
          "conversation",
          m.conversationId,
        );
      }
      if (existing && (existing.userId !== c.userId || existing.tenantId !== c.tenantId)) {
        throw ownerRefusal(`message ${q(m.id)} exists under another owner`, "message", m.id);
      }
    }
    if (existing && existing.conversationId !== m.conversationId) {
      throw integrity(
        `message ${q(m.id)} belongs to conversation ${q(existing.conversationId)} and cannot move to ${q(m.conversationId)}`,
      );
    }
    if (mode === "replay") continue;
    if (
      existing ? existing.deletedAt !== m.deletedAt : c.deletedAt !== null && m.deletedAt === null
    ) {
      throw integrity(
        existing
          ? `message ${q(m.id)}: deletedAt changes only through softDeleteMessage and restoreMessage`
          : `message ${q(m.id)}: conversation ${q(m.conversationId)} is soft-deleted; restore it first`,
      );
    }
  }
}

/**
 * What a write stores before its traces, which they may name: the messages it stores (as they
 * will be stored) and the conversation it creates.
 */
export interface WriteContext {
  readonly messages: ReadonlyMap<string, Message>;
  readonly conversation?: ConversationRecord;
}

/**
 * A trace upsert: its conversation and message exist and are its owner's, one trace per message,
 * no moving. Ownership is checked first, in the driver contract's order (the conversation's
 * owner, the message's, the message's conversation, the trace id's owner), so a view learns
 * nothing of another owner's records. `claimed` holds the messages that traces earlier in the
 * same batch take (message id → trace id), so a batch is checked as consecutive writes would be,
 * before any is applied.
 */
export function checkTrace(
  state: MemoryState,
  t: TurnTrace,
  mode: CheckMode,
  claimed?: ReadonlyMap<string, string>,
  within?: WriteContext,
): void {
  const message = within?.messages.get(t.messageId) ?? state.messages.get(t.messageId)?.message;
  if (mode === "live") checkTraceOwners(state, t, message, within?.conversation);
  if (!message) throw integrity(`turn trace ${q(t.id)}: message ${q(t.messageId)} does not exist`);
  if (message.conversationId !== t.conversationId) {
    throw integrity(
      `turn trace ${q(t.id)}: message ${q(t.messageId)} belongs to conversation ${q(message.conversationId)}, not ${q(t.conversationId)}`,
    );
  }
  const old = mode === "live" ? state.traces.get(t.id) : undefined;
  if (old && (old.userId !== message.userId || old.tenantId !== message.tenantId)) {
    throw ownerRefusal(`turn trace ${q(t.id)} exists under another owner`, "turn trace", t.id);
  }
  const other = claimed?.get(t.messageId) ?? state.traceIdByMessage.get(t.messageId);
  if (other !== undefined && other !== t.id) {
    throw integrity(`message ${q(t.messageId)} already has turn trace ${q(other)}`);
  }
  if (mode === "replay") return;
  if (old && old.messageId !== t.messageId) {
    throw integrity(`turn trace ${q(t.id)} belongs to another message; a trace cannot move`);
  }
  if (old ? old.deletedAt !== t.deletedAt : message.deletedAt !== null && t.deletedAt === null) {
    throw integrity(
      old
        ? `turn trace ${q(t.id)}: deletedAt changes only with its message`
        : `turn trace ${q(t.id)}: message ${q(t.messageId)} is soft-deleted; restore it first`,
    );
  }
}

/** The conversation a trace names exists and is its owner's, and so is its message. */
function checkTraceOwners(
  state: MemoryState,
  t: TurnTrace,
  message: Message | undefined,
  created: ConversationRecord | undefined,
): void {
  const c =
    state.conversations.get(t.conversationId) ??
    (created?.id === t.conversationId ? created : undefined);
  if (
    !c ||
    (t.userId !== null && t.userId !== c.userId) ||
    (t.tenantId !== null && t.tenantId !== c.tenantId)
  ) {
    throw ownerRefusal(
      c
        ? `turn trace ${q(t.id)}: its userId and tenantId must be those of conversation ${q(t.conversationId)}`
        : `turn trace ${q(t.id)}: conversation ${q(t.conversationId)} does not exist`,
      "conversation",
      t.conversationId,
    );
  }
  if (!message || message.userId !== c.userId || message.tenantId !== c.tenantId) {
    throw ownerRefusal(
      `turn trace ${q(t.id)}: message ${q(t.messageId)} does not exist`,
      "message",
      t.messageId,
    );
  }
}

/** `restoreMessage`: `false` when absent or live; refused while the conversation is soft-deleted. */
export function checkRestoreMessage(state: MemoryState, id: string): boolean {
  const m = state.messages.get(id)?.message;
  if (!m || m.deletedAt === null) return false;
  if (state.conversations.get(m.conversationId)?.deletedAt !== null) {
    throw integrity(
      `message ${q(id)}: conversation ${q(m.conversationId)} is soft-deleted; restore the conversation`,
    );
  }
  return true;
}

/**
 * The message as stored: `tenantId` filled from the conversation, and an embedding that was
 * computed from the previous text (passed back unchanged while the text changed) cleared.
 * Returns `m` itself when nothing changes.
 */
export function storedMessage(state: MemoryState, m: Message): Message {
  const tenantId = state.conversations.get(m.conversationId)?.tenantId ?? null;
  const old = state.messages.get(m.id)?.message;
  const stale =
    old !== undefined &&
    m.embedding !== null &&
    old.originalContent !== m.originalContent &&
    sameVector(old.embedding, m.embedding);
  if (m.tenantId === tenantId && !stale) return m;
  return { ...m, tenantId: m.tenantId ?? tenantId, embedding: stale ? null : m.embedding };
}

/** The trace as stored: `userId` and `tenantId` filled from the conversation when `null`. */
export function storedTrace(state: MemoryState, t: TurnTrace): TurnTrace {
  const c = state.conversations.get(t.conversationId);
  if (!c) return t;
  const userId = t.userId ?? c.userId;
  const tenantId = t.tenantId ?? c.tenantId;
  return userId === t.userId && tenantId === t.tenantId ? t : { ...t, userId, tenantId };
}

function sameVector(a: readonly number[] | null, b: readonly number[]): boolean {
  if (a === null || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

import { IntegrityError } from "@message-store/core";
import { endOfTimeMessage, ownerRefusal } from "@message-store/core/adapter";

/** The record a write names: a conversation, a message or a trace (ids only). */
export interface Written {
  readonly id: string;
  readonly conversationId?: string;
  readonly messageId?: string;
}

const q = JSON.stringify;
const parentOf = (r: Written) => r.conversationId ?? r.id;

/**
 * Why a script refused a write, by the code it raises (`refuse(code, i)` in `lua/keys.ts`): the
 * owner refusals core answers as "does not exist" through a view, and the plain rule violations.
 * The scripts raise codes, not text, because only this side knows the ids to name.
 */
const REFUSALS = {
  "conversation-missing": (r: Written) =>
    ownerRefusal(
      `${about(r)}conversation ${q(parentOf(r))} does not exist`,
      "conversation",
      parentOf(r),
    ),
  "conversation-owner": (r: Written) =>
    ownerRefusal(
      `${about(r)}conversation ${q(parentOf(r))} exists with another userId or tenantId; a conversation's owner never changes and its records carry it`,
      "conversation",
      parentOf(r),
    ),
  "conversation-deleted-at": (r: Written) =>
    new IntegrityError(
      `conversation ${q(r.id)}: deletedAt changes only through softDeleteConversation and restoreConversation`,
    ),
  "conversation-soft-deleted": (r: Written) =>
    new IntegrityError(
      `${about(r)}conversation ${q(parentOf(r))} is soft-deleted; restore it first`,
    ),
  "message-missing": (r: Written) =>
    ownerRefusal(
      `${describe(r)}: message ${q(r.messageId)} does not exist`,
      "message",
      r.messageId!,
    ),
  "message-owner": (r: Written) => {
    const id = r.messageId ?? r.id;
    const prefix = r.messageId === undefined ? "" : `${describe(r)}: `;
    return ownerRefusal(`${prefix}message ${q(id)} has another owner`, "message", id);
  },
  "message-moves": (r: Written) =>
    new IntegrityError(
      `message ${q(r.id)} belongs to another conversation and cannot move to ${q(r.conversationId)}`,
    ),
  "message-deleted-at": (r: Written) =>
    new IntegrityError(
      `message ${q(r.id)}: deletedAt changes only through softDeleteMessage and restoreMessage`,
    ),
  "message-elsewhere": (r: Written) =>
    new IntegrityError(
      `${describe(r)}: message ${q(r.messageId)} is not in conversation ${q(r.conversationId)}`,
    ),
  "message-soft-deleted": (r: Written) =>
    new IntegrityError(
      `${describe(r)}: message ${q(r.messageId)} is soft-deleted; restore it first`,
    ),
  "message-has-trace": (r: Written) =>
    new IntegrityError(`${describe(r)}: message ${q(r.messageId)} already has another turn trace`),
  "trace-owner": (r: Written) =>
    ownerRefusal(`turn trace ${q(r.id)} has another owner`, "turn trace", r.id),
  "trace-moves": (r: Written) =>
    new IntegrityError(`turn trace ${q(r.id)} belongs to another message; a trace cannot move`),
  "trace-deleted-at": (r: Written) =>
    new IntegrityError(`turn trace ${q(r.id)}: deletedAt changes only with its message`),
  "end-of-time": (r: Written, activity?: number) =>
    new IntegrityError(
      `${endOfTimeMessage(parentOf(r), activity ?? Number.MAX_SAFE_INTEGER)}; nothing was stored`,
    ),
  "restore-in-deleted-conversation": (r: Written) =>
    new IntegrityError(
      `message ${q(r.id)}: its conversation is soft-deleted; restore the conversation`,
    ),
} satisfies Record<string, (r: Written, activity?: number) => IntegrityError>;

/** `"message \"m1\": "` before a rule about the record's conversation; nothing for a conversation. */
function about(r: Written): string {
  return r.conversationId === undefined ? "" : `${describe(r)}: `;
}

function describe(r: Written): string {
  if (r.messageId !== undefined) return `turn trace ${q(r.id)}`;
  return r.conversationId !== undefined ? `message ${q(r.id)}` : `conversation ${q(r.id)}`;
}

const REFUSED = /MS_REFUSED ([a-z-]+) (\d+)(?: (\d+))?/;

/**
 * The error a script's refusal stands for, or `null` when `error` is no refusal. `written` is the
 * batch the script was given: the refusal names the (1-based) index of the record it refused.
 */
export function refusalOf(error: unknown, written: readonly Written[]): IntegrityError | null {
  const match = error instanceof Error ? REFUSED.exec(error.message) : null;
  if (!match) return null;
  const make = REFUSALS[match[1] as keyof typeof REFUSALS];
  const record = written[Number(match[2]) - 1];
  if (!make || !record) return new IntegrityError(`unexpected refusal: ${match[0]}`);
  return make(record, match[3] === undefined ? undefined : Number(match[3]));
}

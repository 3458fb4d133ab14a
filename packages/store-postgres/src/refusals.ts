import { IntegrityError } from "@message-store/core";
import { endOfTimeMessage, ownerRefusal, type RecordKind } from "@message-store/core/adapter";
import { ADAPTER } from "./config.js";
import { decodeText } from "./nul-codec.js";
import {
  SQLSTATE_MISSING_CONVERSATION,
  SQLSTATE_MOVED_MESSAGE,
  SQLSTATE_RULE,
} from "./sql/sqlstates.js";

/**
 * The writes the SQL functions refuse, as core's errors: each refusal names its rule (MS003's
 * DETAIL, or the SQLSTATE itself for MS001 and MS002) and the ids of the records involved.
 */

type Quote = (key: string) => string;

/**
 * A rule: what its error says, given `q` (a DETAIL id, quoted), and, for the refusals that are
 * {@link ownerRefusal}s (a view answers "does not exist"), which record is missing or another
 * owner's, by the DETAIL key of its id.
 */
interface Rule {
  /** `q` quotes a DETAIL value; `raw` gives it as it is. */
  text: (q: Quote, raw: (key: string) => string) => string;
  owner?: [RecordKind, string];
}

const TRACE_NOT_STORED = (q: Quote) =>
  `cannot store turn trace ${q("trace")}: message ${q("message")}`;

/** Every rule, by the name the SQL gives it (`raiseRule`, `refuse`). */
const RULES: Record<string, Rule> = {
  missing_conversation: {
    text: (q) => `conversation ${q("conversation")} of message ${q("message")} does not exist`,
    owner: ["conversation", "conversation"],
  },
  moved_message: {
    text: (q) =>
      `message ${q("message")} belongs to conversation ${q("current")} and cannot move to ${q("conversation")}`,
  },
  conversation_owner: {
    text: (q) =>
      `conversation ${q("conversation")} exists with another userId or tenantId; a conversation's owner never changes`,
    owner: ["conversation", "conversation"],
  },
  conversation_deleted_at: {
    text: (q) =>
      `conversation ${q("conversation")}: deletedAt changes only through softDeleteConversation and restoreConversation`,
  },
  message_user: {
    text: (q) =>
      `message ${q("message")}: its userId must be the userId of conversation ${q("conversation")}`,
    owner: ["conversation", "conversation"],
  },
  message_tenant: {
    text: (q) =>
      `message ${q("message")}: its tenantId must be the tenantId of conversation ${q("conversation")}`,
    owner: ["conversation", "conversation"],
  },
  message_owner: {
    text: (q) =>
      `message ${q("message")} belongs to a conversation of another owner and cannot move to ${q("conversation")}`,
    owner: ["message", "message"],
  },
  message_deleted_at: {
    text: (q) =>
      `message ${q("message")}: deletedAt changes only through softDeleteMessage and restoreMessage`,
  },
  conversation_deleted: {
    text: (q) =>
      `message ${q("message")}: conversation ${q("conversation")} is soft-deleted; restore it first`,
  },
  thread_missing: {
    text: (q) => `conversation ${q("conversation")} does not exist`,
    owner: ["conversation", "conversation"],
  },
  thread_deleted: {
    text: (q) => `conversation ${q("conversation")} is soft-deleted; restore it first`,
  },
  session_end_of_time: {
    text: (_, raw) => endOfTimeMessage(raw("conversation"), Number(raw("activity"))),
  },
  restore_in_deleted_conversation: {
    text: (q) =>
      `message ${q("message")}: conversation ${q("conversation")} is soft-deleted; restore the conversation`,
  },
  trace_conversation: {
    text: (q) =>
      `cannot store turn trace ${q("trace")}: conversation ${q("conversation")} does not exist`,
    owner: ["conversation", "conversation"],
  },
  trace_owner: {
    text: (q) =>
      `turn trace ${q("trace")}: its userId and tenantId must be those of its conversation ${q("conversation")}`,
    owner: ["conversation", "conversation"],
  },
  trace_message_missing: {
    text: (q) => `${TRACE_NOT_STORED(q)} does not exist`,
    owner: ["message", "message"],
  },
  trace_message_elsewhere: {
    text: (q) => `${TRACE_NOT_STORED(q)} belongs to another conversation than ${q("conversation")}`,
  },
  trace_message_owner: {
    text: (q) => `${TRACE_NOT_STORED(q)} belongs to another conversation than ${q("conversation")}`,
    owner: ["message", "message"],
  },
  trace_foreign: {
    text: (q) => `turn trace ${q("trace")} belongs to another message; a trace cannot move`,
    owner: ["turn trace", "trace"],
  },
  trace_moved: {
    text: (q) => `turn trace ${q("trace")} belongs to another message; a trace cannot move`,
  },
  trace_deleted_at: {
    text: (q) => `turn trace ${q("trace")}: deletedAt changes only with its message`,
  },
  message_deleted: {
    text: (q) =>
      `turn trace ${q("trace")}: message ${q("message")} is soft-deleted; restore it first`,
  },
};

/** The rule each of this package's SQLSTATEs reports (`null`: the one its DETAIL names). */
const SQLSTATE_RULES: Record<string, string | null> = {
  [SQLSTATE_MISSING_CONVERSATION]: "missing_conversation",
  [SQLSTATE_MOVED_MESSAGE]: "moved_message",
  [SQLSTATE_RULE]: null,
};

type Detail = Record<string, unknown>;

/** The ids a refusal's DETAIL names (a JSON object, ids NUL-escaped as stored). */
function detailOf(error: { detail?: unknown }): Detail {
  try {
    const parsed: unknown = JSON.parse(typeof error.detail === "string" ? error.detail : "{}");
    return typeof parsed === "object" && parsed !== null ? (parsed as Detail) : {};
  } catch {
    return {};
  }
}

/**
 * The `IntegrityError` of a write the SQL refused with one of this package's SQLSTATEs (an
 * {@link ownerRefusal} when the record it names is missing or another owner's), or `null` for
 * any other error.
 */
export function refusalOf(error: unknown): IntegrityError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !Object.hasOwn(SQLSTATE_RULES, code)) return null;
  const detail = detailOf(error as { detail?: unknown });
  const id = (key: string) => {
    const value = detail[key];
    return typeof value === "string" ? decodeText(value) : "?";
  };
  const q = (key: string) => JSON.stringify(id(key));
  const rule = RULES[SQLSTATE_RULES[code] ?? String(detail.rule)];
  const message = `${rule ? rule.text(q, id) : "an ownership or soft-delete rule was broken"}; nothing was stored`;
  if (rule?.owner === undefined)
    return new IntegrityError(message, { adapter: ADAPTER, cause: error });
  const [record, key] = rule.owner;
  const refused = ownerRefusal(message, record, id(key));
  Object.defineProperty(refused, "cause", { value: error, configurable: true, writable: true });
  return refused;
}

import {
  ConnectionError,
  IntegrityError,
  isMessageStoreError,
  type MessageStoreError,
  redactSecrets,
  StorageError,
} from "@message-store/core";
import { ADAPTER } from "./config.js";
import { decodeText } from "./nul-codec.js";
import { SQLSTATE_MISSING_CONVERSATION, SQLSTATE_MOVED_MESSAGE } from "./sql/functions.js";

/** Node socket and DNS errors that mean the server cannot be reached. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ERR_INVALID_URL",
]);

/**
 * SQLSTATEs that mean the connection is unusable or was refused: 57P01–57P03 (admin shutdown,
 * crash shutdown, cannot connect now), 53300 (too many connections), 28xxx (authentication),
 * 3D000 (no such database); the whole class 08 (connection exception) is matched separately.
 */
const SERVER_CONNECTION_CODES = new Set(["57P01", "57P02", "57P03", "53300", "3D000"]);

/** Messages of driver-side failures that carry no code. */
const CONNECTION_MESSAGES =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|connection error|pool after calling end|ECONNREFUSED|getaddrinfo|invalid url|socket|query read timeout/i;

/** Query was cancelled: `statement_timeout` fired (or an operator cancelled it). */
const QUERY_CANCELED = "57014";

/** Resource problems on the server: disk full, out of memory, too many files, read-only. */
const STORAGE_CODES = new Set(["53100", "53200", "53400", "25006", "58030"]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * True when the error means the connection is broken or could not be made (as opposed to a
 * statement that failed on a healthy connection). Such a client must not go back to the pool.
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || SERVER_CONNECTION_CODES.has(code)) return true;
    if (code.startsWith("08") || code.startsWith("28")) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return false;
  }
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  return CONNECTION_MESSAGES.test(messageOf(error));
}

function describeCustom(error: { detail?: string }, moved: boolean): string {
  let ids: { message?: string; conversation?: string; current?: string } = {};
  try {
    ids = JSON.parse(error.detail ?? "{}");
  } catch {
    // Keep the generic message below.
  }
  const q = (id: string | undefined) => JSON.stringify(decodeText(id ?? "?"));
  return moved
    ? `message ${q(ids.message)} belongs to conversation ${q(ids.current)} and cannot move to ${q(ids.conversation)}; nothing was stored`
    : `conversation ${q(ids.conversation)} of message ${q(ids.message)} does not exist; nothing was stored`;
}

function describeIntegrity(error: { code?: string; constraint?: string; detail?: string }): string {
  switch (error.constraint) {
    case "messages_conversation_id_fkey":
      return "the message's conversation does not exist; nothing was stored";
    case "turn_traces_message_id_fkey":
      return "the trace's message does not exist; nothing was stored";
    case "turn_traces_message_id_key":
      return "the message already has a turn trace with another id; nothing was stored";
    default:
      return error.code === "23505"
        ? `a unique constraint was violated (${error.constraint ?? "unknown"}); nothing was stored`
        : `a foreign key was violated (${error.constraint ?? "unknown"}); nothing was stored`;
  }
}

/**
 * Maps anything `pg` throws to core's errors (the store's `mapError`, and the migration runner,
 * which runs outside the store's calls): integrity violations (23503, 23505 and this
 * package's own MS001/MS002) to `IntegrityError`; unreachable or lost server, bad DSN and
 * statement timeout (57014) to `ConnectionError` (which redacts passwords); everything else to
 * `StorageError`. Errors that already are core's pass through.
 */
export function toStoreError(error: unknown): MessageStoreError {
  if (isMessageStoreError(error)) return error;
  const code = codeOf(error);
  const options = { adapter: ADAPTER, cause: error };
  if (code === SQLSTATE_MISSING_CONVERSATION || code === SQLSTATE_MOVED_MESSAGE) {
    return new IntegrityError(
      describeCustom(error as { detail?: string }, code === SQLSTATE_MOVED_MESSAGE),
      options,
    );
  }
  if (code === "23503" || code === "23505") {
    return new IntegrityError(describeIntegrity(error as { code?: string }), options);
  }
  if (code === QUERY_CANCELED) {
    return new ConnectionError(
      `the statement was cancelled, usually by statement_timeout_ms: ${messageOf(error)}`,
      options,
    );
  }
  if (isConnectionFailure(error)) {
    return new ConnectionError(`cannot reach PostgreSQL: ${messageOf(error)}`, options);
  }
  // Server errors (with a SQLSTATE) carry no connection secrets; anything else is scrubbed.
  const safe = code !== undefined && /^[0-9A-Z]{5}$/.test(code);
  const storageOptions = { adapter: ADAPTER, cause: safe ? error : scrub(error) };
  const text = redactSecrets(messageOf(error));
  if (code !== undefined && STORAGE_CODES.has(code)) {
    return new StorageError(`PostgreSQL cannot store data (${code}): ${text}`, storageOptions);
  }
  return new StorageError(`PostgreSQL error${safe ? ` ${code}` : ""}: ${text}`, storageOptions);
}

function scrub(error: unknown): Error {
  const copy = new Error(redactSecrets(messageOf(error)));
  if (error instanceof Error) {
    copy.name = error.name;
    copy.stack = error.stack === undefined ? undefined : redactSecrets(error.stack);
  }
  return copy;
}

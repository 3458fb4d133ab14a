import {
  ConfigurationError,
  ConnectionError,
  IntegrityError,
  isMessageStoreError,
  type MessageStoreError,
  redactSecrets,
  StorageError,
} from "@message-store/core";
import { ADAPTER } from "./config.js";
import { refusalOf } from "./refusals.js";

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
 * crash shutdown, cannot connect now), 25P03/25P04 (the server ended the session at
 * `idle_in_transaction_session_timeout` / `transaction_timeout`), 53300 (too many connections),
 * 28xxx (authentication), 3D000 (no such database); the whole class 08 (connection exception) is
 * matched separately.
 */
const SERVER_CONNECTION_CODES = new Set([
  "57P01",
  "57P02",
  "57P03",
  "25P03",
  "25P04",
  "53300",
  "3D000",
]);

/** Messages of driver-side failures that carry no code. */
const CONNECTION_MESSAGES =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|connection error|pool after calling end|ECONNREFUSED|getaddrinfo|invalid url|socket|query read timeout/i;

/**
 * Logins the server refused for a reason that retrying cannot fix, with what to check: 28P01
 * (wrong password), the rest of class 28 (no such role, no `pg_hba.conf` entry), 3D000 (no such
 * database).
 */
const REFUSED_LOGIN: [RegExp, string][] = [
  [/^28P01$/, "check the DSN's user and password"],
  [/^28/, "check the DSN's user and the server's pg_hba.conf"],
  [/^3D000$/, "check the DSN's database name"],
];

/** Node's codes for a TLS certificate the client refused (`sslmode=verify-full` & co.). */
const CERTIFICATE_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REVOKED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * What is wrong when the server was reached but the connection cannot work as configured, or
 * `null`: a refused login, SSL required by the DSN but not offered by the server, a password the
 * server asks for and the DSN lacks, a certificate the client refuses. Retrying cannot help, so
 * these are `ConfigurationError`, not `ConnectionError`. Server messages name the user or
 * database, never the password.
 */
function configurationProblem(error: unknown): string | null {
  const code = codeOf(error);
  const message = messageOf(error);
  if (code !== undefined) {
    const hint = REFUSED_LOGIN.find(([pattern]) => pattern.test(code))?.[1];
    if (hint) return `connected, but the login was refused: ${message} (${code}); ${hint}`;
    if (CERTIFICATE_CODES.has(code)) {
      return `connected, but the server's TLS certificate was refused (${code}): ${message}; check the DSN's sslmode and sslrootcert`;
    }
  }
  if (/server does not support SSL/i.test(message)) {
    return "connected, but the server does not support SSL, which the DSN's sslmode requires";
  }
  if (/client password must be a string|password must be a string/i.test(message)) {
    return "connected, but the server asks for a password and the DSN gives none";
  }
  return null;
}

/** Query was cancelled: `statement_timeout` fired (or an operator cancelled it). */
const QUERY_CANCELED = "57014";

/**
 * Resource problems on the server: disk full, out of memory, too many files, read-only, a value
 * over a size limit (54000, e.g. a batch whose jsonb exceeds 256 MiB).
 */
const STORAGE_CODES = new Set(["53100", "53200", "53400", "25006", "58030", "54000"]);

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
 * Maps anything `pg` throws to core's errors (the driver's `mapError`, and the migration runner,
 * which runs outside the store's calls): integrity violations (23503, 23505, and this package's
 * own MS001–MS003, see `refusals.ts`) to `IntegrityError`; a refused login, missing database or SSL
 * mismatch to `ConfigurationError`; unreachable or lost server, bad DSN and statement timeout
 * (57014) to `ConnectionError` (both redact passwords); everything else to `StorageError`.
 * Errors that already are core's pass through.
 */
export function toStoreError(error: unknown): MessageStoreError {
  if (isMessageStoreError(error)) return error;
  const code = codeOf(error);
  const options = { adapter: ADAPTER, cause: error };
  const refused = refusalOf(error);
  if (refused !== null) return refused;
  if (code === "23503" || code === "23505") {
    return new IntegrityError(describeIntegrity(error as { code?: string }), options);
  }
  const misconfigured = configurationProblem(error);
  if (misconfigured !== null) return new ConfigurationError(misconfigured, options);
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

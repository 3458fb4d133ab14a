import {
  ConnectionError,
  IntegrityError,
  type MessageStoreError,
  StorageError,
} from "@message-store/core";
import { redactSecrets } from "@message-store/core/adapter";
import {
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerClosedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import { SEQUENCE_INDEX } from "./collections.js";

/** Server codes that mean the server went away or cannot serve writes right now. */
const UNAVAILABLE_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  18, // AuthenticationFailed: the server cannot be used with these credentials
  89, // NetworkTimeout
  91, // ShutdownInProgress
  189, // PrimarySteppedDown
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** True for a duplicate key (E11000), including inside a bulk write. */
export function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000;
}

const SEQUENCE_INDEX_IN_MESSAGE = new RegExp(`index: ${SEQUENCE_INDEX}(?![\\w$])`);

/**
 * True for a duplicate key on the unique `{ conversationId, sequence }` index of the messages, as
 * opposed to a duplicate `_id`. A single write's error names the index by `keyPattern` (or
 * `keyValue`); a bulk write's errors keep only the server's message, which names the index
 * (`… index: messages_conversation_sequence dup key: …`), and so do servers that report the
 * duplicate as a command error rather than a write error.
 */
export function isSequenceConflict(error: unknown): boolean {
  if (!isDuplicateKey(error)) return false;
  const e = error as MongoServerError & {
    keyPattern?: unknown;
    keyValue?: unknown;
    writeErrors?: unknown;
  };
  for (const key of [e.keyPattern, e.keyValue]) {
    if (key !== null && typeof key === "object") return "sequence" in key;
  }
  const writeErrors = Array.isArray(e.writeErrors) ? (e.writeErrors as { errmsg?: unknown }[]) : [];
  const messages = [e.message, e.errmsg, ...writeErrors.map((w) => w.errmsg)];
  return messages.some((m) => typeof m === "string" && SEQUENCE_INDEX_IN_MESSAGE.test(m));
}

/** True when the server is unreachable or the connection was lost (the outcome may be unknown). */
export function isConnectionFailure(error: unknown): boolean {
  return (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoServerClosedError ||
    // Named, not imported: the class only exists in newer 6.x drivers.
    (error instanceof MongoError && error.name === "MongoOperationTimeoutError") ||
    (error instanceof MongoServerError &&
      typeof error.code === "number" &&
      UNAVAILABLE_CODES.has(error.code)) ||
    // A bulk write lost mid-flight arrives as a MongoBulkWriteError wrapping the network error.
    (error instanceof MongoServerError &&
      error.errorResponse instanceof Error &&
      error.errorResponse !== error &&
      isConnectionFailure(error.errorResponse))
  );
}

/**
 * Core's error for a driver error: connection failures become `ConnectionError` (which redacts
 * passwords from the message and the cause), duplicate keys `IntegrityError`, any other driver or
 * server failure `StorageError`. `null` for anything that is not the driver's. `adapter` names
 * the adapter on errors raised outside a call (connecting); inside one, core stamps it.
 */
export function fromDriverError(error: unknown, adapter?: string): MessageStoreError | null {
  if (isConnectionFailure(error)) {
    return new ConnectionError(`MongoDB is unreachable: ${(error as Error).message}`, {
      adapter,
      cause: error,
    });
  }
  if (isDuplicateKey(error)) {
    return new IntegrityError(`duplicate key: ${(error as Error).message}`, {
      adapter,
      cause: error,
    });
  }
  if (error instanceof MongoError) {
    const code = error instanceof MongoServerError ? ` (code ${error.code})` : "";
    return new StorageError(redactSecrets(`MongoDB failed${code}: ${error.message}`), {
      adapter,
      cause: error,
    });
  }
  return null;
}

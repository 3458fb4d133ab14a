import {
  ConnectionError,
  IntegrityError,
  isMessageStoreError,
  redactSecrets,
  StorageError,
} from "@message-store/core";
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

/** The adapter name: the `[mongodb]` in every error message. */
export const ADAPTER = "mongodb";

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
 * Maps a driver error to core's errors: connection failures to `ConnectionError` (which redacts
 * passwords from the message and the cause), duplicate keys to `IntegrityError`, any other
 * driver or server failure to `StorageError`. Core errors and programming errors pass through.
 */
export function toStoreError(error: unknown): unknown {
  if (isMessageStoreError(error)) return error;
  if (isConnectionFailure(error)) {
    return new ConnectionError(`MongoDB is unreachable: ${(error as Error).message}`, {
      adapter: ADAPTER,
      cause: error,
    });
  }
  if (isDuplicateKey(error)) {
    return new IntegrityError(`duplicate key: ${(error as Error).message}`, {
      adapter: ADAPTER,
      cause: error,
    });
  }
  if (error instanceof MongoError) {
    const code = error instanceof MongoServerError ? ` (code ${error.code})` : "";
    return new StorageError(redactSecrets(`MongoDB failed${code}: ${error.message}`), {
      adapter: ADAPTER,
      cause: error,
    });
  }
  return error;
}

/** Runs `operation`, rethrowing any failure as core's error (see {@link toStoreError}). */
export async function mapErrors<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw toStoreError(error);
  }
}

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
      UNAVAILABLE_CODES.has(error.code))
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

import { redactSecrets } from "./redact.js";

const BRAND = Symbol.for("@message-store/core/MessageStoreError");
/** On each of core's error classes: the `code`s its instances carry (see `hasInstance`). */
const CLASS_CODE = Symbol.for("@message-store/core/MessageStoreError.code");
const ordinaryHasInstance = Function.prototype[Symbol.hasInstance];

/** Stable machine-readable codes, one per error class. */
export type MessageStoreErrorCode =
  | "VALIDATION"
  | "INTEGRITY"
  | "NOT_FOUND"
  | "CONNECTION"
  | "OUTCOME_UNKNOWN"
  | "CORRUPT_DATA"
  | "STORE_CLOSED"
  | "STORE_LOCKED"
  | "CONFIGURATION"
  | "STORAGE"
  | "UNSUPPORTED";

/** Options every error accepts. `adapter` becomes the `[message-store] [adapter]` prefix. */
export interface MessageStoreErrorOptions {
  adapter?: string;
  cause?: unknown;
}

function prefix(adapter: string | undefined, message: string): string {
  return adapter ? `[message-store] [${adapter}] ${message}` : `[message-store] ${message}`;
}

/**
 * `instanceof` by brand, so that an error thrown by one copy of core is an instance of the
 * classes of any other copy loaded in the same process: `MessageStoreError` matches every
 * branded error, each of core's subclasses matches its `code`, and a class of yours that extends
 * one of them keeps the ordinary prototype check.
 */
function hasInstance(cls: Function, value: unknown): boolean {
  if (!Object.hasOwn(cls, CLASS_CODE)) return ordinaryHasInstance.call(cls, value);
  const codes = (
    cls as unknown as Record<symbol, readonly MessageStoreErrorCode[] | null | undefined>
  )[CLASS_CODE];
  return isMessageStoreError(value) && (codes == null || codes.includes(value.code));
}

/**
 * Base class of every error the library throws. `code` is stable across versions; match on it
 * (or on the class) rather than on the message. `instanceof` works across copies of core loaded
 * in one process (it checks a brand, not the prototype chain).
 */
export class MessageStoreError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class right of `instanceof`, a subclass included
    return hasInstance(this, value);
  }

  readonly code: MessageStoreErrorCode;
  /** The adapter that raised it (`"json"`, `"postgres"`, …), if any. */
  readonly adapter: string | undefined;

  constructor(
    code: MessageStoreErrorCode,
    message: string,
    options: MessageStoreErrorOptions = {},
  ) {
    super(
      prefix(options.adapter, message),
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = new.target.name;
    this.code = code;
    this.adapter = options.adapter;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** A zod-style issue: where (`path`) and what (`message`). */
export interface ValidationIssue {
  path: (string | number)[];
  message: string;
  code?: string;
}

/** Input failed the model. Nothing was written and no I/O happened. */
export class ValidationError extends MessageStoreError {
  readonly issues: ValidationIssue[];
  constructor(message: string, issues: ValidationIssue[] = [], options?: MessageStoreErrorOptions) {
    super("VALIDATION", message, options);
    this.issues = issues;
  }
}

/** A referential rule was broken (missing conversation or message, moved message, second trace). Nothing was written. */
export class IntegrityError extends MessageStoreError {
  constructor(message: string, options?: MessageStoreErrorOptions) {
    super("INTEGRITY", message, options);
  }
}

/** The record an operation needs does not exist (or is outside a scoped view). */
export class NotFoundError extends MessageStoreError {
  constructor(message: string, options?: MessageStoreErrorOptions) {
    super("NOT_FOUND", message, options);
  }
}

/**
 * The backend is unreachable or the connection was lost mid-call. The message and the cause are
 * scrubbed of passwords, so the error is safe to log.
 */
export class ConnectionError extends MessageStoreError {
  constructor(message: string, options: MessageStoreErrorOptions = {}) {
    super("CONNECTION", redactSecrets(message), { ...options, cause: scrubCause(options.cause) });
  }
}

/**
 * A write whose outcome the store cannot know: it was sent, and then the connection was lost or
 * the backend stopped answering (a frozen server, a partition) before its answer arrived, so it
 * may or may not have been stored. A `ConnectionError` (`instanceof ConnectionError` holds) with
 * its own code, `OUTCOME_UNKNOWN`. Reads never reject with it, and a write the backend refused or
 * cancelled (its own timeout included) never does either: those rejections are definite, nothing
 * stored.
 *
 * Retrying the same call is safe, and is how to learn the outcome: every write is an idempotent
 * upsert or state change by id. `storeConversation`, `storeMessage(s)`, `storeTurnTrace(s)`,
 * `storeSessionMessages` and `putCheckpoint`/`putCheckpointWrites` upsert by the ids they carry,
 * so give records their ids when you may retry (an id core generates is a new one on each call,
 * and a retry would then store a second copy); `flagMessage` and `setEmbeddings` set values;
 * `softDelete*`, `restore*`, `delete*`, `purgeDeleted` and `deleteUserData` reach the same state
 * again, but their answer (`true`, counts) then only describes what the retry itself changed.
 */
export class OutcomeUnknownError extends ConnectionError {
  override readonly code: MessageStoreErrorCode = "OUTCOME_UNKNOWN";
  /** `message`: what happened; the error adds what it means for the write. */
  constructor(message: string, options: MessageStoreErrorOptions = {}) {
    super(
      `${message}; the write may have been stored or not, and retrying it is safe (every write is an idempotent upsert by id)`,
      options,
    );
  }
}

/** Stored data no longer parses or fails the model. `location` says where; the data is left untouched. */
export class CorruptDataError extends MessageStoreError {
  readonly location: string;
  constructor(message: string, location: string, options?: MessageStoreErrorOptions) {
    super("CORRUPT_DATA", message, options);
    this.location = location;
  }
}

/** The store was closed; every call after `close()` rejects with this. */
export class StoreClosedError extends MessageStoreError {
  constructor(options?: MessageStoreErrorOptions) {
    super("STORE_CLOSED", "the store is closed", options);
  }
}

/** Another live process holds the store (JSON file lock). */
export class StoreLockedError extends MessageStoreError {
  constructor(message: string, options?: MessageStoreErrorOptions) {
    super("STORE_LOCKED", message, options);
  }
}

/** The configuration is wrong (unknown storage, missing or mistyped key, adapter package not installed). */
export class ConfigurationError extends MessageStoreError {
  constructor(message: string, options: MessageStoreErrorOptions = {}) {
    super("CONFIGURATION", redactSecrets(message), {
      ...options,
      cause: scrubCause(options.cause),
    });
  }
}

/** The storage medium failed (disk full, permission denied). The failed write is not visible. */
export class StorageError extends MessageStoreError {
  constructor(message: string, options?: MessageStoreErrorOptions) {
    super("STORAGE", message, options);
  }
}

/** The adapter does not offer this optional capability (see `store.capabilities`). */
export class UnsupportedOperationError extends MessageStoreError {
  constructor(message: string, options?: MessageStoreErrorOptions) {
    super("UNSUPPORTED", message, options);
  }
}

const CODES: [Function, MessageStoreErrorCode[] | null][] = [
  [MessageStoreError, null],
  [ValidationError, ["VALIDATION"]],
  [IntegrityError, ["INTEGRITY"]],
  [NotFoundError, ["NOT_FOUND"]],
  [ConnectionError, ["CONNECTION", "OUTCOME_UNKNOWN"]],
  [OutcomeUnknownError, ["OUTCOME_UNKNOWN"]],
  [CorruptDataError, ["CORRUPT_DATA"]],
  [StoreClosedError, ["STORE_CLOSED"]],
  [StoreLockedError, ["STORE_LOCKED"]],
  [ConfigurationError, ["CONFIGURATION"]],
  [StorageError, ["STORAGE"]],
  [UnsupportedOperationError, ["UNSUPPORTED"]],
];
for (const [cls, code] of CODES) Object.defineProperty(cls, CLASS_CODE, { value: code });

/**
 * True for any error thrown by any copy of `@message-store/core`. Since `instanceof` answers by
 * brand too, `e instanceof MessageStoreError` is equivalent.
 */
export function isMessageStoreError(error: unknown): error is MessageStoreError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as Record<symbol, unknown>)[BRAND] === true
  );
}

/**
 * @internal Puts the adapter's name on an error raised without one (core's base class does this
 * for every error a hook throws), rewriting the message prefix to `[message-store] [adapter]`.
 */
export function stampAdapter(error: MessageStoreError, adapter: string): MessageStoreError {
  if (error.adapter !== undefined) return error;
  const before = error.message;
  const after = prefix(adapter, before.replace(/^\[message-store\] /, ""));
  Object.defineProperty(error, "adapter", { value: adapter, enumerable: true });
  error.message = after;
  if (typeof error.stack === "string") error.stack = error.stack.replace(before, after);
  return error;
}

/** @internal Replaces a driver error by a plain copy whose message and stack carry no secrets. */
export function scrubCause(cause: unknown): unknown {
  if (!(cause instanceof Error))
    return cause === undefined ? undefined : redactSecrets(String(cause));
  const copy = new Error(redactSecrets(cause.message));
  copy.name = cause.name;
  copy.stack = cause.stack === undefined ? undefined : redactSecrets(cause.stack);
  const code = (cause as { code?: unknown }).code;
  if (code !== undefined) Object.assign(copy, { code });
  return copy;
}

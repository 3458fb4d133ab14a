import { setTimeout as sleep } from "node:timers/promises";
import type { ClientSession, MongoClient } from "mongodb";
import { MongoError, MongoServerError } from "mongodb";

/*
 * The transaction loop every multi-document write runs in, instead of the driver's
 * `withTransaction`: that one retries a transient error, and a commit whose result is unknown,
 * at once and for up to 120 seconds. Against a server that answers a conflicting commit by
 * closing the connection (the replica-set test server does, where MongoDB reports a
 * `WriteConflict`), it spins on the commit until `operation_timeout_ms` and the call ends
 * `OUTCOME_UNKNOWN`. Here both retries are bounded and back off.
 */

/** Attempts of a transaction that lost to a concurrent one (`TransientTransactionError`). */
const MAX_ATTEMPTS = 8;
/** Retries of a commit whose result is unknown (network error, no answer) before giving up. */
const MAX_COMMIT_RETRIES = 2;

/**
 * True for a write conflict between transactions (code 112). MongoDB labels it a
 * `TransientTransactionError`, which {@link runTransaction} retries; jongodb
 * reports one found at commit without the label, so a caller retries it as the same race.
 */
export function isWriteConflict(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 112;
}

const hasLabel = (error: unknown, label: string) =>
  error instanceof MongoError && error.hasErrorLabel(label);

/** A transient transaction error: the whole transaction may run again. */
export function isTransient(error: unknown): boolean {
  return hasLabel(error, "TransientTransactionError") || isWriteConflict(error);
}

/** Exponential backoff with full jitter: up to 5, 10, 20 … ms, at most 250 ms. */
export function backoff(attempt: number): Promise<void> {
  const cap = Math.min(250, 5 * 2 ** Math.max(0, attempt - 1));
  return sleep(Math.random() * cap);
}

/** Commits, retrying a commit whose result is unknown a bounded number of times. */
async function commit(session: ClientSession): Promise<void> {
  for (let retry = 0; ; retry++) {
    try {
      await session.commitTransaction();
      return;
    } catch (error) {
      if (!hasLabel(error, "UnknownTransactionCommitResult") || retry >= MAX_COMMIT_RETRIES) {
        throw error;
      }
      await backoff(retry + 1);
    }
  }
}

/** How a transaction may be run again. */
export interface TransactionOptions {
  /**
   * Running `work` again after it committed changes nothing (it reads what it wrote and decides
   * from that): a commit whose result stays unknown then runs the transaction again too.
   */
  idempotent?: boolean;
}

/**
 * Runs `work` in a transaction on a session of `client` and commits; a transient error (a
 * conflict with a concurrent transaction, in `work` or at the commit) runs it again after a
 * backoff, at most {@link MAX_ATTEMPTS} times; a commit whose result stays unknown rejects with
 * the driver's error (a network error: the write may or may not have been applied), unless
 * `idempotent`: then it runs again too, on a new session (the server may still hold the old
 * session's transaction open).
 */
export async function runTransaction<T>(
  client: MongoClient,
  work: (session: ClientSession) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const again = (error: unknown) =>
    isTransient(error) ||
    (options.idempotent === true && hasLabel(error, "UnknownTransactionCommitResult"));
  let session = client.startSession();
  try {
    for (let attempt = 1; ; attempt++) {
      session.startTransaction();
      let result: T;
      try {
        result = await work(session);
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction().catch(() => {});
        if (!isTransient(error) || attempt >= MAX_ATTEMPTS) throw error;
        await backoff(attempt);
        continue;
      }
      try {
        await commit(session);
        return result;
      } catch (error) {
        if (!again(error) || attempt >= MAX_ATTEMPTS) throw error;
        if (hasLabel(error, "UnknownTransactionCommitResult")) {
          await session.endSession().catch(() => {});
          session = client.startSession();
        }
        await backoff(attempt);
      }
    }
  } finally {
    await session.endSession().catch(() => {});
  }
}

import { ConnectionError, OutcomeUnknownError } from "@message-store/core";

/**
 * `operation`, or a `ConnectionError` once it has taken `ms` (`operation_timeout_ms`), whatever
 * the driver is waiting for: a slow or frozen server, a partition, server selection, a retry. The
 * driver cannot take back a command it has sent, so an abandoned write may still be applied when
 * the server resumes: a write rejects with `OutcomeUnknownError` (a `ConnectionError`), which says
 * so. Every write of the store is an idempotent upsert or delete: repeating the call is safe.
 */
export function withDeadline<T>(operation: Promise<T>, ms: number, writes: boolean): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      operation.catch(() => {}); // abandoned: its own failure no longer reaches anyone
      const what = `MongoDB did not complete the call within operation_timeout_ms (${ms} ms)`;
      reject(writes ? new OutcomeUnknownError(what) : new ConnectionError(what));
    }, ms);
  });
  return Promise.race([operation, late]).finally(() => clearTimeout(timer));
}

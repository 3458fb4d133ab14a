import { ConnectionError } from "@message-store/core";
import type pg from "pg";
import type { ReplicaFallback } from "../config.js";
import { toStoreError } from "../errors.js";
import type { StatementRunner } from "./statement-runner.js";

/** SQLSTATE of a standby query cancelled by a conflict with WAL replay. */
const RECOVERY_CONFLICT = "40001";

/** True when the replica could not serve the read (unreachable, timed out, replay conflict). */
function replicaUnavailable(error: unknown): boolean {
  return (
    (error as { code?: unknown } | null)?.code === RECOVERY_CONFLICT ||
    toStoreError(error).code === "CONNECTION"
  );
}

/**
 * Runs the reads that may lag behind the last write (lists, analytics, search) on a read replica
 * when one is configured, and on the primary otherwise. A replica that cannot answer is replaced
 * by the primary for that read (`"primary"`) or turns into a `ConnectionError` that names the
 * replica (`"error"`). Every other read runs on the primary, so a caller reads its own writes.
 */
export class LaggingReads {
  readonly #primary: StatementRunner;
  readonly #replica: StatementRunner | null;
  readonly #fallback: ReplicaFallback;

  constructor(
    primary: StatementRunner,
    replica: StatementRunner | null,
    fallback: ReplicaFallback,
  ) {
    this.#primary = primary;
    this.#replica = replica;
    this.#fallback = fallback;
  }

  async read(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    if (this.#replica === null) return this.#primary.read(text, values);
    try {
      return await this.#replica.read(text, values);
    } catch (error) {
      if (!replicaUnavailable(error)) throw error;
      if (this.#fallback === "primary") return this.#primary.read(text, values);
      throw new ConnectionError(
        `the read replica could not answer (replica_fallback: "error"): ${toStoreError(error).message}`,
        { cause: error },
      );
    }
  }

  /** Stops the replica's connection cleanup (the store is closing). */
  close(): void {
    this.#replica?.close();
  }
}

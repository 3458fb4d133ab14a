import { ConfigurationError, ConnectionError } from "@message-store/core";
import type pg from "pg";
import { ADAPTER, type ReplicaPolicy } from "../config.js";
import { toStoreError } from "../errors.js";
import { SERVER_IDENTITY } from "../sql/queries.js";
import type { StatementRunner } from "./statement-runner.js";

/** SQLSTATE of a standby query cancelled by a conflict with WAL replay. */
const RECOVERY_CONFLICT = "40001";

/**
 * Runs the reads that may lag behind the last write (lists, analytics, search) on a read replica
 * when one is configured, and on the primary otherwise. A replica that cannot answer is replaced
 * by the primary for that read (`"primary"`) or turns into a `ConnectionError` that names the
 * replica (`"error"`). Every other read runs on the primary, so a caller reads its own writes.
 *
 * A circuit breaker keeps a replica that stopped answering from slowing every read: a frozen
 * replica (a hung host, a partition) answers nothing until `query_timeout_ms` has passed, and
 * its pool's connections stay taken meanwhile, so each later read would wait as long. After one
 * read found it unreachable or timed out, lagging reads skip it for `cooldownMs` (they read the
 * primary, or reject at once); the first read after that starts a probe in the background and
 * still skips it, and only a probe that got an answer brings the replica back. No caller waits
 * for a probe. A replay conflict (40001) is one read's bad luck, not the replica's: that read
 * falls back, the next ones use the replica.
 *
 * The probe is also the identity check {@link verify} runs at open: the replica must be a standby
 * (`pg_is_in_recovery()`) of this primary (the same `system_identifier`), or it would serve
 * another database's rows. A replica found to be something else is never used again.
 */
export class LaggingReads {
  readonly #primary: StatementRunner;
  readonly #replica: StatementRunner | null;
  readonly #policy: ReplicaPolicy;
  /** Until when lagging reads skip the replica (0: they use it). */
  #skipUntil = 0;
  /** Why they skip it: the failure that opened the breaker. */
  #failure: Error | null = null;
  #probe: Promise<void> | null = null;
  /** The primary's `system_identifier`, read once. */
  #primaryId: string | null = null;
  /** Set when the replica turned out not to be a standby of the primary. */
  #misconfigured: ConfigurationError | null = null;
  #closed = false;

  constructor(primary: StatementRunner, replica: StatementRunner | null, policy: ReplicaPolicy) {
    this.#primary = primary;
    this.#replica = replica;
    this.#policy = policy;
  }

  async read(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    const replica = this.#replica;
    if (replica === null) return this.#primary.read(text, values);
    if (this.#misconfigured) return this.#skip(text, values, this.#misconfigured);
    if (this.#skipUntil > 0) {
      if (Date.now() >= this.#skipUntil && this.#probe === null) this.#startProbe();
      return this.#skip(text, values, this.#failure);
    }
    try {
      return await replica.read(text, values);
    } catch (error) {
      const unreachable = toStoreError(error).code === "CONNECTION";
      if (!unreachable && (error as { code?: unknown }).code !== RECOVERY_CONFLICT) throw error;
      if (unreachable) this.#open(error as Error);
      return this.#skip(text, values, error as Error);
    }
  }

  /**
   * Checks that the replica is a standby of the primary: `ConfigurationError` when it is not. A
   * replica that cannot be reached now is skipped, and checked by the probe once it answers.
   */
  async verify(): Promise<void> {
    if (this.#replica === null) return;
    try {
      await this.#check();
    } catch (error) {
      if (error instanceof ConfigurationError) throw error;
      if (toStoreError(error).code !== "CONNECTION") throw error;
      this.#open(error as Error);
    }
  }

  /** Stops the replica's connection cleanup and any further probe (the store is closing). */
  close(): void {
    this.#closed = true;
    this.#replica?.close();
  }

  /** Serves a read the replica skips: the primary's answer, or a rejection naming `why`. */
  #skip(text: string, values: readonly unknown[], why: Error | null): Promise<pg.QueryResult> {
    if (this.#policy.fallback === "primary") return this.#primary.read(text, values);
    if (why instanceof ConfigurationError) return Promise.reject(why);
    const reason = why ? toStoreError(why).message : "it did not answer";
    return Promise.reject(
      new ConnectionError(
        `the read replica could not answer (replica_fallback: "error"): ${reason}`,
        { cause: why ?? undefined },
      ),
    );
  }

  #open(failure: Error): void {
    this.#failure = failure;
    this.#skipUntil = Date.now() + this.#policy.cooldownMs;
  }

  #startProbe(): void {
    if (this.#closed) return;
    this.#probe = this.#check()
      .then(() => {
        this.#skipUntil = 0;
        this.#failure = null;
      })
      .catch((error: unknown) => {
        if (error instanceof ConfigurationError) this.#misconfigured = error;
        else this.#open(error as Error);
      })
      .finally(() => {
        this.#probe = null;
      });
  }

  /** The identity check: rejects with `ConfigurationError` when the replica is not a standby of the primary. */
  async #check(): Promise<void> {
    this.#primaryId ??= (await identity(this.#primary)).systemId;
    const replica = await identity(this.#replica!);
    if (!replica.inRecovery) {
      throw new ConfigurationError(
        "the read replica is not a standby: pg_is_in_recovery() is false there, so it is a primary of its own and would serve rows this store never wrote; point replica_dsn (or replica_pool) at a streaming standby of the primary",
        { adapter: ADAPTER },
      );
    }
    if (replica.systemId !== this.#primaryId) {
      throw new ConfigurationError(
        `the read replica is not a standby of this primary: its system_identifier (pg_control_system()) is ${replica.systemId}, the primary's is ${this.#primaryId}; point replica_dsn (or replica_pool) at a streaming standby of the primary`,
        { adapter: ADAPTER },
      );
    }
  }
}

async function identity(
  runner: StatementRunner,
): Promise<{ inRecovery: boolean; systemId: string }> {
  const { rows } = await runner.read<{ in_recovery: boolean; system_identifier: string }>(
    SERVER_IDENTITY,
  );
  return { inRecovery: rows[0]!.in_recovery, systemId: rows[0]!.system_identifier };
}

import { ConnectionError, OutcomeUnknownError } from "@message-store/core";
import pg from "pg";
import { columnTypes } from "../column-types.js";
import { isConnectionFailure, toStoreError } from "../errors.js";
import { clientClassOf } from "../store-options.js";
import { BackendReaper, type Retiree } from "./backend-reaper.js";
import { sendCancelRequest } from "./cancel-request.js";
import { StatementNames } from "./statement-names.js";
import { within } from "./timing.js";

/**
 * How long the store waits, after it asked the server to cancel a statement, for the statement's
 * outcome (its result, or the cancellation error) before it drops the connection, in ms.
 */
export const CANCEL_GRACE_MS = 2_000;

/** The part of `pg.Pool` the store uses; any pg-compatible pool works. */
export type Queryable = Pick<pg.Pool, "connect">;

/** What `pg.Client` knows about its backend (set at connect; not in `@types/pg`). */
interface ClientInternals {
  processID?: number | null;
  secretKey?: number | null;
  host?: string;
  port?: number;
}

/** SQLSTATE of a cancelled statement: `statement_timeout`, or a cancel request. */
const QUERY_CANCELED = "57014";

type Outcome<R extends pg.QueryResultRow> =
  | { error: Error; result?: undefined }
  | { error?: undefined; result: pg.QueryResult<R> };

/**
 * Errors after which the server may still be running the backend: the client gave up on its own
 * (a caller's pool with `query_timeout`) or TCP keepalive declared the peer dead. A connection the
 * server closed or reset needs no cleanup.
 */
function mayOutliveClient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ETIMEDOUT" || /query read timeout/i.test(String((error as Error)?.message));
}

/**
 * Runs each statement on one pooled connection, in one round trip: `pg` sends Parse, Bind,
 * Execute and Sync at once, and the server commits a write at the Sync. What decides a slow
 * write is the server's own `statement_timeout` (the store's pool sets it from
 * `statement_timeout_ms`, and configuration keeps `query_timeout_ms` above it): a definite
 * rejection, nothing stored. `queryTimeoutMs` only guards a server that stops answering or a
 * connection that is lost:
 *
 * - The answer arrives within `queryTimeoutMs`: the call resolves, or its error rejects. A
 *   server error (a timeout or cancellation included) on a write means nothing was stored.
 * - No answer by then: the store asks the server to cancel the statement (a CancelRequest on a
 *   connection of its own) and waits up to {@link CANCEL_GRACE_MS} more. A statement that
 *   finished meanwhile resolves; a cancelled one rejects with `ConnectionError`, nothing stored.
 * - Still no answer (a frozen or unreachable server), or the connection was lost after the
 *   statement was sent: the store cannot know whether a write committed and rejects it with
 *   `OutcomeUnknownError` (retrying it is safe: every write is an idempotent upsert by id); a
 *   read rejects with `ConnectionError`. A dropped connection's pool slot stays occupied until
 *   the backend is gone (see {@link BackendReaper}), so the server never holds more than
 *   `pool_max` of them.
 *
 * Errors other than the store's own are the driver's: the store's `mapError` maps them.
 */
export class StatementRunner {
  readonly #pool: Queryable;
  readonly #queryTimeoutMs: number | null;
  readonly #reaper: BackendReaper;
  readonly #names: StatementNames | null;

  /** `names`: the statement names when statements are prepared (`null`: all unnamed). */
  constructor(
    pool: Queryable,
    queryTimeoutMs: number | null,
    reaper: BackendReaper,
    names: StatementNames | null = null,
  ) {
    this.#pool = pool;
    this.#queryTimeoutMs = queryTimeoutMs;
    this.#reaper = reaper;
    this.#names = names;
  }

  /** A statement that changes nothing. */
  read<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    return this.#run<R>(text, values, false);
  }

  /** A statement that writes: a lost answer rejects with `OutcomeUnknownError`. */
  write<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values: readonly unknown[] = [],
  ): Promise<pg.QueryResult<R>> {
    return this.#run<R>(text, values, true);
  }

  /** Stops holding connections back (the store is closing); see {@link BackendReaper.close}. */
  close(): void {
    this.#reaper.close();
  }

  async #run<R extends pg.QueryResultRow>(
    text: string,
    values: readonly unknown[],
    write: boolean,
  ): Promise<pg.QueryResult<R>> {
    const client = await this.#pool.connect().catch((error: unknown) => {
      // No connection, nothing sent: say so for writes (a refused login stays the driver's
      // error, which `mapError` turns into a ConfigurationError).
      if (!write || toStoreError(error).code !== "CONNECTION") throw error;
      throw new ConnectionError(
        `cannot reach PostgreSQL: ${(error as Error).message}; the write was not sent, nothing was stored`,
        { cause: error },
      );
    });
    let broken: unknown;
    // An idle-time socket error would otherwise be emitted with no listener and crash the process.
    const onError = (error: unknown) => {
      broken ??= error;
    };
    client.on("error", onError);
    const config: pg.QueryConfig = { text, values: values as unknown[], types: columnTypes };
    const name = this.#names?.nameOf(text);
    if (name !== undefined) config.name = name;
    const query = new pg.Query(config);
    const outcome = new Promise<Outcome<R>>((resolve) => {
      (query as { callback?: unknown }).callback = (
        error: Error | null,
        result: pg.QueryResult<R>,
      ) => resolve(error ? { error } : { result });
    });
    client.query(query);

    let settled = await within(outcome, this.#queryTimeoutMs);
    let cancel: Promise<boolean> | null = null;
    if (settled === "late") {
      const key = backendKeyOf(client);
      if (key) cancel = sendCancelRequest(key, CANCEL_GRACE_MS);
      settled = await within(outcome, CANCEL_GRACE_MS);
      if (settled === "late") {
        client.off("error", onError);
        this.#reaper.drop(retireeOf(client));
        const waited = `PostgreSQL did not answer within query_timeout_ms (${this.#queryTimeoutMs} ms) + ${CANCEL_GRACE_MS} ms; the connection was dropped`;
        throw write ? new OutcomeUnknownError(waited) : new ConnectionError(waited);
      }
    }
    // Answered. A cancel request still on its way could hit the connection's next statement;
    // unless the server confirmed it, the connection is not reused.
    const cancelled = cancel === null || (await cancel);
    const { error, result } = settled;
    if (error && isConnectionFailure(error)) broken ??= error;
    client.off("error", onError);
    if (broken !== undefined && mayOutliveClient(broken)) this.#reaper.drop(retireeOf(client));
    else if (broken !== undefined) client.release(broken instanceof Error ? broken : true);
    else if (!cancelled) this.#reaper.end(retireeOf(client));
    else client.release();
    if (error === undefined) return result;
    const code = (error as { code?: unknown }).code;
    if (cancel !== null && code === QUERY_CANCELED) {
      throw new ConnectionError(
        `no answer within query_timeout_ms (${this.#queryTimeoutMs} ms): the statement was cancelled on the server${write ? "; nothing was stored" : ""}`,
        { cause: error },
      );
    }
    if (!write) throw error;
    if (code === QUERY_CANCELED) {
      throw new ConnectionError(
        `the statement was cancelled on the server, usually by statement_timeout_ms; nothing was stored: ${error.message}`,
        { cause: error },
      );
    }
    if (broken !== undefined && !refusedByServer(error, query)) {
      throw new OutcomeUnknownError(
        `the connection was lost after the write was sent: ${error.message}`,
        { cause: error },
      );
    }
    if (broken !== undefined) {
      throw new ConnectionError(
        `the connection was lost, and the server ended the write first; nothing was stored: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * True when the server itself ended the write before committing it: a server error before the
 * statement completed (the implicit transaction then rolls back), or an `ERROR` (not `FATAL`)
 * after it, raised by the commit, which rolls back too. A `FATAL` after completion (a backend
 * terminated once done) may follow a commit.
 */
function refusedByServer(error: Error, query: pg.Query): boolean {
  if (!(error instanceof pg.DatabaseError)) return false;
  // `_result.command` is set by `pg` when CommandComplete arrives (not in `@types/pg`).
  const completed = Boolean(
    (query as unknown as { _result?: { command?: unknown } })._result?.command,
  );
  return error.severity === "ERROR" || !completed;
}

function backendKeyOf(client: pg.PoolClient): Retiree["key"] {
  const c = client as unknown as ClientInternals;
  if (typeof c.processID !== "number" || typeof c.secretKey !== "number") return null;
  if (typeof c.host !== "string" || typeof c.port !== "number") return null;
  return { host: c.host, port: c.port, pid: c.processID, secretKey: c.secretKey };
}

function retireeOf(client: pg.PoolClient): Retiree {
  const port = (client.connection?.stream as { localPort?: number } | undefined)?.localPort;
  return { client, key: backendKeyOf(client), localPort: typeof port === "number" ? port : null };
}

/**
 * A statement runner on `pool`. Behind a transaction-mode pooler a dropped connection is left to
 * the pooler: its backend keys are not the server's process ids. `prepare`: send statements as
 * named prepared statements (never behind such a pooler: the caller turns it off).
 */
export function runnerOn(
  pool: pg.Pool,
  queryTimeoutMs: number | null,
  pooler: boolean,
  prepare = false,
): StatementRunner {
  const options = (pool as { options?: pg.ClientConfig }).options ?? null;
  return new StatementRunner(
    pool,
    queryTimeoutMs,
    new BackendReaper(clientClassOf(pool), pooler ? null : options),
    prepare ? new StatementNames() : null,
  );
}

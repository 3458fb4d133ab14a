import type pg from "pg";
import type { BackendKey } from "./cancel-request.js";
import { sleep, within } from "./timing.js";

/** How long a connection that is no longer wanted gets to end politely (Terminate, then the server closes it). */
export const END_GRACE_MS = 2_000;
/** The cleanup connection's `application_name`, so operators can tell it from the pool's. */
export const CLEANUP_APPLICATION_NAME = "message-store:cleanup";
/** Longest pause between attempts to reach a server that does not answer, in ms. */
const MAX_BACKOFF_MS = 5_000;
/** How long one cleanup statement may take before the attempt counts as failed, in ms. */
const CLEANUP_QUERY_TIMEOUT_MS = 5_000;

/** A pooled connection the store no longer uses, and how to find its backend. */
export interface Retiree {
  client: pg.PoolClient;
  /** The backend's key (null: the driver did not report one). */
  key: BackendKey | null;
  /** The local TCP port of the connection (`client_port` in `pg_stat_activity`), if TCP. */
  localPort: number | null;
}

/**
 * Keeps a connection's pool slot occupied until its server backend is gone, so that the server
 * never has more of the store's backends than `pool_max`. A connection whose statement was
 * abandoned (the server did not answer) is dropped at once, and its backend, which the server
 * may still be running, is looked up from one separate cleanup connection, terminated
 * (`pg_terminate_backend`) and waited for, retrying until the server answers again; only then
 * does the slot go back to the pool. A connection that merely cannot be reused is ended politely,
 * and only looked up if the server does not close it within {@link END_GRACE_MS}.
 *
 * Terminating an abandoned backend changes no outcome the caller was told: a write on it was
 * reported as `OutcomeUnknownError` (it may have committed before the server froze), and one
 * still running when the backend is terminated rolls back.
 */
export class BackendReaper {
  readonly #config: pg.ClientConfig | null;
  readonly #Client: typeof pg.Client;
  readonly #held = new Set<pg.PoolClient>();
  #lookups: Promise<void> = Promise.resolve();
  #pendingLookups = 0;
  #cleanup: pg.Client | null = null;
  #closed = false;

  /**
   * `config`: how to open the cleanup connection (the pool's own options; `null` for a pool that
   * has none, whose retired connections are then given back once dropped).
   */
  constructor(Client: typeof pg.Client, config: pg.ClientConfig | null) {
    this.#Client = Client;
    this.#config = config && {
      ...config,
      application_name: CLEANUP_APPLICATION_NAME,
      connectionTimeoutMillis: config.connectionTimeoutMillis || 10_000,
      query_timeout: CLEANUP_QUERY_TIMEOUT_MS,
      keepAlive: true,
    };
  }

  /** How many connections are held back from the pool right now. */
  get holding(): number {
    return this.#held.size;
  }

  /** Ends a connection that answered but must not be reused; its slot returns once it closed. */
  end(retiree: Retiree): void {
    if (!this.#hold(retiree.client)) return;
    const ended = retiree.client.end().then(
      () => true,
      () => false,
    );
    void within(ended, END_GRACE_MS).then((closed) => {
      if (closed === true) this.#release(retiree.client);
      else this.#lookUp(retiree);
    });
  }

  /** Drops a connection whose server did not answer; its slot returns once its backend is gone. */
  drop(retiree: Retiree): void {
    if (!this.#hold(retiree.client)) return;
    this.#lookUp(retiree);
  }

  /**
   * Gives every held slot back and stops looking (the store is closing). Backends of a server
   * that never answered again may outlive the store.
   */
  close(): void {
    this.#closed = true;
    for (const client of [...this.#held]) this.#release(client);
    this.#cleanup?.connection.stream.destroy();
    this.#cleanup = null;
  }

  #hold(client: pg.PoolClient): boolean {
    if (this.#closed) {
      client.connection.stream.destroy();
      client.release(new Error("store closed"));
      return false;
    }
    // A dropped connection reports its end as an error event; without a listener it would crash the process.
    client.on("error", () => {});
    this.#held.add(client);
    return true;
  }

  #release(client: pg.PoolClient): void {
    if (!this.#held.delete(client)) return;
    client.connection.stream.destroy();
    client.release(new Error("connection retired"));
  }

  /** Queues the lookup: one cleanup connection, one backend at a time. */
  #lookUp(retiree: Retiree): void {
    retiree.client.connection.stream.destroy();
    if (retiree.key === null || this.#config === null) {
      this.#release(retiree.client);
      return;
    }
    const key = retiree.key;
    this.#pendingLookups++;
    this.#lookups = this.#lookups
      .then(() => this.#awaitGone(key.pid, retiree.localPort))
      .catch(() => {})
      .finally(() => {
        this.#release(retiree.client);
        // The cleanup connection only lives while there is something to clean up.
        if (--this.#pendingLookups === 0) this.#endCleanup();
      });
  }

  #endCleanup(): void {
    const client = this.#cleanup;
    this.#cleanup = null;
    if (!client) return;
    const timer = setTimeout(() => client.connection.stream.destroy(), END_GRACE_MS);
    void client
      .end()
      .catch(() => {})
      .finally(() => clearTimeout(timer));
  }

  async #awaitGone(pid: number, port: number | null): Promise<void> {
    let backoff = 100;
    while (!this.#closed) {
      try {
        const client = await this.#connection();
        const { rows } = await client.query(
          "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND ($2::int IS NULL OR client_port = $2)",
          [pid, port],
        );
        if (rows.length === 0) return;
        // Not allowed for another role's backend; then it is waited for instead.
        await client.query("SELECT pg_terminate_backend($1)", [pid]).catch(() => {});
        await sleep(50);
        backoff = 100;
      } catch {
        this.#cleanup?.connection.stream.destroy();
        this.#cleanup = null;
        await sleep(backoff);
        backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      }
    }
  }

  async #connection(): Promise<pg.Client> {
    if (this.#cleanup) return this.#cleanup;
    const client = new this.#Client(this.#config!);
    client.on("error", () => {
      if (this.#cleanup === client) this.#cleanup = null;
    });
    await client.connect();
    if (this.#closed) {
      await client.end().catch(() => {});
      throw new Error("store closed");
    }
    this.#cleanup = client;
    return client;
  }
}

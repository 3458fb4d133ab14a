import { findFreePort } from "./free-port.js";

/** A PGlite database (in memory, with pgvector) served over the PostgreSQL wire protocol. */
export interface PgliteServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: `pg` connects to it like to a server. */
  readonly url: string;
  /** Stops listening and closes the database. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts PGlite (PostgreSQL compiled to WASM, in this process) with the pgvector extension
 * available, served by `@electric-sql/pglite-socket` on a free local port.
 *
 * PGlite is one backend: every connection shares its session, and the socket server runs one
 * query at a time (a transaction's statements go before other connections' queries). Open stores
 * on it with `pool_max: 1`; `statement_timeout` and cancel requests have no effect.
 */
export async function startPgliteServer(): Promise<PgliteServer> {
  // Imported on first use: only the PGlite lanes load the WASM build.
  const { PGlite } = await import("@electric-sql/pglite");
  const { vector } = await import("@electric-sql/pglite-pgvector");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create({ extensions: { vector } });
  const port = await findFreePort();
  const server = new PGLiteSocketServer({ db, port, host: "127.0.0.1", maxConnections: 4 });
  await server.start();
  let stopped: Promise<void> | null = null;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      stopped ??= (async () => {
        await server.stop();
        await db.close();
      })();
      return stopped;
    },
  };
}

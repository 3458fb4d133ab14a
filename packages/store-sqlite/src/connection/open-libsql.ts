import type { ResolvedSqliteConfig } from "../config.js";
import { LibsqlConnection } from "./libsql-connection.js";

/**
 * Opens a libSQL database (the client is loaded on first use). A local `file:` database gets
 * WAL, `synchronous`, foreign keys and no library busy handler (the connection waits for locks
 * itself); a remote one is configured by its server.
 */
export async function openLibsql(
  url: string,
  config: ResolvedSqliteConfig,
): Promise<LibsqlConnection> {
  const { createClient } = await import("@libsql/client");
  const local = url.startsWith("file:");
  const client = createClient({
    url,
    ...(config.auth_token === undefined ? {} : { authToken: config.auth_token }),
    // One connection: the pragmas below are per connection.
    concurrency: 1,
  });
  try {
    if (local) {
      await client.execute(`PRAGMA busy_timeout = ${config.busy_timeout_ms}`);
      if (url !== "file::memory:" && !url.startsWith("file::memory:?"))
        await client.execute("PRAGMA journal_mode = WAL");
      await client.execute("PRAGMA busy_timeout = 0");
      await client.execute(`PRAGMA synchronous = ${config.synchronous}`);
      await client.execute("PRAGMA foreign_keys = ON");
    }
  } catch (error) {
    client.close();
    throw error;
  }
  return new LibsqlConnection(client, config.busy_timeout_ms);
}

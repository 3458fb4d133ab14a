import { randomBytes } from "node:crypto";
import pg from "pg";

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Creates a fresh, empty database with a unique name (`<prefix>_<time>_<random>`, lower case)
 * on the server at `baseUrl` (connecting to `baseUrl` itself to run `CREATE DATABASE`).
 * Returns `baseUrl` with the database path replaced by the new database.
 */
export async function createTestDatabase(baseUrl: string, prefix = "test"): Promise<string> {
  const safePrefix =
    prefix
      .toLowerCase()
      .replace(/[^a-z0-9_]/g, "_")
      .slice(0, 30) || "test";
  const name = `${safePrefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  await withClient(baseUrl, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Drops the database named in `url` (`DROP DATABASE IF EXISTS … WITH (FORCE)`, which also
 * terminates its open connections), connecting to the `postgres` database on the same server.
 */
export async function dropTestDatabase(url: string): Promise<void> {
  const parsed = new URL(url);
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  if (!name) throw new Error(`dropTestDatabase: no database name in ${url}`);
  if (name === "postgres") throw new Error("dropTestDatabase: refusing to drop `postgres`");
  parsed.pathname = "/postgres";
  await withClient(parsed.toString(), (c) =>
    c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`),
  );
}

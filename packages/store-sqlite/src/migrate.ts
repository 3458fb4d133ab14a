import { ConfigurationError, CorruptDataError } from "@message-store/core";
import { ADAPTER } from "./config.js";
import type { SqliteConnection } from "./connection/sqlite-connection.js";
import { noData } from "./errors.js";
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION } from "./sql/migrations.js";

/**
 * Brings the database to {@link SCHEMA_VERSION}: the steps it lacks, each recorded with its
 * name, all in one write transaction, so two processes opening a new file at once run them
 * once (the second waits for the write lock, then finds them done). Checked: a recorded step
 * must carry the name this version gives it, and a database of a newer version is refused
 * rather than written with an older layout.
 */
export async function migrate(
  connection: SqliteConnection,
  location: string,
  create: boolean,
): Promise<void> {
  await connection.write(async (tx) => {
    if (!create) {
      const [table] = await tx.all(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
        [MIGRATIONS_TABLE],
      );
      if (!table) throw noData(location);
    }
    await tx.run(
      `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`,
    );
    const done = await tx.all<{ version: number; name: string }>(
      `SELECT version, name FROM ${MIGRATIONS_TABLE} ORDER BY version`,
    );
    for (const row of done) {
      if (row.version > SCHEMA_VERSION)
        throw new ConfigurationError(
          `the database at ${location} has schema version ${row.version}; this version of @message-store/sqlite reads up to ${SCHEMA_VERSION} (upgrade the package)`,
          { adapter: ADAPTER },
        );
      const step = MIGRATIONS.find((m) => m.version === row.version);
      if (step?.name !== row.name)
        throw new CorruptDataError(
          `schema step ${row.version} of the database is "${row.name}", expected "${step?.name}"`,
          location,
          { adapter: ADAPTER },
        );
    }
    const applied = new Set(done.map((row) => row.version));
    for (const step of MIGRATIONS) {
      if (applied.has(step.version)) continue;
      await tx.script(step.sql);
      await tx.run(`INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`, [
        step.version,
        step.name,
        Date.now(),
      ]);
    }
  });
}

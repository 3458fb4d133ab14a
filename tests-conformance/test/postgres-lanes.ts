import pg from "pg";

/** Empties the adapter's tables in `schema` (the PostgreSQL lanes' `reset`). */
export async function truncateTables(dsn: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: dsn });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(
      `TRUNCATE TABLE "${schema}".conversations, "${schema}".messages, "${schema}".turn_traces CASCADE`,
    );
  } catch (error) {
    // Before the first open neither the schema (3F000) nor the tables (42P01) exist yet.
    if (!["3F000", "42P01"].includes((error as { code?: string }).code ?? "")) throw error;
  } finally {
    await client.end().catch(() => {});
  }
}

import { randomBytes } from "node:crypto";
import { inject } from "vitest";

/** The PostgreSQL URL and a schema of its own for one application run. */
export async function freshSchema(): Promise<{ DSN: string; SCHEMA: string }> {
  return { DSN: inject("postgresUrl"), SCHEMA: `packed_${randomBytes(4).toString("hex")}` };
}

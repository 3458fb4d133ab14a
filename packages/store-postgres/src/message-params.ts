import type { Message } from "@message-store/core";
import { decodeNullable, decodeText } from "./nul-codec.js";
import { paramWriter, type StoredFact } from "./row-mapping.js";
import { MESSAGE } from "./sql/columns.js";

/**
 * The parameters of `ms_write_message` (`sql/message-writes.ts`): one value per column, in column
 * order, each through its column's codec (the NUL escape, JSON text for `jsonb`).
 */
export const messageParams = paramWriter<Message>(MESSAGE);

/** The write functions' rows as `asStored` takes them, the NUL escape of the ids undone. */
export function storedFacts(rows: readonly Record<string, unknown>[]): StoredFact[] {
  return rows.map((r) => [
    decodeText(r.id as string),
    decodeNullable(r.tenant_id as string | null),
    r.pending as boolean,
    r.timestamp as number,
  ]);
}

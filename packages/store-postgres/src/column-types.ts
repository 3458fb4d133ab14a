import pg from "pg";
import { parseJsonColumn } from "./nul-codec.js";

const BOOL = 16;
const INT8 = 20;
const INT4 = 23;
const TEXT = 25;
const JSON_OID = 114;
const FLOAT8 = 701;
const FLOAT8_ARRAY = 1022;
const JSONB = 3802;

const identity = (text: string): string => text;

/** `{1.5,-2,3e-7}` → numbers. PostgreSQL prints floats shortest-exact (extra_float_digits ≥ 1). */
function parseFloat8Array(text: string): number[] {
  const body = text.slice(1, -1);
  return body === "" ? [] : body.split(",").map(Number);
}

const PARSERS: Record<number, (text: string) => unknown> = {
  [BOOL]: (text) => text === "t",
  [INT8]: Number, // epoch ms, counts and sequence numbers: all safe integers
  [INT4]: Number,
  [TEXT]: identity,
  [FLOAT8]: Number,
  [FLOAT8_ARRAY]: parseFloat8Array,
  [JSON_OID]: parseJsonColumn,
  [JSONB]: parseJsonColumn,
};

/**
 * Result parsers this package sets on every query it sends, so that global parsers registered
 * on `pg.types` by the application (BigInt for int8, strings for floats) cannot change what the
 * store returns. `jsonb` is parsed with the NUL escape undone. Other types (only `numeric` sums
 * here, kept as text) use pg's parsers.
 */
export const columnTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    const parser = format === "binary" ? undefined : PARSERS[oid];
    return parser ?? pg.types.getTypeParser(oid, format ?? "text");
  }) as pg.CustomTypesConfig["getTypeParser"],
};

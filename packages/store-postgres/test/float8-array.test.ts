import { describe, expect, it } from "vitest";
import { decodeFloat8Array } from "../src/float8-array.js";
import { useDatabase, withClient } from "./helpers.js";

/**
 * Search hits carry their embedding as `array_send` bytes: decoded, they must be the very numbers
 * the text form gives (the rest of the store reads embeddings as text), bit for bit, and anything
 * that is not a one-dimensional float8 array must come back undecoded so that validation rejects it.
 */

const db = useDatabase("ms_pg_float8_send");

const CASES = [
  "'{}'::float8[]",
  "'{0.1,-0.2,1e-300,-1e300,5e-324,0,-0,123456789.123456789}'::float8[]",
  "'{NaN,Infinity,-Infinity}'::float8[]",
  "'{1,NULL,3}'::float8[]",
  "'[0:1]={7,8}'::float8[]",
  "array(SELECT (random() - 0.5) * 10 ^ (random() * 40 - 20) FROM generate_series(1, 1536))",
];

describe("decodeFloat8Array", () => {
  it.each(CASES)("reads %s as its text form reads it", async (literal) => {
    await withClient(db.url(), async (c) => {
      const { rows } = await c.query(
        `SELECT v AS text, array_send(v) AS bytes FROM (SELECT ${literal} AS v) x`,
      );
      const decoded = decodeFloat8Array(rows[0].bytes);
      expect(Array.isArray(decoded)).toBe(true);
      const text = rows[0].text as (number | null)[];
      const numbers = decoded as (number | null)[];
      expect(numbers.length).toBe(text.length);
      for (const [i, x] of numbers.entries())
        expect(Object.is(x, text[i]), `element ${i}`).toBe(true);
    });
  });

  it("leaves what is not a one-dimensional float8 array undecoded", async () => {
    await withClient(db.url(), async (c) => {
      const { rows } = await c.query(
        `SELECT array_send('{{1,2},{3,4}}'::float8[]) AS two_d, array_send('{1,2}'::int4[]) AS ints,
                array_send('{1,2}'::float8[]) AS whole`,
      );
      expect(decodeFloat8Array(rows[0].two_d)).toBe(rows[0].two_d);
      expect(decodeFloat8Array(rows[0].ints)).toBe(rows[0].ints);
      const truncated = rows[0].whole.subarray(0, rows[0].whole.length - 1);
      expect(decodeFloat8Array(truncated)).toBe(truncated);
    });
  });
});

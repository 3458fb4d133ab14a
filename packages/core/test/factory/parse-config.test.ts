import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseConfig } from "../../src/adapter.js";
import { ConfigurationError } from "../../src/index.js";

const Schema = z.strictObject({
  dsn: z.string().min(1),
  pool_max: z.number().int().min(1).default(10),
});

describe("parseConfig", () => {
  it("removes the adapter's own storage key and fills defaults", () => {
    expect(parseConfig(Schema, { storage: "pg", dsn: "x" }, "pg")).toEqual({
      dsn: "x",
      pool_max: 10,
    });
    expect(parseConfig(Schema, { dsn: "x", pool_max: 3 }, "pg")).toEqual({ dsn: "x", pool_max: 3 });
  });

  it("names every problem, with the adapter prefix, and never echoes a value", () => {
    const error = (() => {
      try {
        parseConfig(Schema, { dsn: 42, poolMax: "postgres://u:hunter2@h" }, "pg");
      } catch (e) {
        return e as ConfigurationError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error?.message).toMatch(/^\[message-store\] \[pg\] invalid pg config: /);
    expect(error?.message).toContain("dsn:");
    expect(error?.message).toContain('"poolMax"');
    expect(error?.message).not.toContain("hunter2");
  });

  it("refuses a config meant for another storage and a non-object", () => {
    expect(() => parseConfig(Schema, { storage: "json", dsn: "x" }, "pg")).toThrow(
      /config for storage "json" given to the pg adapter/,
    );
    expect(() => parseConfig(Schema, "postgres://x", "pg")).toThrow(/pg config must be an object/);
  });

  it("answers a misspelt key with the key it likely means, through refinements too", () => {
    const Refined = Schema.extend({ pool: z.string().optional() }).refine(
      (c) => (c.dsn === undefined) !== (c.pool === undefined),
      "give exactly one of dsn or pool",
    );
    expect(() => parseConfig(Refined, { dsn: "x", poolMax: 3 }, "pg")).toThrow(
      'unknown key "poolMax" (did you mean "pool_max"?)',
    );
    expect(() => parseConfig(Refined, { dsn: "x", pol: "y" }, "pg")).toThrow(
      'unknown key "pol" (did you mean "pool"?)',
    );
    // Nothing close: no suggestion.
    expect(() => parseConfig(Schema, { dsn: "x", replication: 1 }, "pg")).toThrow(
      /unknown key "replication"$/,
    );
  });

  it("names a key given as undefined first: an unset environment variable reads as one", () => {
    expect(() => parseConfig(Schema, { dsn: undefined }, "pg")).toThrow(
      /invalid pg config: dsn is undefined \(given with no value: is the environment variable it is read from set\?\); dsn: /,
    );
  });
});

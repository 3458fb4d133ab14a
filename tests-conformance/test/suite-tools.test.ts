import { describe, expect, it } from "vitest";
import { expectRule, SUITE_NAMES, selectSuites } from "../src/index.js";

// The suite runs against real adapters from each adapter's own test folder
// (packages/store-*/test/conformance.test.ts); the planted-bug self-tests live beside the JSON
// adapter's. What is tested here needs no adapter.

describe("selectSuites", () => {
  it("runs everything by default", () => {
    expect(selectSuites({})).toEqual({ run: [...SUITE_NAMES], skipped: [] });
  });

  it("only and skip, from options and the environment, keep the run order", () => {
    process.env.MESSAGE_STORE_CONFORMANCE_SKIP = "search";
    try {
      const { run, skipped } = selectSuites({ only: ["search", "cascade", "ordering"] });
      expect(run).toEqual(["ordering", "cascade"]);
      expect(skipped).toContain("search");
      expect(skipped).toContain("messages");
    } finally {
      delete process.env.MESSAGE_STORE_CONFORMANCE_SKIP;
    }
  });

  it("an unknown suite name is an error listing the known ones", () => {
    expect(() => selectSuites({ skip: ["serch"] })).toThrow(
      /unknown suite name\(s\) serch; known: conversations/,
    );
  });
});

describe("expectRule", () => {
  it("names the rule and the path of the first differing field, never a truncated object", () => {
    const actual = { conversations: 3, messages: 9, turnTraces: 2 };
    const expected = { conversations: 3, messages: 9, turnTraces: 1 };
    expect(() => expectRule("no orphans", "inspect()", actual, expected)).toThrow(
      '[rule] no orphans\n  inspect()["turnTraces"]: got 2, expected 1',
    );
  });

  it("shows arrays of different lengths whole, with the first differing index", () => {
    expect(() => expectRule("r", "ids", ["a", "c"], ["a", "b", "c"])).toThrow(
      'ids: length 2, expected 3 (first difference ids[1]: got "c", expected "b"): got ["a","c"], expected ["a","b","c"]',
    );
  });
});

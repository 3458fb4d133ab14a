import { describe, expect, it } from "vitest";
import { formatCost, formatCountOf, formatRecordCounts } from "../src/format/numbers.js";

describe("formatCost", () => {
  it.each([
    [0, "$0"],
    [0.0123, "$0.0123"],
    [0.5, "$0.5000"],
    [0.00012, "$0.00012"],
    [0.000012, "$0.000012"],
    [0.0000123, "$0.000012"],
    [1.5e-9, "$0.0000000015"],
    [1, "$1.00"],
    [1234.5, "$1,234.50"],
  ])("%d → %s", (usd, text) => {
    expect(formatCost(usd)).toBe(text);
  });

  it("never shows a cost above zero as zero", () => {
    for (let exponent = -15; exponent < 0; exponent++) {
      const text = formatCost(3 * 10 ** exponent);
      expect(Number(text.slice(1).replace(/,/g, "")), text).toBeGreaterThan(0);
    }
  });
});

describe("formatCountOf", () => {
  it("is singular for exactly one", () => {
    expect(formatCountOf(1, "conversation")).toBe("1 conversation");
    expect(formatCountOf(0, "user")).toBe("0 users");
    expect(formatCountOf(12_345, "message")).toBe("12,345 messages");
    expect(formatRecordCounts({ conversations: 1, messages: 2, turnTraces: 1 })).toBe(
      "1 conversation, 2 messages, 1 trace",
    );
  });
});

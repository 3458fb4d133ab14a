import { expect } from "vitest";
import { firstDifference } from "./first-difference.js";

/**
 * Asserts that `actual` deeply equals `expected`; on a mismatch fails with a message that names
 * the contract rule, the call (`label`) and the path of the first field that differs, with both
 * values in full at that path — never vitest's truncated `{ …(1) }` rendering of whole objects:
 *
 * ```text
 * [rule] summarizeUsage filters by agentId AND userId when both are given
 *   summarizeUsage({ agentId, userId })[0]["turns"]: got 2, expected 1
 * ```
 */
export function expectRule(rule: string, label: string, actual: unknown, expected: unknown): void {
  const difference = firstDifference(actual, expected, label);
  if (difference !== null) expect.fail(`[rule] ${rule}\n  ${difference}`);
}

/** Fails with the rule's name and `detail` unless `condition` holds. */
export function assertRule(rule: string, condition: boolean, detail: string): void {
  if (!condition) expect.fail(`[rule] ${rule}\n  ${detail}`);
}

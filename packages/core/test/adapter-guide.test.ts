import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPERATION_FAMILIES } from "../src/adapter.js";

/**
 * ADAPTERS.md's operation table is what outside authors read; core's operation table is what
 * the code derives from. They must say the same: every operation once, in its family, with its
 * capability.
 */
const GUIDE = new URL("../ADAPTERS.md", import.meta.url);

function guideRows(): { op: string; family: string; capability: string | null }[] {
  const text = readFileSync(GUIDE, "utf8");
  const start = text.indexOf("| operation | family | capability |");
  expect(start).toBeGreaterThan(0);
  const rows = [];
  for (const line of text.slice(start).split("\n").slice(2)) {
    if (!line.startsWith("|")) break;
    const [op, family, capability] = line
      .split("|")
      .slice(1, 4)
      .map((c) => c.trim());
    rows.push({
      op: op!.replace(/`/g, ""),
      family: family!,
      capability: capability === "—" ? null : capability!.replace(/`/g, ""),
    });
  }
  return rows;
}

describe("the adapter guide's operation table", () => {
  it("lists every operation of core's table once, with its family and capability", () => {
    const table = Object.entries(OPERATION_FAMILIES).flatMap(([family, ops]) =>
      Object.entries(ops).map(([op, spec]) => ({
        op,
        family,
        capability: (spec as { capability?: string }).capability ?? null,
      })),
    );
    const byOp = (a: { op: string }, b: { op: string }) => a.op.localeCompare(b.op);
    expect(guideRows().sort(byOp)).toEqual(table.sort(byOp));
  });
});

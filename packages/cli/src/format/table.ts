import Table from "cli-table3";
import { visible } from "./visible.js";

/** Column alignment: numbers read best right-aligned. */
export type Align = "left" | "right";

/**
 * Renders a table with cli-table3, without colours (output is the same on a terminal, in a
 * pipe and in a README). With `footer`, the last row is set apart as a total.
 */
export function renderTable(
  head: string[],
  rows: (string | number)[][],
  align: Align[] = [],
  options: { footer?: boolean } = {},
): string {
  const table = new Table({
    head,
    style: { head: [], border: [], compact: false },
    colAligns: head.map((_, i) => align[i] ?? "left"),
  });
  for (const row of rows) table.push(row.map((cell) => visible(String(cell))));
  // Keep the rule under the header (and above a footer row); drop the ones between data rows.
  const lines = table.toString().split("\n");
  const rules = lines.flatMap((line, i) => (line.startsWith("├") ? [i] : []));
  const keep = new Set([rules[0], options.footer ? rules[rules.length - 1] : undefined]);
  return lines.filter((line, i) => !line.startsWith("├") || keep.has(i)).join("\n");
}

/** Aligned `key  value` lines (no borders), for overviews. */
export function renderKeyValues(pairs: [string, string | number][]): string {
  const width = Math.max(...pairs.map(([key]) => key.length));
  return pairs.map(([key, value]) => visible(`${key.padEnd(width)}  ${value}`)).join("\n");
}

/** A statement and its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** Collects parameters and hands out their `$n` placeholders. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** ` WHERE a AND b`, or nothing. */
export function whereClause(conditions: string[]): string {
  return conditions.length === 0 ? "" : `\n WHERE ${conditions.join("\n   AND ")}`;
}

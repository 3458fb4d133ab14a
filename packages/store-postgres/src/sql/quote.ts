/**
 * Quoting for the only things spliced into SQL text: identifiers from this package's fixed tables
 * (columns, functions) and the configured schema name, which the config restricts to
 * `[A-Za-z_][A-Za-z0-9_]{0,62}`. Values always travel as parameters.
 */

/** Quotes an SQL identifier (`my schema` → `"my schema"`). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Quotes an SQL string literal. Only for DDL-time constants built from identifiers. */
export function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

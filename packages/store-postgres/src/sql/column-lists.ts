import type { StoredField } from "./columns.js";
import { quoteIdent } from "./quote.js";

/**
 * The SQL fragments every statement and function builds from a column table (`columns.ts`), so
 * no column list is written by hand. Identifiers only: no value ever passes through here.
 */

/** Joins items with `, `, breaking lines before they pass 100 characters. */
function wrap(items: readonly string[], indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const item of items) {
    const next = line === "" ? item : `${line}, ${item}`;
    if (line !== "" && indent.length + next.length >= 98) {
      lines.push(`${line},`);
      line = item;
    } else {
      line = next;
    }
  }
  lines.push(line);
  return lines.join(`\n${indent}`);
}

/** `"id", "conversation_id", …`, optionally qualified (`m."id"`): an INSERT's column list. */
export function columnList(fields: readonly StoredField[], qualifier = "", indent = "  "): string {
  return wrap(
    fields.map((f) => qualifier + quoteIdent(f.column.name)),
    indent,
  );
}

/**
 * `"id", "conversation_id" AS "conversationId", …`: a SELECT or RETURNING list that names each
 * column after its model field, so rows arrive in the model's shape and need no copying;
 * `overrides` gives another expression for some columns (by column name). Empty `jsonb` values
 * arrive as NULL (`Codec.empty`); the row mapping restores them.
 */
export function selectList(
  fields: readonly StoredField[],
  indent = "  ",
  overrides: Readonly<Record<string, string>> = {},
): string {
  return wrap(
    fields.map((f) => {
      const { name, empty } = f.column;
      const expression = overrides[name];
      if (expression !== undefined) return `${expression} AS ${quoteIdent(f.key)}`;
      if (empty !== undefined)
        return `NULLIF(${quoteIdent(name)}, '${empty}'::jsonb) AS ${quoteIdent(f.key)}`;
      return name === f.key ? quoteIdent(f.key) : `${quoteIdent(name)} AS ${quoteIdent(f.key)}`;
    }),
    indent,
  );
}

/**
 * `"user_id" = EXCLUDED."user_id", …`: an upsert's SET list, every column but the key `id`;
 * `overrides` gives another expression for some columns (by column name).
 */
export function setList(
  fields: readonly StoredField[],
  indent = "  ",
  overrides: Readonly<Record<string, string>> = {},
): string {
  const set = fields
    .filter((f) => f.column.name !== "id")
    .map(
      (f) =>
        `${quoteIdent(f.column.name)} = ${overrides[f.column.name] ?? `EXCLUDED.${quoteIdent(f.column.name)}`}`,
    );
  return wrap(set, indent);
}

/**
 * `"id" text, "conversationId" text, …`: the model's JSON keys typed as their columns, the
 * column definition of `jsonb_to_record(set)`, which reads a record as the model serialises it.
 */
export function recordDefinition(fields: readonly StoredField[], indent = "  "): string {
  return wrap(
    fields.map((f) => `${quoteIdent(f.key)} ${f.column.type}`),
    indent,
  );
}

/** `"id", "conversationId", …`: the names of such a record's fields, in order. */
export function fieldNames(fields: readonly StoredField[], indent = "  "): string {
  return wrap(
    fields.map((f) => quoteIdent(f.key)),
    indent,
  );
}

/**
 * `x."id", x."conversationId", …`: the fields of such a record, in order; `overrides` gives
 * another expression for some fields (by model key).
 */
export function recordFields(
  fields: readonly StoredField[],
  record: string,
  indent = "  ",
  overrides: Readonly<Record<string, string>> = {},
): string {
  return wrap(
    fields.map((f) => overrides[f.key] ?? `${record}.${quoteIdent(f.key)}`),
    indent,
  );
}

/** `p_id text, p_message_id text, …`: one function parameter per column. */
export function parameterDefinitions(fields: readonly StoredField[], indent = "  "): string {
  return wrap(
    fields.map((f) => `${parameterName(f)} ${f.column.type}`),
    indent,
  );
}

/** `p_id, p_message_id, …`: those parameters, in order (`overrides` by column name). */
export function parameterNames(
  fields: readonly StoredField[],
  indent = "  ",
  overrides: Readonly<Record<string, string>> = {},
): string {
  return wrap(
    fields.map((f) => overrides[f.column.name] ?? parameterName(f)),
    indent,
  );
}

/** `$1::text, $2::text, …`: statement placeholders typed as the columns. */
export function placeholders(fields: readonly StoredField[], indent = "  "): string {
  return wrap(
    fields.map((f, i) => `$${i + 1}::${f.column.type}`),
    indent,
  );
}

function parameterName(f: StoredField): string {
  return `p_${f.column.name}`;
}

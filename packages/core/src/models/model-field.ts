import { z } from "zod";
import type { Field, FieldCheck } from "../canonical/canonical-object.js";

/**
 * One field of a model, declared once: its zod schema (with its default, if any) and the
 * structural check of the canonical fast path that must agree with it. A model is a table of
 * these, in field order; its zod schema, its canonical check and the adapters' column lists are
 * all derived from that table (see {@link shapeOf}, {@link fieldsOf}).
 */
export interface ModelField<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly check: FieldCheck;
  /** Makes the default for a missing value; absent for a required field. */
  readonly fallback?: () => unknown;
}

/** A required field. */
export function required<S extends z.ZodType>(schema: S, check: FieldCheck): ModelField<S> {
  return { schema, check };
}

/** A field with a default, made fresh on every use (so no two records share a default array). */
export function optional<S extends z.ZodType>(
  schema: S,
  check: FieldCheck,
  fallback: () => z.output<S>,
): ModelField<z.ZodDefault<S>> {
  return { schema: schema.default(fallback as never) as z.ZodDefault<S>, check, fallback };
}

/** A model's fields by name, in order. */
export type ModelFields = Record<string, ModelField>;

/** The zod shape of a field table, for `z.strictObject(shapeOf(table))`. */
export function shapeOf<T extends ModelFields>(table: T): { [K in keyof T]: T[K]["schema"] } {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(table)) shape[key] = field.schema;
  return shape as { [K in keyof T]: T[K]["schema"] };
}

/** The canonical check's field list of a table, in the table's order. */
export function fieldsOf(table: ModelFields): readonly Field[] {
  return Object.entries(table).map(([key, f]) =>
    f.fallback ? { key, check: f.check, fallback: f.fallback } : { key, check: f.check },
  );
}

/** A field's schema without its default: what a stored record, which has every field, must match. */
type Stored<S> = S extends z.ZodDefault<infer Inner> ? Inner : S;

/** The zod shape of a table for complete records: defaults removed, every field required. */
export function storedShapeOf<T extends ModelFields>(
  table: T,
): { [K in keyof T]: Stored<T[K]["schema"]> } {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(table)) {
    shape[key] =
      field.schema instanceof z.ZodDefault ? (field.schema.unwrap() as z.ZodType) : field.schema;
  }
  return shape as { [K in keyof T]: Stored<T[K]["schema"]> };
}

/** The canonical check's field list for complete records: every field required. */
export function storedFieldsOf(table: ModelFields): readonly Field[] {
  return Object.entries(table).map(([key, f]) => ({ key, check: f.check }));
}

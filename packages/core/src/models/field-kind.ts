import type { ModelFields } from "./model-field.js";

/**
 * What a field holds, as far as copying it is concerned:
 * - `scalar`: a string, number, boolean or enum value, shared as is;
 * - `json`: free-form JSON (metadata, tool arguments, event objects), deep-copied;
 * - `list`: an array of values of kind `of`;
 * - `nullable`: `null` (or absent), else a value of kind `of`;
 * - `model`: a nested record with its own fields (`key` identifies it, so that a model nested
 *   in several places gets one copier).
 */
export type FieldKind =
  | { readonly type: "scalar" }
  | { readonly type: "json" }
  | { readonly type: "list"; readonly of: FieldKind }
  | { readonly type: "nullable"; readonly of: FieldKind }
  | { readonly type: "model"; readonly key: object; readonly fields: ModelKinds };

/** A model's fields with their kinds, in the model's order. */
export type ModelKinds = readonly (readonly [key: string, kind: FieldKind])[];

/** The part of a zod 4 schema's `def` read here. */
interface SchemaDef {
  type: string;
  innerType?: Schema;
  element?: Schema;
  in?: Schema;
  out?: Schema;
  shape?: Record<string, Schema>;
  catchall?: Schema;
}
interface Schema {
  def: SchemaDef;
}

const SCALAR: FieldKind = { type: "scalar" };
const JSON_VALUE: FieldKind = { type: "json" };
const SCALARS = new Set(["string", "number", "boolean", "enum", "literal", "null"]);
const WRAPPERS = new Set(["default", "prefault", "readonly", "nonoptional", "catch"]);

/**
 * The kind of a value of `schema`, read from its zod 4 definition (`def.type`). Anything not
 * recognised is `json`: a deep copy is right for every JSON value, only slower.
 */
export function kindOf(schema: Schema): FieldKind {
  const def = schema.def;
  if (WRAPPERS.has(def.type)) return kindOf(def.innerType!);
  switch (def.type) {
    case "nullable":
    case "optional":
      return { type: "nullable", of: kindOf(def.innerType!) };
    case "array":
      return { type: "list", of: kindOf(def.element!) };
    case "object":
      // Only a closed object (strict, or stripping unknown keys) is exactly its declared fields.
      if (def.catchall && def.catchall.def.type !== "never") return JSON_VALUE;
      return { type: "model", key: schema, fields: kindsOfShape(def.shape!) };
    case "pipe":
      // A transform's output type is not in the schema; core's only transforms normalise a
      // value without changing its shape (EmbeddingSchema: -0 → 0), so its input tells.
      return kindOf(def.out!.def.type === "transform" ? def.in! : def.out!);
    default:
      return SCALARS.has(def.type) ? SCALAR : JSON_VALUE;
  }
}

function kindsOfShape(shape: Record<string, Schema>): ModelKinds {
  return Object.entries(shape).map(([key, schema]) => [key, kindOf(schema)] as const);
}

/** The kinds of a field table's fields (`MESSAGE_FIELDS`, …), in the table's order. */
export function kindsOf(table: ModelFields): ModelKinds {
  return Object.entries(table).map(
    ([key, field]) => [key, kindOf(field.schema as unknown as Schema)] as const,
  );
}

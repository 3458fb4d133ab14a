import type { Json } from "@message-store/core";
import type { ModelFields } from "@message-store/core/adapter";
import { decodeJson, encodeJson } from "./key-codec.js";

type Raw = Record<string, unknown>;

/** How a field's value is stored, both ways. A field without one is stored as it is. */
export interface FieldCodec {
  encode(value: unknown): unknown;
  /** Also sees what another tool may have stored: passes through what it cannot have written. */
  decode(value: unknown): unknown;
}

/** Codecs for some fields of a model's field table, by name. */
export type FieldCodecs<T extends ModelFields> = { readonly [K in keyof T]?: FieldCodec };

/** One model field in a document: its model key, its document key and its codec. */
export interface StoredField {
  readonly key: string;
  /** `_id` for the model's `id`, the model key for every other field. */
  readonly name: string;
  readonly codec: FieldCodec | null;
}

/** Free-form JSON at document level `depth`: keys escaped, very deep containers as text. */
export function json(depth: number): FieldCodec {
  return {
    encode: (value) => encodeJson(value as Json, depth),
    decode: decodeJson,
  };
}

/** A list whose every item goes through `codec`. */
export function each(codec: FieldCodec): FieldCodec {
  return {
    encode: (list) => (list as unknown[]).map(codec.encode),
    decode: (list) => (Array.isArray(list) ? list.map(codec.decode) : list),
  };
}

/**
 * A list of nested model objects (fields of `table`, which types the keys of `codecs`) where only
 * `codecs`' fields need coding. Other keys, unknown ones included, are kept, so validation still
 * sees what was stored.
 */
export function items<T extends ModelFields>(_table: T, codecs: FieldCodecs<T>): FieldCodec {
  const coded = Object.entries(codecs) as [string, FieldCodec][];
  const map = (item: Raw, way: "encode" | "decode"): Raw => {
    const out = { ...item };
    for (const [key, codec] of coded) out[key] = codec[way](item[key]);
    return out;
  };
  return {
    encode: (list) => (list as Raw[]).map((item) => map(item, "encode")),
    decode: (list) =>
      Array.isArray(list)
        ? list.map((item) => (isRecord(item) ? map(item, "decode") : item))
        : list,
  };
}

function isRecord(value: unknown): value is Raw {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The document layout of a model, derived from its field table (whose key order is the schema's):
 * every field under its own name, `id` as `_id`, coded where `codecs` says.
 */
export function storedFields<T extends ModelFields>(
  table: T,
  codecs: FieldCodecs<T> = {},
): readonly StoredField[] {
  return Object.keys(table).map((key) => ({
    key,
    name: key === "id" ? "_id" : key,
    codec: codecs[key as keyof T] ?? null,
  }));
}

/** `fields` without those named in `keys` (the ones a write gives elsewhere, such as `id`). */
export function without(fields: readonly StoredField[], ...keys: string[]): readonly StoredField[] {
  return fields.filter((f) => !keys.includes(f.key));
}

/** Writes `model`'s `fields`, encoded, into `into` in field order. */
export function encodeFields(model: object, fields: readonly StoredField[], into: Raw = {}): Raw {
  const source = model as Raw;
  for (const f of fields) {
    const value = source[f.key];
    into[f.name] = f.codec ? f.codec.encode(value) : value;
  }
  return into;
}

/**
 * The model candidate of `doc`: `fields` decoded, in field order (so that core's canonical check
 * returns it as it is). A field the document lacks stays missing, for the schema to fill in or
 * report; adapter fields the layout does not name are left out.
 */
export function decodeFields(doc: Raw, fields: readonly StoredField[]): Raw {
  const out: Raw = {};
  for (const f of fields) {
    if (!(f.name in doc)) continue;
    const value = doc[f.name];
    out[f.key] = f.codec ? f.codec.decode(value) : value;
  }
  return out;
}

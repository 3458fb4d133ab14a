import { isPlainObject, isTextList, type Obj } from "./json-checks.js";

/**
 * Checks one field's value: returns it as the schema would output it (usually the same value),
 * or `undefined` when the schema would reject it or the check cannot tell. `copy` is passed on
 * to nested model objects.
 */
export type FieldCheck = (value: unknown, copy: boolean) => unknown;

/** One field of a model object, in schema order. */
export interface Field {
  key: string;
  check: FieldCheck;
  /** Makes the default for a missing (or `undefined`) value; absent: the field is required. */
  fallback?: () => unknown;
}

/** Wraps a boolean predicate as a check that returns the value itself. */
export const is =
  (predicate: (v: unknown) => boolean): FieldCheck =>
  (v) =>
    predicate(v) ? v : undefined;

/** `null`, or what `check` accepts. */
export const orNull =
  (check: FieldCheck): FieldCheck =>
  (v, copy) =>
    v === null ? null : check(v, copy);

/**
 * A strict model object as its zod schema outputs it: keys in schema order, defaults filled,
 * nested values canonical; `undefined` when the value is not a plain object, has a key the model
 * does not know, or a field fails its check (the caller then runs the schema, which names the
 * problem). Without `copy`, an object that already is canonical is returned itself; with it, the
 * result is always a new object.
 */
export function canonicalObject(
  value: unknown,
  fields: readonly Field[],
  copy: boolean,
): Obj | undefined {
  if (!isPlainObject(value)) return undefined;
  let keys = 0;
  let inOrder = true;
  for (const key in value) {
    if (inOrder && key !== fields[keys]?.key) inOrder = false;
    keys++;
  }
  let out: Obj | null = copy || !inOrder ? {} : null;
  let known = 0;
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    const raw = value[field.key];
    let result: unknown;
    if (raw === undefined) {
      // A key present with `undefined` counts as known: zod's strict objects accept it.
      if (Object.hasOwn(value, field.key)) known++;
      if (!field.fallback) return undefined;
      result = field.fallback();
    } else {
      known++;
      result = field.check(raw, copy);
      if (result === undefined) return undefined;
    }
    if (out === null && result !== raw) out = prefix(value, fields, i);
    if (out !== null) out[field.key] = result;
  }
  // Every key of `value` was one of the fields: none unknown. (Field names are not names of
  // `Object.prototype` members, so `value[field.key]` only finds own or explicit keys.)
  if (known !== keys) return undefined;
  if (out !== null) return out;
  // Symbol keys are not model fields; the schema's output drops them, so a reuse must too.
  return Object.getOwnPropertySymbols(value).length === 0
    ? value
    : prefix(value, fields, fields.length);
}

/** A new object with the first `count` fields of `value`, which were already canonical. */
function prefix(value: Obj, fields: readonly Field[], count: number): Obj {
  const out: Obj = {};
  for (let i = 0; i < count; i++) out[fields[i]!.key] = value[fields[i]!.key];
  return out;
}

/**
 * A list whose items pass `check`, as the schema outputs it: the same array when no item changed
 * (and not `copy`), otherwise a new one; `undefined` when an item fails.
 */
export function canonicalList(
  list: unknown,
  check: FieldCheck,
  copy: boolean,
): unknown[] | undefined {
  if (!Array.isArray(list)) return undefined;
  let out: unknown[] | null = copy ? [] : null;
  for (let i = 0; i < list.length; i++) {
    const item = check(list[i], copy);
    if (item === undefined) return undefined;
    if (out === null && item !== list[i]) out = list.slice(0, i);
    if (out !== null) out.push(item);
  }
  return out ?? list;
}

/** A check for a list of model objects. */
export const listOf =
  (check: FieldCheck): FieldCheck =>
  (v, copy) =>
    canonicalList(v, check, copy);

/** A list of strings; with `copy` a new array, as the schema makes one. */
export const textList: FieldCheck = (v, copy) =>
  isTextList(v) ? (copy ? (v as string[]).slice() : v) : undefined;

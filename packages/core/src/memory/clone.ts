import { CONVERSATION_FIELDS, type ConversationRecord } from "../models/conversation.js";
import { type FieldKind, kindsOf } from "../models/field-kind.js";
import { MESSAGE_FIELDS, type Message } from "../models/message.js";
import type { ModelFields } from "../models/model-field.js";
import { TURN_TRACE_FIELDS, type TurnTrace } from "../models/turn-trace.js";

/*
 * Records handed out or taken in are copied, so that a caller mutating them cannot change what
 * the store holds. Every read copies (`getImmediateContext(20)` copies 20 messages), so the copy
 * of a record is built from its model's field table (core's `MESSAGE_FIELDS` & co.) rather than
 * walked generically: scalars are shared, string and number lists sliced, nested records copied
 * field by field, and only free-form JSON goes through `cloneJson`.
 */

/**
 * Deep copy of a JSON value (plain objects, arrays, primitives). Faster than `structuredClone`
 * for this shape, and keeps `-0` and an own `"__proto__"` key.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = cloneJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__") {
      // Plain assignment would set the prototype instead of creating the key.
      Object.defineProperty(out, key, {
        value: child,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      out[key] = child;
    }
  }
  return out as T;
}

type Copy = (value: any) => any;

const identity: Copy = (value) => value;

/** Whether this runtime compiles code from strings (not under `--disallow-code-generation-from-strings`). */
const CAN_GENERATE = (() => {
  try {
    return new Function("return true")() === true;
  } catch {
    return false;
  }
})();

/**
 * A copier per kind. Generated: each model's copy is compiled, once at module load, into one
 * object literal (`{ "id": v["id"], "tags": v["tags"].slice(), … }`), the code a hand-written
 * copy would be, so every copy gets one hidden class and monomorphic field reads (a loop over
 * the field list is about 6× slower). The code comes from core's field tables only, never from
 * data. Interpreted: the same copies as closures, for runtimes that forbid code generation.
 */
function copiers(generate: boolean): (kind: FieldKind) => Copy {
  const models = new Map<object, Copy>();
  const of = (kind: FieldKind): Copy => {
    if (kind.type === "scalar") return identity;
    if (kind.type === "json") return cloneJson;
    if (kind.type !== "model")
      return generate ? compile((x, h) => expr(kind, x, h)) : closure(kind);
    let copy = models.get(kind.key);
    if (!copy) {
      copy = generate ? compile((x, h) => objectExpr(kind.fields, x, h)) : closure(kind);
      models.set(kind.key, copy);
    }
    return copy;
  };

  type Helper = (copy: Copy) => string;
  const q = JSON.stringify;
  const objectExpr = (fields: readonly (readonly [string, FieldKind])[], x: string, h: Helper) =>
    `{ ${fields.map(([key, kind]) => `${q(key)}: ${expr(kind, `${x}[${q(key)}]`, h)}`).join(", ")} }`;
  const expr = (kind: FieldKind, x: string, h: Helper): string => {
    switch (kind.type) {
      case "scalar":
        return x;
      case "nullable": {
        const inner = expr(kind.of, x, h);
        return inner === x ? x : `(${x} == null ? ${x} : ${inner})`;
      }
      case "list":
        return kind.of.type === "scalar" ? `${x}.slice()` : `${x}.map(${h(of(kind.of))})`;
      default:
        return `${h(of(kind))}(${x})`;
    }
  };
  const compile = (body: (x: string, h: Helper) => string): Copy => {
    const helpers: Copy[] = [];
    const code = body("v", (copy) => `h[${helpers.push(copy) - 1}]`);
    return new Function("h", `"use strict"; return function copy(v) { return ${code}; };`)(helpers);
  };

  const closure = (kind: FieldKind): Copy => {
    switch (kind.type) {
      case "nullable": {
        const copy = of(kind.of);
        return copy === identity ? identity : (v) => (v == null ? v : copy(v));
      }
      case "list": {
        const copy = of(kind.of);
        return kind.of.type === "scalar" ? (v) => v.slice() : (v) => v.map(copy);
      }
      case "model": {
        const fields = kind.fields.map(([key, field]) => [key, of(field)] as const);
        return (v) => {
          const out: Record<string, unknown> = {};
          for (const [key, copy] of fields) out[key] = copy(v[key]);
          return out;
        };
      }
      default:
        return of(kind);
    }
  };
  return of;
}

const generated = copiers(CAN_GENERATE);

/**
 * The deep copy of a record of `table`'s model: exactly its fields, in the table's order.
 * `generate: false` builds the interpreted copier (what runs where code generation is off).
 */
export function modelCopier<T>(table: ModelFields, generate = CAN_GENERATE): (record: T) => T {
  const of = generate === CAN_GENERATE ? generated : copiers(generate);
  return of({ type: "model", key: table, fields: kindsOf(table) });
}

export const cloneMessage = modelCopier<Message>(MESSAGE_FIELDS);
export const cloneTrace = modelCopier<TurnTrace>(TURN_TRACE_FIELDS);
/** A conversation record (without the read-only `lastActivityAt`). */
export const cloneConversation = modelCopier<ConversationRecord>(CONVERSATION_FIELDS);

import { type Message, MessageRoleSchema } from "../models/message.js";
import {
  canonicalObject,
  type Field,
  type FieldCheck,
  is,
  listOf,
  orNull,
  required,
  textList,
  withDefault,
} from "./canonical-object.js";
import { isId, isJson, isJsonObject, isNonEmptyText, isText } from "./json-checks.js";

const ROLES = new Set<unknown>(MessageRoleSchema.options);
const MAX_EMBEDDING = 65_536;

const text = is(isText);
const id = is(isId);
const texts = textList;
const none = () => null;
const emptyList = () => [];

const ENTITY: readonly Field[] = [
  required("name", is(isNonEmptyText)),
  withDefault("attributes", texts, emptyList),
];

const TOOL_CALL: readonly Field[] = [
  required("toolCallId", id),
  required("toolName", is(isNonEmptyText)),
  withDefault("arguments", is(isJsonObject), () => ({})),
  withDefault(
    "result",
    is((v) => isJson(v, 0)),
    none,
  ),
];

/** Finite numbers, 1 to 65,536 of them; `-0` becomes `0` as `EmbeddingSchema` does. */
const embedding: FieldCheck = (v, copy) => {
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_EMBEDDING) return undefined;
  let negativeZero = false;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) return undefined;
    if (x === 0 && Object.is(x, -0)) negativeZero = true;
  }
  return negativeZero || copy ? v.map((x: number) => x + 0) : v;
};

const MESSAGE: readonly Field[] = [
  required("id", id),
  required("conversationId", id),
  required("userId", id),
  required(
    "role",
    is((v) => ROLES.has(v)),
  ),
  required("originalContent", text),
  withDefault("enhancedMessage", orNull(text), none),
  withDefault("explicitContext", orNull(text), none),
  withDefault("episodeId", orNull(id), none),
  withDefault(
    "isFlagged",
    is((v) => typeof v === "boolean"),
    () => false,
  ),
  withDefault(
    "isContinuation",
    is((v) => typeof v === "boolean"),
    () => false,
  ),
  withDefault("invokedFlows", texts, emptyList),
  withDefault("invokedTools", texts, emptyList),
  withDefault("reasoningSteps", texts, emptyList),
  withDefault(
    "entities",
    listOf((v, copy) => canonicalObject(v, ENTITY, copy)),
    emptyList,
  ),
  withDefault("intent", orNull(text), none),
  withDefault("sentiment", orNull(text), none),
  withDefault(
    "sentimentScore",
    is((v) => Number.isFinite(v) && (v as number) >= -1 && (v as number) <= 1),
    () => 0,
  ),
  required(
    "timestamp",
    is((v) => Number.isSafeInteger(v) && (v as number) >= 0),
  ),
  withDefault(
    "toolCalls",
    listOf((v, copy) => canonicalObject(v, TOOL_CALL, copy)),
    emptyList,
  ),
  withDefault("toolCallId", orNull(id), none),
  withDefault("toolName", orNull(text), none),
  withDefault("metadata", is(isJsonObject), () => ({})),
  withDefault("embedding", orNull(embedding), none),
];

/**
 * The structural fast path of `MessageSchema`: the message exactly as the schema would output it
 * (values, defaults and key order), or `undefined` when it cannot tell — then run the schema,
 * which fills in or names the problem. It may be stricter than the schema, never looser (tested
 * against the schema over hundreds of mutations in `test/canonical/`).
 *
 * Why it exists: a zod parse costs ~2.5 µs per message and copies it; on reads that was a third
 * of an adapter's own CPU time, on a 500-message `storeMessages` 1.4 ms (BENCHMARKS.md, Findings).
 *
 * @param copy `false` (reads): a value that already is canonical is returned itself. `true`
 *   (input): always a new object whose arrays and nested model objects are new too; free-form
 *   JSON (`metadata`, tool `arguments`) is shared with the input, as the schema shares it.
 */
export function canonicalMessage(value: unknown, copy = false): Message | undefined {
  return canonicalObject(value, MESSAGE, copy) as Message | undefined;
}

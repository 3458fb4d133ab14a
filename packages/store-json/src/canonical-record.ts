import {
  type ConversationRecord,
  MAX_JSON_DEPTH,
  type Message,
  type TurnTrace,
} from "@message-store/core";
import type { StoredConversation } from "./memory-state.js";

/**
 * The same checks as `@message-store/postgres`'s `canonical-record.ts` (kept identical; they
 * belong in core, see BENCHMARKS.md), used when the main file and the journal are loaded.
 *
 * The fast path of reading a record back: each function returns the record exactly as core's
 * zod schema would (same values, keys in schema order), or `undefined` when it cannot tell —
 * an invalid record, or a valid one that needs a default filled or a `-0` normalised — and the
 * caller then runs the schema itself, which fills the default or names the problem. So these
 * checks may be stricter than the schema, never looser (test/canonical-record.test.ts).
 *
 * Why: a zod parse of every record loaded cost about 2.5 µs per message and 4 µs per trace and
 * made a second copy of the whole dataset while the parsed file was still in memory: opening
 * 100k messages took 1.2 s and peaked at 4.3× the file size in RSS (BENCHMARKS.md, Findings).
 * Records whose keys are in another order (a hand-edited file) are rebuilt in schema order;
 * free-form JSON (metadata, tool arguments) is kept as it is, as the schema does.
 */

type Obj = Record<string, unknown>;

const MESSAGE_KEYS = [
  "id",
  "conversationId",
  "userId",
  "role",
  "originalContent",
  "enhancedMessage",
  "explicitContext",
  "episodeId",
  "isFlagged",
  "isContinuation",
  "invokedFlows",
  "invokedTools",
  "reasoningSteps",
  "entities",
  "intent",
  "sentiment",
  "sentimentScore",
  "timestamp",
  "toolCalls",
  "toolCallId",
  "toolName",
  "metadata",
  "embedding",
] as const;
const TRACE_KEYS = [
  "id",
  "messageId",
  "conversationId",
  "agentId",
  "userId",
  "timestamp",
  "totalTokens",
  "totalLatencyMs",
  "llmCalls",
  "taskEmissions",
  "toolTraces",
  "slotEvents",
  "flowEvents",
  "errors",
  "reasoningSteps",
  "metadata",
] as const;
const CONVERSATION_KEYS = [
  "id",
  "userId",
  "agentId",
  "title",
  "createdAt",
  "updatedAt",
  "tags",
  "metadata",
] as const;
const STORED_CONVERSATION_KEYS = [...CONVERSATION_KEYS, "lastMessageAt"] as const;
const ENTITY_KEYS = ["name", "attributes"] as const;
const TOOL_CALL_KEYS = ["toolCallId", "toolName", "arguments", "result"] as const;
const LLM_CALL_KEYS = [
  "purpose",
  "model",
  "promptTokens",
  "completionTokens",
  "latencyMs",
  "costUsd",
  "startedAt",
  "error",
] as const;
const ATTEMPT_KEYS = ["attempt", "script", "error", "llmCall"] as const;
const TOOL_TRACE_KEYS = [
  "toolName",
  "generationAttempts",
  "finalScript",
  "finalData",
  "stdout",
  "traceback",
  "outputBytes",
  "peakMemoryBytes",
  "durationMs",
  "exitCode",
] as const;

const MESSAGE_ROLES = new Set(["user", "assistant", "colleague_assistant", "system", "tool"]);
const LLM_PURPOSES = new Set([
  "agent_loop",
  "enhancement",
  "script_generation",
  "summarization",
  "embedding",
  "other",
]);
const MAX_EMBEDDING = 65_536;

const isText = (v: unknown): v is string => typeof v === "string" && v.isWellFormed();
const isNullableText = (v: unknown) => v === null || isText(v);
const isNonEmptyText = (v: unknown) => isText(v) && v.length > 0;
const isId = (v: unknown) => isText(v) && v.length >= 1 && v.length <= 256;
const isNullableId = (v: unknown) => v === null || isId(v);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isNullableCount = (v: unknown) => v === null || isCount(v);
const isNonNegative = (v: unknown) => Number.isFinite(v) && (v as number) >= 0;
const isNullableNonNegative = (v: unknown) => v === null || isNonNegative(v);

function isRecord(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * `v` when it is a plain object with exactly `keys` in that order; a copy in that order when it
 * has exactly those keys in another order; otherwise `undefined`.
 */
function ordered(v: unknown, keys: readonly string[]): Obj | undefined {
  if (!isRecord(v)) return undefined;
  let count = 0;
  let inOrder = true;
  for (const key in v) {
    if (key !== keys[count]) inOrder = false;
    count++;
  }
  if (count !== keys.length) return undefined;
  if (inOrder) return v;
  const out: Obj = {};
  for (const key of keys) {
    if (!Object.hasOwn(v, key)) return undefined;
    out[key] = v[key];
  }
  return out;
}

/** `list` with every item canonical (the same array when no item changed), or `undefined`. */
function canonicalList(
  list: unknown,
  canonical: (item: unknown) => unknown,
): unknown[] | undefined {
  if (!Array.isArray(list)) return undefined;
  let out: unknown[] | null = null;
  for (let i = 0; i < list.length; i++) {
    const item = canonical(list[i]);
    if (item === undefined) return undefined;
    if (item !== list[i]) {
      out ??= list.slice();
      out[i] = item;
    }
  }
  return out ?? list;
}

function isTextList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!isText(item)) return false;
  return true;
}

/** What `findJsonProblem` accepts, for values that came out of `JSON.parse`. */
function isJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case "string":
      return value.isWellFormed();
    case "number":
      return Number.isFinite(value);
    case "boolean":
      return true;
    case "object":
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!isJson(item, depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    if (key === "__proto__" || !key.isWellFormed()) return false;
    if (!isJson((value as Obj)[key], depth + 1)) return false;
  }
  return true;
}

const isJsonObject = (v: unknown) => isRecord(v) && isJson(v, 0);

function isJsonObjectList(v: unknown): boolean {
  if (!Array.isArray(v)) return false;
  for (const item of v) if (!isJsonObject(item)) return false;
  return true;
}

function isEmbedding(v: unknown): boolean {
  if (v === null) return true;
  if (!Array.isArray(v) || v.length < 1 || v.length > MAX_EMBEDDING) return false;
  for (const x of v) if (!Number.isFinite(x) || Object.is(x, -0)) return false;
  return true;
}

/**
 * Replaces the listed nested fields of `record` by their canonical values, copying `record`
 * only when one differs; `undefined` when one is not canonical.
 */
function withNested(record: Obj, nested: [string, (v: unknown) => unknown][]): Obj | undefined {
  let out = record;
  for (const [key, canonical] of nested) {
    const value = canonical(record[key]);
    if (value === undefined) return undefined;
    if (value !== record[key]) {
      if (out === record) out = { ...record };
      out[key] = value;
    }
  }
  return out;
}

function canonicalEntity(v: unknown): Obj | undefined {
  const e = ordered(v, ENTITY_KEYS);
  return e && isNonEmptyText(e.name) && isTextList(e.attributes) ? e : undefined;
}

function canonicalToolCall(v: unknown): Obj | undefined {
  const c = ordered(v, TOOL_CALL_KEYS);
  if (!c) return undefined;
  const ok =
    isId(c.toolCallId) &&
    isNonEmptyText(c.toolName) &&
    isJsonObject(c.arguments) &&
    isJson(c.result, 0);
  return ok ? c : undefined;
}

function canonicalLlmCall(v: unknown): Obj | undefined {
  const c = ordered(v, LLM_CALL_KEYS);
  if (!c) return undefined;
  const ok =
    LLM_PURPOSES.has(c.purpose as string) &&
    isNonEmptyText(c.model) &&
    isCount(c.promptTokens) &&
    isCount(c.completionTokens) &&
    isNonNegative(c.latencyMs) &&
    isNullableNonNegative(c.costUsd) &&
    isNullableCount(c.startedAt) &&
    isNullableText(c.error);
  return ok ? c : undefined;
}

function canonicalAttempt(v: unknown): Obj | undefined {
  const a = ordered(v, ATTEMPT_KEYS);
  if (!a) return undefined;
  const ok =
    Number.isSafeInteger(a.attempt) &&
    (a.attempt as number) >= 1 &&
    isText(a.script) &&
    isNullableText(a.error);
  if (!ok) return undefined;
  return withNested(a, [["llmCall", (c) => (c === null ? null : canonicalLlmCall(c))]]);
}

function canonicalToolTrace(v: unknown): Obj | undefined {
  const t = ordered(v, TOOL_TRACE_KEYS);
  if (!t) return undefined;
  const ok =
    isNonEmptyText(t.toolName) &&
    isNullableText(t.finalScript) &&
    isJson(t.finalData, 0) &&
    isNullableText(t.stdout) &&
    isNullableText(t.traceback) &&
    isCount(t.outputBytes) &&
    isNullableNonNegative(t.peakMemoryBytes) &&
    isNullableNonNegative(t.durationMs) &&
    (t.exitCode === null || Number.isSafeInteger(t.exitCode));
  if (!ok) return undefined;
  return withNested(t, [["generationAttempts", (l) => canonicalList(l, canonicalAttempt)]]);
}

/** The message as `MessageSchema` would return it, or `undefined` (then run the schema). */
export function canonicalMessage(value: Obj): Message | undefined {
  const m = ordered(value, MESSAGE_KEYS);
  if (!m) return undefined;
  const ok =
    isId(m.id) &&
    isId(m.conversationId) &&
    isId(m.userId) &&
    MESSAGE_ROLES.has(m.role as string) &&
    isText(m.originalContent) &&
    isNullableText(m.enhancedMessage) &&
    isNullableText(m.explicitContext) &&
    isNullableId(m.episodeId) &&
    typeof m.isFlagged === "boolean" &&
    typeof m.isContinuation === "boolean" &&
    isTextList(m.invokedFlows) &&
    isTextList(m.invokedTools) &&
    isTextList(m.reasoningSteps) &&
    isNullableText(m.intent) &&
    isNullableText(m.sentiment) &&
    Number.isFinite(m.sentimentScore) &&
    (m.sentimentScore as number) >= -1 &&
    (m.sentimentScore as number) <= 1 &&
    isCount(m.timestamp) &&
    isNullableId(m.toolCallId) &&
    isNullableText(m.toolName) &&
    isJsonObject(m.metadata) &&
    isEmbedding(m.embedding);
  if (!ok) return undefined;
  return withNested(m, [
    ["entities", (l) => canonicalList(l, canonicalEntity)],
    ["toolCalls", (l) => canonicalList(l, canonicalToolCall)],
  ]) as Message | undefined;
}

/** The trace as `TurnTraceSchema` would return it, or `undefined` (then run the schema). */
export function canonicalTurnTrace(value: Obj): TurnTrace | undefined {
  const t = ordered(value, TRACE_KEYS);
  if (!t) return undefined;
  const ok =
    isId(t.id) &&
    isId(t.messageId) &&
    isId(t.conversationId) &&
    isId(t.agentId) &&
    isNullableId(t.userId) &&
    isCount(t.timestamp) &&
    isCount(t.totalTokens) &&
    isNonNegative(t.totalLatencyMs) &&
    isTextList(t.taskEmissions) &&
    isJsonObjectList(t.slotEvents) &&
    isJsonObjectList(t.flowEvents) &&
    isJsonObjectList(t.errors) &&
    isTextList(t.reasoningSteps) &&
    isJsonObject(t.metadata);
  if (!ok) return undefined;
  return withNested(t, [
    ["llmCalls", (l) => canonicalList(l, canonicalLlmCall)],
    ["toolTraces", (l) => canonicalList(l, canonicalToolTrace)],
  ]) as TurnTrace | undefined;
}

/**
 * A conversation as the file holds it (`StoredConversationSchema`, with `lastMessageAt`) or as a
 * journal line holds it (`ConversationRecordSchema`, without), or `undefined`.
 */
export function canonicalConversation(
  value: Obj,
  stored: boolean,
): StoredConversation | ConversationRecord | undefined {
  const c = ordered(value, stored ? STORED_CONVERSATION_KEYS : CONVERSATION_KEYS);
  if (!c) return undefined;
  const ok =
    isId(c.id) &&
    isId(c.userId) &&
    isNullableId(c.agentId) &&
    isNullableText(c.title) &&
    isCount(c.createdAt) &&
    isCount(c.updatedAt) &&
    isTextList(c.tags) &&
    isJsonObject(c.metadata) &&
    (!stored || isNullableCount(c.lastMessageAt));
  return ok ? (c as StoredConversation | ConversationRecord) : undefined;
}

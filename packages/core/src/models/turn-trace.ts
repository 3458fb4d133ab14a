import { z } from "zod";
import { canonicalObject, is, listOf, orNull, textList } from "../canonical/canonical-object.js";
import {
  isCount,
  isId,
  isInteger,
  isJson,
  isJsonObject,
  isJsonObjectList,
  isNonEmptyText,
  isNonNegative,
  isText,
} from "../canonical/json-checks.js";
import { JsonObjectSchema, JsonSchema } from "./json.js";
import { fieldsOf, optional, required, shapeOf } from "./model-field.js";
import {
  CountSchema,
  IdSchema,
  NonNegativeSchema,
  StringListSchema,
  TextSchema,
  TimestampSchema,
} from "./primitives.js";

export const LLMCallPurposeSchema = z.enum([
  "agent_loop",
  "enhancement",
  "script_generation",
  "summarization",
  "embedding",
  "other",
]);

const PURPOSES = new Set<unknown>(LLMCallPurposeSchema.options);
const text = is(isText);
const count = is(isCount);
const nonNegative = is(isNonNegative);
const none = () => null;
const emptyList = () => [];
/** A list of JSON objects; with `copy` a new array (the objects are shared, as the schema shares them). */
const jsonObjects = (v: unknown, copy: boolean) =>
  isJsonObjectList(v) ? (copy ? (v as unknown[]).slice() : v) : undefined;

/** The fields of an {@link LLMCallRecord}, in order. */
export const LLM_CALL_FIELDS = {
  purpose: required(
    LLMCallPurposeSchema,
    is((v) => PURPOSES.has(v)),
  ),
  model: required(TextSchema.min(1), is(isNonEmptyText)),
  promptTokens: required(CountSchema, count),
  completionTokens: required(CountSchema, count),
  latencyMs: required(NonNegativeSchema, nonNegative),
  costUsd: optional(NonNegativeSchema.nullable(), orNull(nonNegative), none),
  startedAt: optional(TimestampSchema.nullable(), orNull(count), none),
  error: optional(TextSchema.nullable(), orNull(text), none),
};
/** One call to a model inside a turn. */
export const LLMCallRecordSchema = z.strictObject(shapeOf(LLM_CALL_FIELDS));
export type LLMCallRecordInput = z.input<typeof LLMCallRecordSchema>;
export type LLMCallRecord = z.output<typeof LLMCallRecordSchema>;
const LLM_CALL = fieldsOf(LLM_CALL_FIELDS);
const llmCall = (v: unknown, copy: boolean) => canonicalObject(v, LLM_CALL, copy);

/** The fields of a {@link ScriptGenAttempt}, in order. */
export const SCRIPT_GEN_ATTEMPT_FIELDS = {
  attempt: required(
    z.number().int().min(1),
    is((v) => isInteger(v) && (v as number) >= 1),
  ),
  script: required(TextSchema, text),
  error: optional(TextSchema.nullable(), orNull(text), none),
  llmCall: optional(LLMCallRecordSchema.nullable(), orNull(llmCall), none),
};
/** One attempt at generating a tool script. */
export const ScriptGenAttemptSchema = z.strictObject(shapeOf(SCRIPT_GEN_ATTEMPT_FIELDS));
export type ScriptGenAttempt = z.output<typeof ScriptGenAttemptSchema>;
const ATTEMPT = fieldsOf(SCRIPT_GEN_ATTEMPT_FIELDS);

/** The fields of a {@link ToolTrace}, in order. */
export const TOOL_TRACE_FIELDS = {
  toolName: required(TextSchema.min(1), is(isNonEmptyText)),
  /** The arguments the tool was called with, or `null` when not recorded. */
  input: optional(
    JsonSchema,
    is((v) => isJson(v, 0)),
    none,
  ),
  generationAttempts: optional(
    z.array(ScriptGenAttemptSchema),
    listOf((v, copy) => canonicalObject(v, ATTEMPT, copy)),
    emptyList,
  ),
  finalScript: optional(TextSchema.nullable(), orNull(text), none),
  /** What the tool returned. */
  finalData: optional(
    JsonSchema,
    is((v) => isJson(v, 0)),
    none,
  ),
  stdout: optional(TextSchema.nullable(), orNull(text), none),
  /** The error the tool failed with, or `null`. */
  traceback: optional(TextSchema.nullable(), orNull(text), none),
  outputBytes: optional(CountSchema, count, () => 0),
  peakMemoryBytes: optional(NonNegativeSchema.nullable(), orNull(nonNegative), none),
  durationMs: optional(NonNegativeSchema.nullable(), orNull(nonNegative), none),
  exitCode: optional(z.number().int().nullable(), orNull(is(isInteger)), none),
};
/** One sandboxed tool run. */
export const ToolTraceSchema = z.strictObject(shapeOf(TOOL_TRACE_FIELDS));
export type ToolTraceInput = z.input<typeof ToolTraceSchema>;
export type ToolTrace = z.output<typeof ToolTraceSchema>;
const TOOL_TRACE = fieldsOf(TOOL_TRACE_FIELDS);

/**
 * The fields of a {@link TurnTrace}, in order: the one declaration the schema, the canonical
 * check and every adapter's storage layout are derived from.
 */
export const TURN_TRACE_FIELDS = {
  id: required(IdSchema, is(isId)),
  messageId: required(IdSchema, is(isId)),
  conversationId: required(IdSchema, is(isId)),
  agentId: required(IdSchema, is(isId)),
  /** The conversation's owner: `null` on input is filled from it, another user is an `IntegrityError`. */
  userId: optional(IdSchema.nullable(), orNull(is(isId)), none),
  /** The conversation's tenant, filled and checked like `userId`. */
  tenantId: optional(IdSchema.nullable(), orNull(is(isId)), none),
  timestamp: required(TimestampSchema, count),
  totalTokens: required(CountSchema, count),
  totalLatencyMs: required(NonNegativeSchema, nonNegative),
  llmCalls: optional(z.array(LLMCallRecordSchema), listOf(llmCall), emptyList),
  taskEmissions: optional(StringListSchema, textList, emptyList),
  toolTraces: optional(
    z.array(ToolTraceSchema),
    listOf((v, copy) => canonicalObject(v, TOOL_TRACE, copy)),
    emptyList,
  ),
  slotEvents: optional(z.array(JsonObjectSchema), jsonObjects, emptyList),
  flowEvents: optional(z.array(JsonObjectSchema), jsonObjects, emptyList),
  errors: optional(z.array(JsonObjectSchema), jsonObjects, emptyList),
  reasoningSteps: optional(StringListSchema, textList, emptyList),
  metadata: optional(JsonObjectSchema, is(isJsonObject), () => ({})),
  /** When it was soft-deleted (with its message), or `null` while it is live. */
  deletedAt: optional(TimestampSchema.nullable(), orNull(count), none),
};

/** The observability record of one agent turn, attached to the assistant message that ended it. */
export const TurnTraceSchema = z.strictObject(shapeOf(TURN_TRACE_FIELDS));
/** What you pass to `storeTurnTrace`. */
export type TurnTraceInput = z.input<typeof TurnTraceSchema>;
/** A trace with every default filled, as stored and read back. */
export type TurnTrace = z.output<typeof TurnTraceSchema>;

import { LLMCallPurposeSchema, type TurnTrace } from "../models/turn-trace.js";
import {
  canonicalObject,
  type Field,
  is,
  listOf,
  orNull,
  required,
  textList,
  withDefault,
} from "./canonical-object.js";
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
} from "./json-checks.js";

const PURPOSES = new Set<unknown>(LLMCallPurposeSchema.options);

const text = is(isText);
const none = () => null;
const emptyList = () => [];
/** A list of JSON objects; with `copy` a new array (the objects are shared, as the schema shares them). */
const jsonObjects = (v: unknown, copy: boolean) =>
  isJsonObjectList(v) ? (copy ? (v as unknown[]).slice() : v) : undefined;

const LLM_CALL: readonly Field[] = [
  required(
    "purpose",
    is((v) => PURPOSES.has(v)),
  ),
  required("model", is(isNonEmptyText)),
  required("promptTokens", is(isCount)),
  required("completionTokens", is(isCount)),
  required("latencyMs", is(isNonNegative)),
  withDefault("costUsd", orNull(is(isNonNegative)), none),
  withDefault("startedAt", orNull(is(isCount)), none),
  withDefault("error", orNull(text), none),
];
const llmCall = (v: unknown, copy: boolean) => canonicalObject(v, LLM_CALL, copy);

const ATTEMPT: readonly Field[] = [
  required(
    "attempt",
    is((v) => isInteger(v) && (v as number) >= 1),
  ),
  required("script", text),
  withDefault("error", orNull(text), none),
  withDefault("llmCall", orNull(llmCall), none),
];

const TOOL_TRACE: readonly Field[] = [
  required("toolName", is(isNonEmptyText)),
  withDefault(
    "generationAttempts",
    listOf((v, copy) => canonicalObject(v, ATTEMPT, copy)),
    emptyList,
  ),
  withDefault("finalScript", orNull(text), none),
  withDefault(
    "finalData",
    is((v) => isJson(v, 0)),
    none,
  ),
  withDefault("stdout", orNull(text), none),
  withDefault("traceback", orNull(text), none),
  withDefault("outputBytes", is(isCount), () => 0),
  withDefault("peakMemoryBytes", orNull(is(isNonNegative)), none),
  withDefault("durationMs", orNull(is(isNonNegative)), none),
  withDefault("exitCode", orNull(is(isInteger)), none),
];

const TRACE: readonly Field[] = [
  required("id", is(isId)),
  required("messageId", is(isId)),
  required("conversationId", is(isId)),
  required("agentId", is(isId)),
  withDefault("userId", orNull(is(isId)), none),
  required("timestamp", is(isCount)),
  required("totalTokens", is(isCount)),
  required("totalLatencyMs", is(isNonNegative)),
  withDefault("llmCalls", listOf(llmCall), emptyList),
  withDefault("taskEmissions", textList, emptyList),
  withDefault(
    "toolTraces",
    listOf((v, copy) => canonicalObject(v, TOOL_TRACE, copy)),
    emptyList,
  ),
  withDefault("slotEvents", jsonObjects, emptyList),
  withDefault("flowEvents", jsonObjects, emptyList),
  withDefault("errors", jsonObjects, emptyList),
  withDefault("reasoningSteps", textList, emptyList),
  withDefault("metadata", is(isJsonObject), () => ({})),
];

/**
 * The structural fast path of `TurnTraceSchema`: the trace exactly as the schema would output it,
 * or `undefined` when it cannot tell (then run the schema). Same rules and `copy` meaning as
 * {@link canonicalMessage}.
 */
export function canonicalTurnTrace(value: unknown, copy = false): TurnTrace | undefined {
  return canonicalObject(value, TRACE, copy) as TurnTrace | undefined;
}

import { z } from "zod";
import { JsonObjectSchema, JsonSchema } from "./json.js";
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

/** One call to a model inside a turn. */
export const LLMCallRecordSchema = z.strictObject({
  purpose: LLMCallPurposeSchema,
  model: TextSchema.min(1),
  promptTokens: CountSchema,
  completionTokens: CountSchema,
  latencyMs: NonNegativeSchema,
  costUsd: NonNegativeSchema.nullable().default(null),
  startedAt: TimestampSchema.nullable().default(null),
  error: TextSchema.nullable().default(null),
});
export type LLMCallRecordInput = z.input<typeof LLMCallRecordSchema>;
export type LLMCallRecord = z.output<typeof LLMCallRecordSchema>;

/** One attempt at generating a tool script. */
export const ScriptGenAttemptSchema = z.strictObject({
  attempt: z.number().int().min(1),
  script: TextSchema,
  error: TextSchema.nullable().default(null),
  llmCall: LLMCallRecordSchema.nullable().default(null),
});
export type ScriptGenAttempt = z.output<typeof ScriptGenAttemptSchema>;

/** One sandboxed tool run. */
export const ToolTraceSchema = z.strictObject({
  toolName: TextSchema.min(1),
  generationAttempts: z.array(ScriptGenAttemptSchema).default([]),
  finalScript: TextSchema.nullable().default(null),
  finalData: JsonSchema.default(null),
  stdout: TextSchema.nullable().default(null),
  traceback: TextSchema.nullable().default(null),
  outputBytes: CountSchema.default(0),
  peakMemoryBytes: NonNegativeSchema.nullable().default(null),
  durationMs: NonNegativeSchema.nullable().default(null),
  exitCode: z.number().int().nullable().default(null),
});
export type ToolTraceInput = z.input<typeof ToolTraceSchema>;
export type ToolTrace = z.output<typeof ToolTraceSchema>;

/** The observability record of one agent turn, attached to the assistant message that ended it. */
export const TurnTraceSchema = z.strictObject({
  id: IdSchema,
  messageId: IdSchema,
  conversationId: IdSchema,
  agentId: IdSchema,
  userId: IdSchema.nullable().default(null),
  timestamp: TimestampSchema,
  totalTokens: CountSchema,
  totalLatencyMs: NonNegativeSchema,
  llmCalls: z.array(LLMCallRecordSchema).default([]),
  taskEmissions: StringListSchema.default([]),
  toolTraces: z.array(ToolTraceSchema).default([]),
  slotEvents: z.array(JsonObjectSchema).default([]),
  flowEvents: z.array(JsonObjectSchema).default([]),
  errors: z.array(JsonObjectSchema).default([]),
  reasoningSteps: StringListSchema.default([]),
  metadata: JsonObjectSchema.default({}),
});
/** What you pass to `storeTurnTrace`. */
export type TurnTraceInput = z.input<typeof TurnTraceSchema>;
/** A trace with every default filled, as stored and read back. */
export type TurnTrace = z.output<typeof TurnTraceSchema>;

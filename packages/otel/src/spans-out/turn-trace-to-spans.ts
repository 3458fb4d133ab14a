import { createHash } from "node:crypto";
import type { Json, TurnTrace } from "@message-store/core";
import { LINK_ATTRIBUTE } from "../gen-ai-attributes.js";
import type { GenAiSpan, SpanAttributeValue } from "./gen-ai-span.js";

/** Epoch milliseconds (fractions kept to the microsecond) as nanoseconds. */
function nanos(ms: number): bigint {
  return BigInt(Math.round(ms * 1000)) * 1000n;
}

/** A duration in ms as nanoseconds (to the microsecond), added to a start so it survives as is. */
function span(
  startMs: number,
  durationMs: number,
): { startTimeUnixNano: bigint; endTimeUnixNano: bigint } {
  const start = nanos(startMs);
  return { startTimeUnixNano: start, endTimeUnixNano: start + nanos(durationMs) };
}

function hexId(seed: string, chars: 16 | 32): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, chars);
}

function jsonText(value: Json): string | undefined {
  return value === null ? undefined : JSON.stringify(value);
}

function finishReasonAt(trace: TurnTrace, i: number): string | undefined {
  const reasons = trace.metadata.finishReasons;
  const reason = Array.isArray(reasons) ? reasons[i] : undefined;
  return typeof reason === "string" ? reason : undefined;
}

function errorMessage(errors: TurnTrace["errors"]): string | undefined {
  if (errors.length === 0) return undefined;
  const message = errors[0]!.message;
  return typeof message === "string" ? message : JSON.stringify(errors[0]);
}

/**
 * A stored turn as OpenTelemetry GenAI spans: an `invoke_agent` root over the turn, one `chat`
 * span per LLM call and one `execute_tool` span per tool run, with the trace's start times and
 * durations. Ids are derived from the trace id, so exporting a turn again sends the same spans.
 * A tool run records no start time: the `execute_tool` spans are laid end to end from the end of
 * the first model call (each with its own duration). Cost, when known, is `message_store.cost_usd`. Pure; never throws for a
 * stored trace.
 */
export function turnTraceToSpans(trace: TurnTrace): GenAiSpan[] {
  const traceId = hexId(trace.id, 32);
  const rootId = hexId(`${trace.id}/root`, 16);
  const rootError = errorMessage(trace.errors);
  let input = 0;
  let output = 0;
  for (const c of trace.llmCalls) {
    input += c.promptTokens;
    output += c.completionTokens;
  }
  const rootAttributes: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.id": trace.agentId,
    "gen_ai.conversation.id": trace.conversationId,
    "gen_ai.usage.input_tokens": input,
    "gen_ai.usage.output_tokens": output,
    [LINK_ATTRIBUTE.conversationId]: trace.conversationId,
    [LINK_ATTRIBUTE.messageId]: trace.messageId,
    [LINK_ATTRIBUTE.agentId]: trace.agentId,
    "message_store.trace_id": trace.id,
  };
  if (trace.userId !== null) rootAttributes[LINK_ATTRIBUTE.userId] = trace.userId;
  const spans: GenAiSpan[] = [
    {
      traceId,
      spanId: rootId,
      parentSpanId: undefined,
      name: `invoke_agent ${trace.agentId}`,
      kind: 1,
      ...span(trace.timestamp, trace.totalLatencyMs),
      attributes: rootAttributes,
      status: rootError === undefined ? { code: 0 } : { code: 2, message: rootError },
    },
  ];
  let toolCursor = trace.timestamp;
  trace.llmCalls.forEach((call, i) => {
    const start = call.startedAt ?? trace.timestamp;
    if (i === 0) toolCursor = start + call.latencyMs;
    const attributes: Record<string, SpanAttributeValue> = {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": call.model,
      "gen_ai.response.model": call.model,
      "gen_ai.usage.input_tokens": call.promptTokens,
      "gen_ai.usage.output_tokens": call.completionTokens,
      "message_store.purpose": call.purpose,
    };
    const reason = finishReasonAt(trace, i);
    if (reason !== undefined) attributes["gen_ai.response.finish_reasons"] = [reason];
    if (call.costUsd !== null) attributes["message_store.cost_usd"] = call.costUsd;
    if (call.error !== null) attributes["error.type"] = "error";
    spans.push({
      traceId,
      spanId: hexId(`${trace.id}/llm/${i}`, 16),
      parentSpanId: rootId,
      name: `chat ${call.model}`,
      kind: 3,
      ...span(start, call.latencyMs),
      attributes,
      status: call.error === null ? { code: 0 } : { code: 2, message: call.error },
    });
  });
  trace.toolTraces.forEach((tool, i) => {
    const duration = tool.durationMs ?? 0;
    const attributes: Record<string, SpanAttributeValue> = {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": tool.toolName,
    };
    const args = jsonText(tool.input);
    if (args !== undefined) attributes["gen_ai.tool.call.arguments"] = args;
    const result = jsonText(tool.finalData);
    if (result !== undefined) attributes["gen_ai.tool.call.result"] = result;
    if (tool.traceback !== null) attributes["error.type"] = "error";
    spans.push({
      traceId,
      spanId: hexId(`${trace.id}/tool/${i}`, 16),
      parentSpanId: rootId,
      name: `execute_tool ${tool.toolName}`,
      kind: 1,
      ...span(toolCursor, duration),
      attributes,
      status: tool.traceback === null ? { code: 0 } : { code: 2, message: tool.traceback },
    });
    toolCursor += duration;
  });
  return spans;
}

import {
  AGENT_OPERATION,
  AI_SDK_LINK_PREFIXES,
  AI_SDK_LLM_SPAN,
  AI_SDK_TOOL_SPAN,
  ATTR,
  LINK_ATTRIBUTE,
  LINK_KEYS,
  type LinkField,
  LLM_OPERATIONS,
  TOOL_OPERATION,
} from "../gen-ai-attributes.js";
import type { ModelCallDraft, ToolRunDraft, TurnDraft, TurnLink } from "../turn-draft.js";
import { countOf, jsonOf, listOf, textOf } from "./read-attributes.js";
import { type Attributes, hrTimeToMs, type SpanLike } from "./span-like.js";

const ERROR = 2;
const LINK_FIELDS = Object.keys(LINK_KEYS) as LinkField[];

/** What a span is to a turn. */
export function spanRole(span: SpanLike): "llm" | "tool" | "agent" | "other" {
  const op = span.attributes["gen_ai.operation.name"];
  if (typeof op === "string") {
    if (LLM_OPERATIONS.has(op)) return "llm";
    if (op === TOOL_OPERATION) return "tool";
    if (op === AGENT_OPERATION) return "agent";
  }
  if (AI_SDK_LLM_SPAN.test(span.name)) return "llm";
  if (span.name === AI_SDK_TOOL_SPAN) return "tool";
  return "other";
}

function errorOf(span: SpanLike): string | undefined {
  if (span.status?.code !== ERROR) return undefined;
  return span.status.message || textOf(span.attributes, ATTR.errorType) || "error";
}

/** The link keys one span carries: `message_store.*`, else the AI SDK's metadata/context keys. */
function linkOf(attributes: Attributes, into: TurnLink): void {
  for (const field of LINK_FIELDS) {
    if (into[field] !== undefined) continue;
    let value = textOf(attributes, [LINK_ATTRIBUTE[field]]);
    for (const prefix of AI_SDK_LINK_PREFIXES) {
      value ??= textOf(attributes, [prefix + LINK_KEYS[field]]);
    }
    if (value !== undefined) into[field] = value;
  }
}

/**
 * The turn the spans of one trace describe, `root` its outermost span: model calls (`chat`,
 * `ai.*.doGenerate`/`doStream`), tool runs (`execute_tool`, `ai.toolCall`), linked by the first
 * span (root first) that names each link field. `bad` is called for each absurd value (kept as 0).
 * Pure; never throws on malformed attributes.
 */
export function draftOfSpans(
  spans: Iterable<SpanLike>,
  root: SpanLike,
  bad: () => void,
): TurnDraft {
  const link: TurnLink = {};
  linkOf(root.attributes, link);
  const calls: ModelCallDraft[] = [];
  const tools: ToolRunDraft[] = [];
  let agentName: string | undefined;
  for (const span of spans) {
    if (span !== root) linkOf(span.attributes, link);
    const role = spanRole(span);
    if (role === "other") continue;
    const a = span.attributes;
    const startedAt = hrTimeToMs(span.startTime);
    const duration = hrTimeToMs(span.endTime) - startedAt;
    if (!(duration >= 0)) bad();
    if (role === "agent") {
      agentName ??= textOf(a, ATTR.agentId) ?? textOf(a, ATTR.agentName);
    } else if (role === "llm") {
      calls.push({
        model: textOf(a, ATTR.responseModel) ?? textOf(a, ATTR.requestModel) ?? "unknown",
        promptTokens: countOf(a, ATTR.inputTokens, bad),
        completionTokens: countOf(a, ATTR.outputTokens, bad),
        startedAt,
        latencyMs: duration,
        finishReason: listOf(a, ATTR.finishReasons)[0],
        error: errorOf(span),
      });
    } else {
      const error = errorOf(span);
      tools.push({
        toolName: textOf(a, ATTR.toolName) ?? "unknown",
        toolCallId: textOf(a, ATTR.toolCallId),
        input: jsonOf(a, ATTR.toolArguments),
        output: error === undefined ? jsonOf(a, ATTR.toolResult) : undefined,
        error,
        startedAt,
        durationMs: duration,
      });
    }
  }
  agentName ??= textOf(root.attributes, ATTR.agentName);
  if (link.agentId === undefined && agentName !== undefined) link.agentId = agentName;
  const startedAt = hrTimeToMs(root.startTime);
  return {
    link,
    startedAt,
    latencyMs: hrTimeToMs(root.endTime) - startedAt,
    calls,
    tools,
    error: errorOf(root),
    metadata: { source: "opentelemetry", traceId: root.spanContext().traceId },
  };
}

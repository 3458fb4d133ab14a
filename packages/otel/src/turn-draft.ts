import type { Json, JsonObject, TurnTraceInput } from "@message-store/core";

/** Which conversation, assistant message, user and agent a turn belongs to. */
export interface TurnLink {
  conversationId?: string | undefined;
  /** The assistant message that ended the turn. */
  messageId?: string | undefined;
  userId?: string | undefined;
  agentId?: string | undefined;
}

/** One model call as telemetry reports it. Times are epoch milliseconds. */
export interface ModelCallDraft {
  /** The model that answered when the provider says, else the one requested. */
  model: string;
  promptTokens: number;
  completionTokens: number;
  startedAt: number;
  latencyMs: number;
  finishReason?: string | undefined;
  error?: string | undefined;
}

/** One tool run as telemetry reports it. */
export interface ToolRunDraft {
  toolName: string;
  /** The model's id of the call: orders runs that started in the same millisecond. */
  toolCallId?: string | undefined;
  input: unknown;
  /** What the tool returned (`undefined` when it failed or was not recorded). */
  output: unknown;
  error?: string | undefined;
  startedAt: number;
  durationMs: number;
}

/**
 * A turn as both ways in (AI SDK telemetry events, OpenTelemetry spans) see it, before it is a
 * trace: {@link traceOfDraft} is the one mapping, so both store the same trace for a run.
 */
export interface TurnDraft {
  link: TurnLink;
  startedAt: number;
  latencyMs: number;
  calls: ModelCallDraft[];
  tools: ToolRunDraft[];
  /** Why the turn failed, if it did. */
  error?: string | undefined;
  metadata: JsonObject;
}

/** A turn trace without its id: the writer gives it the id of the message's trace, or a new one. */
export type DraftTrace = Omit<TurnTraceInput, "id" | "conversationId" | "messageId"> & {
  conversationId: string;
  messageId: string;
};

const byStart = (a: { startedAt: number }, b: { startedAt: number }) => a.startedAt - b.startedAt;
/** Runs by start millisecond, then call id: the same order from events (ms) and spans (ns). */
const byStartThenId = (a: ToolRunDraft, b: ToolRunDraft) =>
  Math.floor(a.startedAt) - Math.floor(b.startedAt) ||
  (a.toolCallId ?? "").localeCompare(b.toolCallId ?? "") ||
  a.startedAt - b.startedAt;
const ms = (n: number) => (Number.isFinite(n) && n >= 0 ? n : 0);
const epochMs = (n: number) => (Number.isFinite(n) && n >= 0 ? Math.round(n) : 0);

/** `value` as stored JSON and its size: JSON text round trip, or its text when it has none. */
export function jsonValue(value: unknown): { json: Json; bytes: number } {
  if (value === undefined) return { json: null, bytes: 0 };
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { json: null, bytes: 0 };
    return { json: JSON.parse(text) as Json, bytes: Buffer.byteLength(text) };
  } catch {
    const text = String(value);
    return { json: text, bytes: Buffer.byteLength(text) };
  }
}

/**
 * The trace of a linked turn (model calls and tool runs by start time, tokens summed, the
 * response model over the requested one, a tool's output in `finalData` and its error in
 * `traceback`, cost left unknown), or `null` when the turn has no conversation or message.
 */
export function traceOfDraft(draft: TurnDraft, defaultAgentId: string): DraftTrace | null {
  const { conversationId, messageId, userId, agentId } = draft.link;
  if (!conversationId || !messageId) return null;
  const calls = [...draft.calls].sort(byStart);
  const tools = [...draft.tools].sort(byStartThenId);
  let totalTokens = 0;
  for (const c of calls) totalTokens += c.promptTokens + c.completionTokens;
  return {
    conversationId,
    messageId,
    agentId: agentId || defaultAgentId,
    userId: userId ?? null,
    timestamp: epochMs(draft.startedAt),
    totalTokens,
    totalLatencyMs: ms(draft.latencyMs),
    llmCalls: calls.map((c) => ({
      purpose: "agent_loop",
      model: c.model || "unknown",
      promptTokens: c.promptTokens,
      completionTokens: c.completionTokens,
      latencyMs: ms(c.latencyMs),
      costUsd: null,
      startedAt: epochMs(c.startedAt),
      error: c.error ?? null,
    })),
    toolTraces: tools.map((t) => {
      const output = t.error === undefined ? jsonValue(t.output) : { json: null, bytes: 0 };
      return {
        toolName: t.toolName || "unknown",
        input: jsonValue(t.input).json,
        finalData: output.json,
        traceback: t.error ?? null,
        outputBytes: output.bytes,
        durationMs: ms(t.durationMs),
      };
    }),
    errors: draft.error === undefined ? [] : [{ type: "error", message: draft.error }],
    metadata: { ...draft.metadata, finishReasons: calls.map((c) => c.finishReason ?? null) },
  };
}

import type { ModelCallDraft, ToolRunDraft, TurnDraft, TurnLink } from "@message-store/otel";

const LINK_FIELDS = ["conversationId", "messageId", "userId", "agentId"] as const;

/** An error as the trace records it: its message. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : String(error);
}

/** The link keys found in a run's runtime context (strings only). */
export function linkOfContext(context: unknown): TurnLink {
  const link: TurnLink = {};
  if (context === null || typeof context !== "object") return link;
  for (const field of LINK_FIELDS) {
    const value = (context as Record<string, unknown>)[field];
    if (typeof value === "string" && value.length > 0) link[field] = value;
  }
  return link;
}

/**
 * What one `generateText` / `streamText` run has reported so far. Each method is the
 * synchronous handling of one telemetry event: a few property writes, no I/O.
 */
export class RunRecorder {
  readonly link: TurnLink;
  readonly #startedAt: number;
  readonly #agentName: string | undefined;
  readonly #calls: ModelCallDraft[] = [];
  readonly #tools = new Map<string, ToolRunDraft>();
  #callStartedAt: number | undefined;

  constructor(link: TurnLink, startedAt: number, agentName: string | undefined) {
    this.link = link;
    this.#startedAt = startedAt;
    this.#agentName = agentName;
  }

  callStarted(at: number): void {
    this.#callStartedAt = at;
  }

  callEnded(
    at: number,
    model: string,
    usage: { inputTokens?: number | undefined; outputTokens?: number | undefined },
    latencyMs: number,
    finishReason: string,
  ): void {
    this.#calls.push({
      model,
      promptTokens: usage.inputTokens ?? 0,
      completionTokens: usage.outputTokens ?? 0,
      startedAt: this.#callStartedAt ?? at - latencyMs,
      latencyMs,
      finishReason,
    });
    this.#callStartedAt = undefined;
  }

  /** A step failed: the model call under way (if any) is recorded with the error. */
  callFailed(at: number, model: string, error: unknown): void {
    if (this.#callStartedAt === undefined) return;
    this.#calls.push({
      model,
      promptTokens: 0,
      completionTokens: 0,
      startedAt: this.#callStartedAt,
      latencyMs: at - this.#callStartedAt,
      error: errorText(error),
    });
    this.#callStartedAt = undefined;
  }

  toolStarted(at: number, toolCallId: string, toolName: string, input: unknown): void {
    this.#tools.set(toolCallId, {
      toolName,
      toolCallId,
      input,
      output: undefined,
      startedAt: at,
      durationMs: 0,
    });
  }

  toolEnded(
    toolCallId: string,
    durationMs: number,
    outcome: { type: string; output?: unknown; error?: unknown },
  ): void {
    const run = this.#tools.get(toolCallId);
    if (run === undefined) return;
    run.durationMs = durationMs;
    if (outcome.type === "tool-error") run.error = errorText(outcome.error);
    else run.output = outcome.output;
  }

  /** The run as a turn, ended at `at` (with `error` when it failed). */
  draft(at: number, error?: unknown): TurnDraft {
    const link = { ...this.link };
    if (link.agentId === undefined && this.#agentName !== undefined) link.agentId = this.#agentName;
    return {
      link,
      startedAt: this.#startedAt,
      latencyMs: at - this.#startedAt,
      calls: this.#calls,
      tools: [...this.#tools.values()],
      error: error === undefined ? undefined : errorText(error),
      metadata: { source: "ai-sdk-telemetry" },
    };
  }
}

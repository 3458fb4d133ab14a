import type { MessageStoreApi } from "@message-store/core";
import { TraceWriter, type TraceWriterOptions, type TraceWriterStats } from "../trace-writer.js";
import { traceOfDraft } from "../turn-draft.js";
import { draftOfSpans } from "./draft-of-spans.js";
import type { SpanLike } from "./span-like.js";

/** Options of {@link MessageStoreSpanExporter}. */
export interface MessageStoreSpanExporterOptions extends TraceWriterOptions {
  /** `agentId` of turns whose spans name none (`message_store.agent_id`, `gen_ai.agent.*`). Default `"default"`. */
  agentId?: string;
  /** OpenTelemetry traces held at once (open ones and recent finished ones). Default 1000. */
  maxTraces?: number;
  /** Spans kept per trace besides its root; more are dropped and counted. Default 10 000. */
  maxSpansPerTrace?: number;
}

/** Counters of a {@link MessageStoreSpanExporter}. */
export interface SpanExporterStats extends TraceWriterStats {
  /** Spans received (a span received twice counts once). */
  spans: number;
  /** Spans that are not spans (no ids or times): ignored. */
  badSpans: number;
  /** Absurd values inside spans (negative durations, token counts that are not counts): kept as 0. */
  badValues: number;
  /** Spans over `maxSpansPerTrace`. */
  droppedSpans: number;
  /** Finished turns with no conversation or message to attach to: dropped. */
  unattributed: number;
  /** Traces evicted before their root span arrived. */
  unfinished: number;
}

/** `ExportResult` of the OpenTelemetry SDK: code 0 is SUCCESS. */
export interface ExportResult {
  code: 0 | 1;
  error?: Error;
}

interface TraceState {
  spans: Map<string, SpanLike>;
  root: SpanLike | undefined;
}

/**
 * A `SpanExporter` for the OpenTelemetry JS SDK (pass it to a `BatchSpanProcessor`) that stores
 * one `TurnTrace` per OpenTelemetry trace that holds GenAI spans, on the assistant message named
 * by its spans (`message_store.conversation_id` / `message_id` / `user_id` / `agent_id` on any
 * span of the turn, or the AI SDK's `conversationId` / `messageId` / `userId` / `agentId`
 * telemetry metadata or runtime context keys).
 *
 * A turn is stored when its root span (the one without a parent) arrives; spans of the trace
 * that arrive later (out of order, in a later batch) store it again with them, under the same
 * id. Spans are keyed by span id, so a retried export changes nothing. `export` reports SUCCESS
 * at once and never throws: malformed spans and turns it cannot attribute are counted in
 * {@link stats} and dropped; store errors go to `onError`.
 */
export class MessageStoreSpanExporter {
  readonly #writer: TraceWriter;
  readonly #agentId: string;
  readonly #maxTraces: number;
  readonly #maxSpans: number;
  /** By trace id, oldest first (a Map keeps insertion order). */
  readonly #traces = new Map<string, TraceState>();
  readonly #counts = {
    spans: 0,
    badSpans: 0,
    badValues: 0,
    droppedSpans: 0,
    unattributed: 0,
    unfinished: 0,
  };
  #shutdown = false;

  constructor(store: MessageStoreApi, options: MessageStoreSpanExporterOptions = {}) {
    this.#writer = new TraceWriter(store, options);
    this.#agentId = options.agentId ?? "default";
    this.#maxTraces = options.maxTraces ?? 1000;
    this.#maxSpans = options.maxSpansPerTrace ?? 10_000;
  }

  get stats(): SpanExporterStats {
    return { ...this.#counts, ...this.#writer.stats };
  }

  export(spans: readonly SpanLike[], resultCallback: (result: ExportResult) => void): void {
    if (this.#shutdown) {
      resultCallback({ code: 1, error: new Error("MessageStoreSpanExporter is shut down") });
      return;
    }
    const changed = new Set<string>();
    for (const span of Array.isArray(spans) ? spans : []) {
      const traceId = this.#add(span);
      if (traceId !== undefined) changed.add(traceId);
    }
    for (const traceId of changed) this.#finish(traceId);
    resultCallback({ code: 0 });
  }

  /** Resolves when every turn received so far is stored (or waiting for its message). */
  forceFlush(): Promise<void> {
    return this.#writer.flush();
  }

  /** Flushes and stops; turns still waiting for their message are dropped (counted). */
  async shutdown(): Promise<void> {
    this.#shutdown = true;
    await this.#writer.close();
    this.#traces.clear();
  }

  /** Adds a span to its trace; the trace id when that changed the trace. */
  #add(span: SpanLike): string | undefined {
    let ids: { traceId: string; spanId: string };
    try {
      ids = span.spanContext();
    } catch {
      ids = { traceId: "", spanId: "" };
    }
    if (
      typeof ids?.traceId !== "string" ||
      typeof ids.spanId !== "string" ||
      !ids.traceId ||
      !ids.spanId ||
      !Array.isArray(span.startTime) ||
      !Array.isArray(span.endTime) ||
      typeof span.attributes !== "object" ||
      span.attributes === null
    ) {
      this.#counts.badSpans++;
      return undefined;
    }
    const state = this.#trace(ids.traceId);
    if (state.spans.has(ids.spanId)) return undefined;
    const parent = span.parentSpanContext?.spanId ?? span.parentSpanId;
    // A root is kept past the limit: it is what completes the turn.
    if (parent && state.spans.size >= this.#maxSpans) {
      this.#counts.droppedSpans++;
      return undefined;
    }
    state.spans.set(ids.spanId, span);
    this.#counts.spans++;
    if (!parent) state.root = span;
    return ids.traceId;
  }

  #trace(traceId: string): TraceState {
    let state = this.#traces.get(traceId);
    if (state === undefined) {
      state = { spans: new Map(), root: undefined };
      this.#traces.set(traceId, state);
      while (this.#traces.size > this.#maxTraces) {
        const [oldestId, oldest] = this.#traces.entries().next().value as [string, TraceState];
        this.#traces.delete(oldestId);
        if (oldest.root === undefined) this.#counts.unfinished++;
      }
    }
    return state;
  }

  #finish(traceId: string): void {
    const state = this.#traces.get(traceId);
    if (state?.root === undefined) return;
    const draft = draftOfSpans(state.spans.values(), state.root, () => this.#counts.badValues++);
    if (draft.calls.length === 0 && draft.tools.length === 0) return;
    const trace = traceOfDraft(draft, this.#agentId);
    if (trace === null) {
      this.#counts.unattributed++;
      return;
    }
    this.#writer.write(trace);
  }
}

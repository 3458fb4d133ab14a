import type { MessageStoreApi } from "@message-store/core";
import {
  TraceWriter,
  type TraceWriterOptions,
  type TraceWriterStats,
  type TurnLink,
  traceOfDraft,
} from "@message-store/otel";
import type { ModelMessage } from "ai";
import { saveModelMessages } from "../model-messages-memory.js";
import { linkOfContext, RunRecorder } from "./run-recorder.js";

/** Options of {@link messageStoreTelemetry}. */
export interface MessageStoreTelemetryOptions extends TurnLink, TraceWriterOptions {
  /**
   * Store the run's response messages (the prompt is yours to store) in `conversationId` for
   * `userId`, and attach the trace to the last assistant message among them. Default `false`:
   * the trace is attached to `messageId`, and waits in memory until that message is stored.
   */
  storeMessages?: boolean;
}

/** Timestamps the AI SDK gives replayed events (durable runs), else now. */
interface Timed {
  readonly callId: string;
  readonly timestamp?: number;
}

// The events as the integration reads them: structural, so `ai` types never leak into ours.
interface StartEvent extends Timed {
  readonly operationId: string;
  readonly functionId?: string;
  readonly runtimeContext?: unknown;
}
interface ModelCallEnd extends Timed {
  readonly modelId: string;
  readonly finishReason: string;
  readonly usage: { inputTokens?: number | undefined; outputTokens?: number | undefined };
  readonly performance: { responseTimeMs: number };
}
interface StepError extends Timed {
  readonly modelId: string;
  readonly error: unknown;
}
interface ToolCallRef {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}
interface ToolStart extends Timed {
  readonly toolCall: ToolCallRef;
}
interface ToolEnd extends Timed {
  readonly toolCall: ToolCallRef;
  readonly toolExecutionMs: number;
  readonly toolOutput: { type: string; output?: unknown; error?: unknown };
}
interface EndEvent extends Timed {
  readonly responseMessages?: readonly unknown[];
}

/**
 * An AI SDK `Telemetry` integration (ai 7) that stores one turn trace per `generateText` /
 * `streamText` run, with its `stats` and a `flush()` that resolves when every finished run is
 * stored (or waiting for its message).
 */
export interface MessageStoreTelemetry {
  readonly stats: TraceWriterStats;
  flush(): Promise<void>;
  onStart(event: StartEvent): void;
  onLanguageModelCallStart(event: Timed): void;
  onLanguageModelCallEnd(event: ModelCallEnd): void;
  onStepError(event: StepError): void;
  onToolExecutionStart(event: ToolStart): void;
  onToolExecutionEnd(event: ToolEnd): void;
  onEnd(event: EndEvent): void;
  onAbort(event: Timed): void;
  onError(event: unknown): void;
}

/** Runs under way at once; past it the oldest is forgotten (it stores no trace). */
const MAX_OPEN_RUNS = 10_000;
const TEXT_RUNS = new Set(["ai.generateText", "ai.streamText"]);
const at = (event: { timestamp?: number }) => event.timestamp ?? Date.now();

/**
 * A telemetry integration for ai 7 that turns each `generateText` / `streamText` run into one
 * `TurnTrace`: each model call (the model that answered, prompt and completion tokens, response
 * time, finish reason, or the error of a failed call) and each tool run (name, input, output or
 * error, duration), cost left unknown.
 *
 * The turn is linked by `options` (`conversationId`, `messageId`, `userId`, `agentId`) or, when
 * registered once with `registerTelemetry`, by the same keys in the run's `runtimeContext`
 * (listed in `telemetry.includeRuntimeContext`, which the AI SDK requires before it shows them
 * to integrations); `agentId` defaults to the call's `functionId`, then `"default"`.
 *
 * Every handler does a few property writes and returns: the trace is stored in the background
 * once the run ends, and a store error goes to `options.onError`, never into the app's call.
 * A run without a conversation or message is skipped. Runs other than text generation are ignored.
 */
export function messageStoreTelemetry(
  store: MessageStoreApi,
  options: MessageStoreTelemetryOptions = {},
): MessageStoreTelemetry {
  const writer = new TraceWriter(store, options);
  const runs = new Map<string, RunRecorder>();
  const { conversationId, messageId, userId, agentId } = options;
  const fixed: TurnLink = {};
  for (const [k, v] of Object.entries({ conversationId, messageId, userId, agentId })) {
    if (v !== undefined) fixed[k as keyof TurnLink] = v;
  }

  const finish = (callId: string, end: number, error?: unknown, messages?: readonly unknown[]) => {
    const run = runs.get(callId);
    if (run === undefined) return;
    runs.delete(callId);
    const draft = run.draft(end, error);
    if (options.storeMessages && messages && messages.length > 0) {
      void storeThenTrace(draft.link, messages);
      return;
    }
    const trace = traceOfDraft(draft, "default");
    if (trace !== null) writer.write(trace);

    async function storeThenTrace(link: TurnLink, response: readonly unknown[]) {
      try {
        if (!link.conversationId || !link.userId) {
          throw new TypeError("storeMessages needs the run's conversationId and userId");
        }
        const saved = await saveModelMessages(store, {
          conversationId: link.conversationId,
          userId: link.userId,
          ...(link.agentId ? { agentId: link.agentId } : {}),
          messages: response as ModelMessage[],
        });
        const ender = saved.messages.findLast((m) => m.role === "assistant");
        const linked = traceOfDraft(
          { ...draft, link: { ...link, messageId: ender?.id } },
          "default",
        );
        if (linked !== null) writer.write(linked);
      } catch (e) {
        try {
          options.onError?.(e);
        } catch {
          // The app's handler must not break its call.
        }
      }
    }
  };

  return {
    get stats() {
      return writer.stats;
    },
    flush: () => writer.flush(),
    onStart(event) {
      if (!TEXT_RUNS.has(event.operationId)) return;
      const link = { ...linkOfContext(event.runtimeContext), ...fixed };
      runs.set(event.callId, new RunRecorder(link, at(event), event.functionId));
      // A run that never ends (a stream never read) must not hold memory forever.
      if (runs.size > MAX_OPEN_RUNS) runs.delete(runs.keys().next().value as string);
    },
    onLanguageModelCallStart(event) {
      runs.get(event.callId)?.callStarted(at(event));
    },
    onLanguageModelCallEnd(event) {
      runs
        .get(event.callId)
        ?.callEnded(
          at(event),
          event.modelId,
          event.usage,
          event.performance.responseTimeMs,
          event.finishReason,
        );
    },
    onStepError(event) {
      runs.get(event.callId)?.callFailed(at(event), event.modelId, event.error);
    },
    onToolExecutionStart(event) {
      const { toolCallId, toolName, input } = event.toolCall;
      runs.get(event.callId)?.toolStarted(at(event), toolCallId, toolName, input);
    },
    onToolExecutionEnd(event) {
      runs
        .get(event.callId)
        ?.toolEnded(event.toolCall.toolCallId, event.toolExecutionMs, event.toolOutput);
    },
    onEnd(event) {
      finish(event.callId, at(event), undefined, event.responseMessages);
    },
    onAbort(event) {
      finish(event.callId, at(event), new Error("aborted"));
    },
    onError(event) {
      const { callId, error } = (event ?? {}) as { callId?: string; error?: unknown };
      if (typeof callId === "string") finish(callId, Date.now(), error ?? "error");
    },
  };
}

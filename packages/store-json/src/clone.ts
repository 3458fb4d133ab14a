import type { LLMCallRecord, Message, TurnTrace } from "@message-store/core";

/**
 * Deep copy of a JSON value (plain objects, arrays, primitives). Records handed out or taken in
 * are copied so that a caller mutating them cannot change what the store holds. Faster than
 * `structuredClone` for this shape, and keeps `-0` and an own `"__proto__"` key.
 */
export function cloneJson<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = cloneJson(value[i]);
    return out as T;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = cloneJson((value as Record<string, unknown>)[key]);
    if (key === "__proto__") {
      // Plain assignment would set the prototype instead of creating the key.
      Object.defineProperty(out, key, {
        value: child,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    } else {
      out[key] = child;
    }
  }
  return out as T;
}

const copyList = <T>(list: readonly T[]): T[] => list.slice();

/**
 * Deep copy of a message, field by field: about 4× faster than {@link cloneJson} on a typical
 * message (a copy is made of every message handed out, so `getImmediateContext(20)` spent 70%
 * of its time in `cloneJson`). Records in the store always have exactly the model's fields;
 * free-form JSON (metadata, tool arguments and results) still goes through `cloneJson`.
 */
export function cloneMessage(m: Message): Message {
  return {
    id: m.id,
    conversationId: m.conversationId,
    userId: m.userId,
    role: m.role,
    originalContent: m.originalContent,
    enhancedMessage: m.enhancedMessage,
    explicitContext: m.explicitContext,
    episodeId: m.episodeId,
    isFlagged: m.isFlagged,
    isContinuation: m.isContinuation,
    invokedFlows: copyList(m.invokedFlows),
    invokedTools: copyList(m.invokedTools),
    reasoningSteps: copyList(m.reasoningSteps),
    entities: m.entities.map((e) => ({ name: e.name, attributes: copyList(e.attributes) })),
    intent: m.intent,
    sentiment: m.sentiment,
    sentimentScore: m.sentimentScore,
    timestamp: m.timestamp,
    toolCalls: m.toolCalls.map((c) => ({
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      arguments: cloneJson(c.arguments),
      result: cloneJson(c.result),
    })),
    toolCallId: m.toolCallId,
    toolName: m.toolName,
    metadata: cloneJson(m.metadata),
    embedding: m.embedding === null ? null : copyList(m.embedding),
  };
}

const cloneLlmCall = (c: LLMCallRecord): LLMCallRecord => ({ ...c });

/** Deep copy of a trace, field by field (see {@link cloneMessage}). */
export function cloneTrace(t: TurnTrace): TurnTrace {
  return {
    id: t.id,
    messageId: t.messageId,
    conversationId: t.conversationId,
    agentId: t.agentId,
    userId: t.userId,
    timestamp: t.timestamp,
    totalTokens: t.totalTokens,
    totalLatencyMs: t.totalLatencyMs,
    llmCalls: t.llmCalls.map(cloneLlmCall),
    taskEmissions: copyList(t.taskEmissions),
    toolTraces: t.toolTraces.map((tool) => ({
      ...tool,
      generationAttempts: tool.generationAttempts.map((a) => ({
        ...a,
        llmCall: a.llmCall === null ? null : cloneLlmCall(a.llmCall),
      })),
      finalData: cloneJson(tool.finalData),
    })),
    slotEvents: t.slotEvents.map(cloneJson),
    flowEvents: t.flowEvents.map(cloneJson),
    errors: t.errors.map(cloneJson),
    reasoningSteps: copyList(t.reasoningSteps),
    metadata: cloneJson(t.metadata),
  };
}

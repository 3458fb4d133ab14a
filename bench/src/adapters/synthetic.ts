import type { ConversationRecord, Message, TurnTrace } from "@message-store/core";
import { BASE_TIME, makeTrace } from "../data.js";

/**
 * The big synthetic dataset of the "big store" scenarios, defined by index so that every backend
 * holds the same rows: message `g` belongs to conversation `floor(g / PER_CONVERSATION)`, is a
 * user message when `g` is even, is `STEP_MS` after message `g - 1`, and messages with
 * `g % TRACE_EVERY == 1` have a trace. The Postgres loader generates the same rows in SQL
 * (`generate_series`); the others build them here.
 */
export const PER_CONVERSATION = 100;
export const STEP_MS = 600;
export const AGENTS = 10;
export const USERS = 1000;
export const TRACE_EVERY = 5;

const pad = (n: number, width: number) => String(n).padStart(width, "0");

export const syntheticIds = {
  message: (g: number) => `load-m-${pad(g, 8)}`,
  conversation: (c: number) => `load-c-${pad(c, 7)}`,
  trace: (g: number) => `load-t-${pad(g, 8)}`,
  user: (c: number) => `load-u-${c % USERS}`,
  agent: (c: number) => `agent-${c % AGENTS}`,
};

/** Text of message `g` (about 300 characters, as in SQL: see the Postgres loader). */
export function syntheticContent(g: number): string {
  return `Message ${g}: ${"the agent reads the request and answers with a short summary ".repeat(5)}`;
}

export function syntheticTimestamp(g: number): number {
  return BASE_TIME + g * STEP_MS;
}

export function syntheticConversation(c: number): ConversationRecord {
  return {
    id: syntheticIds.conversation(c),
    userId: syntheticIds.user(c),
    tenantId: null,
    agentId: syntheticIds.agent(c),
    title: `Conversation ${c}`,
    description: null,
    status: "active",
    createdAt: BASE_TIME,
    updatedAt: BASE_TIME,
    deletedAt: null,
    tags: ["bench"],
    metadata: { source: "bench" },
  };
}

export function syntheticMessage(g: number): Message {
  const c = Math.floor(g / PER_CONVERSATION);
  return {
    id: syntheticIds.message(g),
    conversationId: syntheticIds.conversation(c),
    userId: syntheticIds.user(c),
    tenantId: null,
    role: g % 2 === 0 ? "user" : "assistant",
    originalContent: syntheticContent(g),
    enhancedMessage: null,
    explicitContext: null,
    episodeId: null,
    isFlagged: false,
    isContinuation: false,
    invokedFlows: [],
    invokedTools: [],
    reasoningSteps: [],
    entities: [],
    intent: null,
    sentiment: null,
    sentimentScore: 0,
    timestamp: syntheticTimestamp(g),
    toolCalls: [],
    toolCallId: null,
    toolName: null,
    toolArguments: null,
    tags: [],
    metadata: { source: "bench" },
    traceId: null,
    spanId: null,
    embedding: null,
    deletedAt: null,
  };
}

export function hasSyntheticTrace(g: number): boolean {
  return g % TRACE_EVERY === 1;
}

/** The trace of message `g` (only when {@link hasSyntheticTrace}). */
export function syntheticTrace(g: number): TurnTrace {
  const c = Math.floor(g / PER_CONVERSATION);
  return makeTrace(syntheticIds.trace(g), syntheticMessage(g), syntheticIds.agent(c), g);
}

/** Message index of the `k`-th trace (k from 0). */
export function traceMessageIndex(k: number): number {
  return k * TRACE_EVERY + 1;
}

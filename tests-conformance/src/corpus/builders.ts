import type { ConversationInput, MessageInput, TurnTraceInput } from "@message-store/core";
import { T0 } from "../fixtures.js";
import type { CorpusSeed } from "./corpus-case.js";

/** A valid new conversation at the probe id; `o` overrides fields. */
export function newConversation(
  seed: CorpusSeed,
  o: Record<string, unknown> = {},
): ConversationInput {
  return {
    id: seed.probe.conversationId,
    userId: seed.probe.userId,
    createdAt: T0,
    ...o,
  } as ConversationInput;
}

/** The seed conversation as input (an upsert of an existing record); `o` overrides fields. */
export function existingConversation(
  seed: CorpusSeed,
  o: Record<string, unknown> = {},
): ConversationInput {
  const { lastActivityAt: _, ...input } = seed.conversation;
  return { ...input, ...o } as ConversationInput;
}

/** A valid new message at the probe id in the seed conversation; `o` overrides fields. */
export function newMessage(seed: CorpusSeed, o: Record<string, unknown> = {}): MessageInput {
  return {
    id: seed.probe.messageId,
    conversationId: seed.conversation.id,
    userId: seed.userId,
    role: "user",
    originalContent: "probe",
    timestamp: T0 + 10_000,
    ...o,
  } as MessageInput;
}

/** The seed user message as input (an upsert of an existing record); `o` overrides fields. */
export function existingMessage(seed: CorpusSeed, o: Record<string, unknown> = {}): MessageInput {
  return { ...seed.userMessage, ...o } as MessageInput;
}

/** A valid new trace at the probe id for the seed user message; `o` overrides fields. */
export function newTrace(seed: CorpusSeed, o: Record<string, unknown> = {}): TurnTraceInput {
  return {
    id: seed.probe.traceId,
    messageId: seed.userMessage.id,
    conversationId: seed.conversation.id,
    agentId: seed.agentId,
    timestamp: T0 + 10_000,
    totalTokens: 1,
    totalLatencyMs: 1,
    ...o,
  } as TurnTraceInput;
}

/** The seed trace as input (an upsert of an existing record); `o` overrides fields. */
export function existingTrace(seed: CorpusSeed, o: Record<string, unknown> = {}): TurnTraceInput {
  return { ...seed.trace, ...o } as TurnTraceInput;
}

/** A valid LLM call; `o` overrides fields. */
export function call(o: Record<string, unknown> = {}) {
  return {
    purpose: "agent_loop",
    model: "m",
    promptTokens: 1,
    completionTokens: 1,
    latencyMs: 1,
    ...o,
  };
}

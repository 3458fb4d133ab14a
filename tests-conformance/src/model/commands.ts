import type { StoreCapabilities } from "@message-store/core";
import type { Call } from "./command.js";

/**
 * The vocabulary of the model-based test: small ids, owners and timestamps, so that random
 * sequences keep meeting the same records. Timestamps are far in the future, so that a session
 * append's timestamps (after the conversation's activity, or now) do not depend on the clock.
 */
export const BASE = Date.UTC(2100, 0, 1);

/** Conversations and their owners; `mx` is a message id every conversation may try to take. */
export const OWNER: Readonly<Record<string, string>> = { c1: "u1", c2: "u2", c3: "u1" };
export const TENANT: Readonly<Record<string, string>> = { c1: "t1", c2: "t1", c3: "t2" };
export const CONTENTS = ["alpha", "Beta alpha", "gamma"] as const;
export const EMBEDDINGS = [[1, 0], [0, 1], [1, 1], null] as const;

/** What varies in a message the generator writes. */
export interface MessageSpec {
  id: string;
  timestamp: number;
  isFlagged: boolean;
  content: number;
  embedding: number;
  /** Written with another owner than the conversation's (an ownership rule must refuse it). */
  foreign?: boolean;
}

/** Builds the arguments of the contract's calls from specs, given the adapter's capabilities. */
export class Vocabulary {
  constructor(readonly capabilities: StoreCapabilities) {}

  get tenants(): boolean {
    return this.capabilities.tenants === true;
  }

  conversation(id: string, updatedAt: number, foreign = false) {
    return {
      id,
      userId: foreign ? other(OWNER[id]!) : OWNER[id]!,
      tenantId: this.tenants ? TENANT[id]! : null,
      title: id === "c2" ? "Alpha plans" : null,
      createdAt: BASE,
      updatedAt: BASE + updatedAt,
    };
  }

  message(conversationId: string, m: MessageSpec) {
    return {
      id: m.id,
      conversationId,
      userId: m.foreign ? other(OWNER[conversationId]!) : OWNER[conversationId]!,
      role: m.id.endsWith("m2") ? ("assistant" as const) : ("user" as const),
      originalContent: CONTENTS[m.content]!,
      timestamp: BASE + m.timestamp,
      isFlagged: m.isFlagged,
      embedding: EMBEDDINGS[m.embedding] ? [...EMBEDDINGS[m.embedding]!] : null,
    };
  }

  trace(messageId: string, conversationId: string, agent: number, tokens: number) {
    return {
      id: `t.${messageId}`,
      messageId,
      conversationId,
      agentId: `a${agent}`,
      timestamp: BASE + tokens,
      totalTokens: tokens,
      totalLatencyMs: tokens * 10,
      llmCalls: [
        {
          purpose: "agent_loop",
          model: `model-${agent}`,
          promptTokens: tokens,
          completionTokens: 1,
          latencyMs: 5,
          costUsd: 0.001,
        },
      ],
      toolTraces: agent === 1 ? [{ toolName: "lookup" }] : [],
      errors: tokens > 20 ? [{ type: "E" }] : [],
    };
  }

  /**
   * `storeSessionMessages` after an upsert of its conversation with a fixed `updatedAt`: a
   * session that created its conversation would date it by the clock, and the model compares
   * exact timestamps. (Creating sessions are covered by the session suite.)
   */
  session(
    conversationId: string,
    updatedAt: number,
    turns: { id: string; content: number }[],
  ): Call[] {
    const owner = {
      userId: OWNER[conversationId]!,
      ...(this.tenants ? { tenantId: TENANT[conversationId]! } : {}),
    };
    const session = turns.map((t) => ({ id: t.id, role: "user", content: CONTENTS[t.content]! }));
    return [
      { method: "storeConversation", args: [this.conversation(conversationId, updatedAt)] },
      { method: "storeSessionMessages", args: [conversationId, session, owner] },
    ];
  }
}

function other(user: string): string {
  return user === "u1" ? "u2" : "u1";
}

import type {
  Conversation,
  ConversationInput,
  Message,
  MessageInput,
  MessageStoreApi,
  TurnTrace,
  TurnTraceInput,
} from "@message-store/core";

/** The records every corpus case starts from (stored fresh before each case). */
export interface CorpusSeed {
  userId: string;
  agentId: string;
  conversation: Conversation;
  /** A user message and an assistant message; the assistant one has `trace`. */
  userMessage: Message;
  assistantMessage: Message;
  trace: TurnTrace;
  /** Ids that no record has; a rejected call aimed at them must leave them absent. */
  probe: { userId: string; conversationId: string; messageId: string; traceId: string };
}

/** Records a round-trip case stores (in this order) and then reads back through every read path. */
export interface RoundTripRecords {
  conversation: ConversationInput;
  messages?: MessageInput[];
  trace?: TurnTraceInput;
}

/**
 * One entry of the bad-input corpus. Either the call must reject with a `ValidationError` and
 * leave the store exactly as it was, or the input is legal and must round-trip faithfully.
 */
export type CorpusCase =
  | {
      name: string;
      expect: "ValidationError";
      call: (store: MessageStoreApi, seed: CorpusSeed) => Promise<unknown>;
    }
  | {
      name: string;
      expect: "round-trip";
      records: (seed: CorpusSeed) => RoundTripRecords;
    };

/** A case whose call must reject with `ValidationError`. */
export function rejects(
  name: string,
  call: (store: MessageStoreApi, seed: CorpusSeed) => Promise<unknown>,
): CorpusCase {
  return { name, expect: "ValidationError", call };
}

/** A case whose records must round-trip faithfully. */
export function roundTrips(
  name: string,
  records: (seed: CorpusSeed) => RoundTripRecords,
): CorpusCase {
  return { name, expect: "round-trip", records };
}

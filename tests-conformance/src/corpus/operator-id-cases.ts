import type { MessageStoreApi } from "@message-store/core";
import { T0 } from "../fixtures.js";
import {
  existingConversation,
  existingMessage,
  existingTrace,
  newMessage,
  newTrace,
} from "./builders.js";
import { type CorpusCase, type CorpusSeed, rejects } from "./corpus-case.js";

/** A query-operator object where a string id belongs (the classic NoSQL injection). */
const NE = { $ne: null } as any;
const any = (v: unknown) => v as any;

type Call = (s: MessageStoreApi, d: CorpusSeed) => Promise<unknown>;

/** `{ $ne: null }` passed as an id to every read and write method of the contract. */
const PER_METHOD: [string, Call][] = [
  ["getConversation", (s) => s.getConversation(NE)],
  ["getConversationsByUserId", (s) => s.getConversationsByUserId(NE)],
  ["listConversations userId", (s) => s.listConversations({ userId: NE })],
  ["deleteConversation", (s) => s.deleteConversation(NE)],
  ["getMessage", (s) => s.getMessage(NE)],
  ["flagMessage", (s) => s.flagMessage(NE)],
  ["flagMessage(…, false)", (s) => s.flagMessage(NE, false)],
  ["getMessagesByConversationId", (s) => s.getMessagesByConversationId(NE)],
  ["getImmediateContext", (s) => s.getImmediateContext(NE, 10)],
  ["getTurnTraceByMessageId", (s) => s.getTurnTraceByMessageId(NE)],
  ["getTurnTracesByAgentId", (s) => s.getTurnTracesByAgentId(NE)],
  ["queryTurnTraces agentId", (s) => s.queryTurnTraces({ agentId: NE })],
  ["queryTurnTraces conversationId", (s) => s.queryTurnTraces({ conversationId: NE })],
  ["queryTurnTraces userId", (s) => s.queryTurnTraces({ userId: NE })],
  ["queryTurnTraces toolName", (s) => s.queryTurnTraces({ toolName: NE })],
  [
    "summarizeUsage agentId",
    (s) => s.summarizeUsage({ agentId: NE, since: 0, until: T0 * 2, bucket: "day" }),
  ],
  [
    "summarizeUsage userId",
    (s) => s.summarizeUsage({ userId: NE, since: 0, until: T0 * 2, bucket: "day" }),
  ],
  ["deleteUserData", (s) => s.deleteUserData(NE)],
  ["searchMessages userId", (s) => s.searchMessages({ embedding: [1], userId: NE })],
  [
    "searchMessages conversationId",
    (s) => s.searchMessages({ embedding: [1], conversationId: NE }),
  ],
  ["storeConversation id", (s, d) => s.storeConversation(existingConversation(d, { id: NE }))],
  [
    "storeConversation userId",
    (s, d) => s.storeConversation(existingConversation(d, { userId: NE })),
  ],
  [
    "storeConversation agentId",
    (s, d) => s.storeConversation(existingConversation(d, { agentId: NE })),
  ],
  ["storeMessage id", (s, d) => s.storeMessage(newMessage(d, { id: NE }))],
  [
    "storeMessage conversationId",
    (s, d) => s.storeMessage(existingMessage(d, { conversationId: NE })),
  ],
  ["storeMessage userId", (s, d) => s.storeMessage(existingMessage(d, { userId: NE }))],
  ["storeMessage episodeId", (s, d) => s.storeMessage(newMessage(d, { episodeId: NE }))],
  [
    "storeMessage toolCalls[].toolCallId",
    (s, d) => s.storeMessage(newMessage(d, { toolCalls: [{ toolCallId: NE, toolName: "t" }] })),
  ],
  [
    "storeMessages conversationId",
    (s, d) => s.storeMessages([newMessage(d), existingMessage(d, { conversationId: NE })]),
  ],
  ["storeTurnTrace id", (s, d) => s.storeTurnTrace(newTrace(d, { id: NE }))],
  ["storeTurnTrace messageId", (s, d) => s.storeTurnTrace(existingTrace(d, { messageId: NE }))],
  [
    "storeTurnTrace conversationId",
    (s, d) => s.storeTurnTrace(existingTrace(d, { conversationId: NE })),
  ],
  ["storeTurnTrace agentId", (s, d) => s.storeTurnTrace(newTrace(d, { agentId: NE }))],
  ["storeTurnTrace userId", (s, d) => s.storeTurnTrace(existingTrace(d, { userId: NE }))],
];

/** Other non-string ids a JS caller (or an untyped HTTP body) may pass. */
const OTHER_SHAPES: [string, Call][] = [
  ["getConversation({ $gt: '' })", (s) => s.getConversation(any({ $gt: "" }))],
  ["getConversation([id])", (s, d) => s.getConversation(any([d.conversation.id]))],
  ["getMessage(new String(id))", (s, d) => s.getMessage(any(new String(d.userMessage.id)))],
  ["deleteConversation(42)", (s) => s.deleteConversation(any(42))],
  ["deleteUserData({ $regex: '.*' })", (s) => s.deleteUserData(any({ $regex: ".*" }))],
  ["getConversationsByUserId(null)", (s) => s.getConversationsByUserId(any(null))],
  ["getMessagesByConversationId(undefined)", (s) => s.getMessagesByConversationId(any(undefined))],
  [
    "getTurnTraceByMessageId({ toString })",
    (s, d) => s.getTurnTraceByMessageId(any({ toString: () => d.assistantMessage.id })),
  ],
];

/** Non-string ids, one case per method and field. */
export const OPERATOR_ID_CASES: CorpusCase[] = [
  ...PER_METHOD.map(([what, call]) => rejects(`{ $ne: null } as id: ${what}`, call)),
  ...OTHER_SHAPES.map(([what, call]) => rejects(`non-string id: ${what}`, call)),
];

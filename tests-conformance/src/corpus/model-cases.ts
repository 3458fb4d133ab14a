import {
  call,
  existingConversation,
  existingMessage,
  existingTrace,
  newConversation,
  newMessage,
  newTrace,
} from "./builders.js";
import { type CorpusCase, rejects } from "./corpus-case.js";

const LONG_ID = "x".repeat(257);
const any = (v: unknown) => v as any;

/** Inputs that break the models: wrong types, unknown keys, out-of-range numbers, bad ids. */
export const MODEL_CASES: CorpusCase[] = [
  // wrong types and unknown keys
  rejects("conversation with an unknown key (typo)", (s, d) =>
    s.storeConversation(any(newConversation(d, { titel: "x" }))),
  ),
  rejects("conversation upsert with an unknown key", (s, d) =>
    s.storeConversation(any(existingConversation(d, { extra: 1 }))),
  ),
  rejects("conversation id is a number", (s, d) =>
    s.storeConversation(any(newConversation(d, { id: 42 }))),
  ),
  rejects("conversation tags is a string", (s, d) =>
    s.storeConversation(any(existingConversation(d, { tags: "a,b" }))),
  ),
  rejects("conversation metadata is an array", (s, d) =>
    s.storeConversation(any(existingConversation(d, { metadata: [1] }))),
  ),
  rejects("conversation title is a number", (s, d) =>
    s.storeConversation(any(existingConversation(d, { title: 7 }))),
  ),
  rejects("message role is not a role", (s, d) =>
    s.storeMessage(any(existingMessage(d, { role: "bot" }))),
  ),
  rejects("message originalContent is null", (s, d) =>
    s.storeMessage(any(newMessage(d, { originalContent: null }))),
  ),
  rejects("message originalContent is missing", (s, d) =>
    s.storeMessage(any(newMessage(d, { originalContent: undefined }))),
  ),
  rejects("message with an unknown key", (s, d) =>
    s.storeMessage(any(existingMessage(d, { content: "x" }))),
  ),
  rejects("message with an own __proto__ key", (s, d) =>
    s.storeMessage(Object.assign(JSON.parse('{"__proto__": {"isFlagged": true}}'), newMessage(d))),
  ),
  rejects("message isFlagged is a string", (s, d) =>
    s.storeMessage(any(existingMessage(d, { isFlagged: "true" }))),
  ),
  rejects("message entity with an empty name", (s, d) =>
    s.storeMessage(any(newMessage(d, { entities: [{ name: "" }] }))),
  ),
  rejects("message entity attributes are not strings", (s, d) =>
    s.storeMessage(any(newMessage(d, { entities: [{ name: "e", attributes: [1] }] }))),
  ),
  rejects("message tool call arguments is an array", (s, d) =>
    s.storeMessage(
      any(newMessage(d, { toolCalls: [{ toolCallId: "c", toolName: "t", arguments: [1] }] })),
    ),
  ),
  rejects("message timestamp is an ISO string", (s, d) =>
    s.storeMessage(any(newMessage(d, { timestamp: "2025-01-01T00:00:00Z" }))),
  ),
  rejects("message timestamp is a Date", (s, d) =>
    s.storeMessage(any(newMessage(d, { timestamp: new Date(0) }))),
  ),
  rejects("message timestamp is NaN", (s, d) =>
    s.storeMessage(any(existingMessage(d, { timestamp: Number.NaN }))),
  ),
  rejects("message timestamp is Infinity", (s, d) =>
    s.storeMessage(any(newMessage(d, { timestamp: Number.POSITIVE_INFINITY }))),
  ),
  rejects("message timestamp is negative", (s, d) =>
    s.storeMessage(any(newMessage(d, { timestamp: -1 }))),
  ),
  rejects("message timestamp is fractional", (s, d) =>
    s.storeMessage(any(newMessage(d, { timestamp: 1.5 }))),
  ),
  rejects("message timestamp beyond MAX_SAFE_INTEGER", (s, d) =>
    s.storeMessage(any(newMessage(d, { timestamp: 2 ** 53 }))),
  ),
  rejects("conversation createdAt is -Infinity", (s, d) =>
    s.storeConversation(any(newConversation(d, { createdAt: Number.NEGATIVE_INFINITY }))),
  ),
  rejects("message sentimentScore 1.5", (s, d) =>
    s.storeMessage(any(existingMessage(d, { sentimentScore: 1.5 }))),
  ),
  rejects("message sentimentScore -1.0001", (s, d) =>
    s.storeMessage(any(newMessage(d, { sentimentScore: -1.0001 }))),
  ),
  rejects("message sentimentScore NaN", (s, d) =>
    s.storeMessage(any(newMessage(d, { sentimentScore: Number.NaN }))),
  ),
  rejects("trace totalTokens negative", (s, d) =>
    s.storeTurnTrace(any(existingTrace(d, { totalTokens: -1 }))),
  ),
  rejects("trace totalTokens fractional", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { totalTokens: 1.5 }))),
  ),
  rejects("trace LLM call promptTokens negative", (s, d) =>
    s.storeTurnTrace(any(existingTrace(d, { llmCalls: [call({ promptTokens: -5 })] }))),
  ),
  rejects("trace LLM call completionTokens fractional", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { llmCalls: [call({ completionTokens: 0.5 })] }))),
  ),
  rejects("trace LLM call purpose unknown", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { llmCalls: [call({ purpose: "chat" })] }))),
  ),
  rejects("trace LLM call costUsd negative", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { llmCalls: [call({ costUsd: -0.01 })] }))),
  ),
  rejects("trace totalLatencyMs negative", (s, d) =>
    s.storeTurnTrace(any(existingTrace(d, { totalLatencyMs: -0.5 }))),
  ),
  rejects("trace totalLatencyMs Infinity", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { totalLatencyMs: Number.POSITIVE_INFINITY }))),
  ),
  rejects("trace tool outputBytes negative", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { toolTraces: [{ toolName: "t", outputBytes: -1 }] }))),
  ),
  rejects("trace script attempt 0", (s, d) =>
    s.storeTurnTrace(
      any(
        newTrace(d, {
          toolTraces: [{ toolName: "t", generationAttempts: [{ attempt: 0, script: "" }] }],
        }),
      ),
    ),
  ),
  rejects("trace slotEvents holds an array instead of an object", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { slotEvents: [[1]] }))),
  ),
  // ids
  rejects("conversation with an empty id", (s, d) =>
    s.storeConversation(newConversation(d, { id: "" })),
  ),
  rejects("message with an empty id", (s, d) => s.storeMessage(newMessage(d, { id: "" }))),
  rejects("trace with an empty id", (s, d) => s.storeTurnTrace(newTrace(d, { id: "" }))),
  rejects("conversation with a 257-character id", (s, d) =>
    s.storeConversation(newConversation(d, { id: LONG_ID })),
  ),
  rejects("message with a 257-character id", (s, d) =>
    s.storeMessage(newMessage(d, { id: LONG_ID })),
  ),
  rejects("trace with a 257-character messageId", (s, d) =>
    s.storeTurnTrace(newTrace(d, { messageId: LONG_ID })),
  ),
  rejects("conversation with a 257-character userId", (s, d) =>
    s.storeConversation(existingConversation(d, { userId: LONG_ID })),
  ),
  rejects("getConversation with an empty id", (s) => s.getConversation("")),
  rejects("getMessage with a 257-character id", (s) => s.getMessage(LONG_ID)),
  rejects("deleteConversation with a 257-character id", (s) => s.deleteConversation(LONG_ID)),
  rejects("deleteUserData with an empty user id", (s) => s.deleteUserData("")),
  // whole-argument shapes
  rejects("storeConversation(null)", (s) => s.storeConversation(any(null))),
  rejects("storeTurnTrace(undefined)", (s) => s.storeTurnTrace(any(undefined))),
  rejects("storeMessage of a string", (s) => s.storeMessage(any("hello"))),
  rejects("a batch whose last message is invalid stores none of it", (s, d) =>
    s.storeMessages([
      existingMessage(d, { originalContent: "changed?" }),
      newMessage(d),
      any(newMessage(d, { id: "x2", timestamp: Number.NaN })),
    ]),
  ),
];

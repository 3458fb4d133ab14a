import { describe, expect, it } from "vitest";
import { EntitySchema, MessageSchema, ToolCallSchema } from "../../src/index.js";

const minimal = {
  id: "m",
  conversationId: "c",
  userId: "u",
  role: "user",
  originalContent: "hi",
  timestamp: 10,
} as const;

describe("MessageSchema", () => {
  it("fills every default", () => {
    expect(MessageSchema.parse(minimal)).toEqual({
      ...minimal,
      tenantId: null,
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
      toolCalls: [],
      toolCallId: null,
      toolName: null,
      toolArguments: null,
      tags: [],
      metadata: {},
      traceId: null,
      spanId: null,
      embedding: null,
      deletedAt: null,
    });
  });

  it("normalises -0 in an embedding to 0 (not every backend's text protocol keeps it)", () => {
    const m = MessageSchema.parse({ ...minimal, embedding: [0.5, -0, 1] });
    expect(Object.is(m.embedding?.[1], 0)).toBe(true);
    expect(m.embedding).toEqual([0.5, 0, 1]);
  });

  it("fills nested defaults of tool calls and entities", () => {
    const m = MessageSchema.parse({
      ...minimal,
      toolCalls: [{ toolCallId: "k", toolName: "t" }],
      entities: [{ name: "Ada" }],
    });
    expect(m.toolCalls).toEqual([{ toolCallId: "k", toolName: "t", arguments: {}, result: null }]);
    expect(m.entities).toEqual([{ name: "Ada", attributes: [] }]);
  });

  it("accepts every role, NUL text, edge sentiment scores and a float64 embedding", () => {
    for (const role of ["user", "assistant", "colleague_assistant", "system", "tool"]) {
      expect(MessageSchema.safeParse({ ...minimal, role }).success).toBe(true);
    }
    const m = MessageSchema.parse({
      ...minimal,
      originalContent: "\u0000nul\u0000",
      sentimentScore: -1,
      embedding: [0.1, -2.5e-300, 1.7976931348623157e308],
    });
    expect(m.originalContent).toBe("\u0000nul\u0000");
    expect(m.embedding).toEqual([0.1, -2.5e-300, 1.7976931348623157e308]);
    expect(MessageSchema.parse({ ...minimal, sentimentScore: 1 }).sentimentScore).toBe(1);
  });

  it.each([
    ["unknown key", { content: "x" }],
    ["unknown role", { role: "bot" }],
    ["id of 257 chars", { id: "x".repeat(257) }],
    ["empty id", { id: "" }],
    ["numeric id", { id: 1 }],
    ["object conversationId", { conversationId: { $gt: "" } }],
    ["NaN timestamp", { timestamp: NaN }],
    ["Infinity timestamp", { timestamp: Infinity }],
    ["negative timestamp", { timestamp: -5 }],
    ["missing timestamp", { timestamp: undefined }],
    ["sentiment 1.5", { sentimentScore: 1.5 }],
    ["sentiment -1.01", { sentimentScore: -1.01 }],
    ["sentiment NaN", { sentimentScore: NaN }],
    ["lone surrogate content", { originalContent: "x\uD800" }],
    ["lone surrogate in invokedTools", { invokedTools: ["\uDFFF"] }],
    ["empty embedding", { embedding: [] }],
    ["NaN in embedding", { embedding: [1, NaN] }],
    ["Infinity in embedding", { embedding: [Infinity] }],
    ["BigInt in metadata", { metadata: { n: 10n } }],
    ["function in metadata", { metadata: { f: () => 0 } }],
    ["class instance in metadata", { metadata: { u: new URL("http://x") } }],
    ["undefined in metadata", { metadata: { u: undefined } }],
    ["lone surrogate metadata key", { metadata: { "\uDC00x": 1 } }],
    ["unknown tool call key", { toolCalls: [{ toolCallId: "k", toolName: "t", extra: 1 }] }],
    ["empty tool name", { toolCalls: [{ toolCallId: "k", toolName: "" }] }],
    ["non-object arguments", { toolCalls: [{ toolCallId: "k", toolName: "t", arguments: [1] }] }],
    ["Date result", { toolCalls: [{ toolCallId: "k", toolName: "t", result: new Date() }] }],
    ["empty entity name", { entities: [{ name: "" }] }],
    ["string isFlagged", { isFlagged: "true" }],
  ])("rejects %s", (_, patch) => {
    expect(MessageSchema.safeParse({ ...minimal, ...patch }).success).toBe(false);
  });

  it("accepts $ and . keys and NUL inside tool arguments, results and metadata", () => {
    const json = { $set: { "a.b": "\u0000", "\u0000": [{ ".": null }] } };
    const m = MessageSchema.parse({
      ...minimal,
      metadata: json,
      toolCalls: [{ toolCallId: "k", toolName: "t", arguments: json, result: json }],
    });
    expect(m.metadata).toEqual(json);
    expect(m.toolCalls[0]).toEqual({
      toolCallId: "k",
      toolName: "t",
      arguments: json,
      result: json,
    });
  });
});

describe("ToolCallSchema / EntitySchema", () => {
  it("are strict", () => {
    expect(ToolCallSchema.safeParse({ toolCallId: "k", toolName: "t", id: 1 }).success).toBe(false);
    expect(EntitySchema.safeParse({ name: "n", kind: "x" }).success).toBe(false);
  });
  it("accept any JSON result, including scalars", () => {
    for (const result of [0, "", false, [null], { a: 1 }]) {
      expect(ToolCallSchema.parse({ toolCallId: "k", toolName: "t", result }).result).toEqual(
        result,
      );
    }
  });
});

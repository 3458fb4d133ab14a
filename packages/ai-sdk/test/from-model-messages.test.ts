import {
  type Message,
  type MessageInput,
  MessageSchema,
  toModelMessages,
  UNAVAILABLE_TOOL_RESULT,
} from "@message-store/core";
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import { fromModelMessages } from "../src/index.js";

const target = { conversationId: "c1", userId: "u1", timestamp: 1_000 };

/** Stored form of inputs, defaults filled, as a store would read them back. */
function stored(inputs: MessageInput[]): Message[] {
  return inputs.map((m) => MessageSchema.parse(m));
}

function message(id: string, fields: Partial<MessageInput> & Pick<MessageInput, "role">): Message {
  return MessageSchema.parse({
    id,
    conversationId: "c1",
    userId: "u1",
    originalContent: "",
    timestamp: 1_000,
    ...fields,
  });
}

describe("fromModelMessages", () => {
  it("maps text, reasoning, tool calls and every kind of tool output", () => {
    const messages: ModelMessage[] = [
      { role: "system", content: "Be brief." },
      {
        role: "user",
        content: [
          { type: "text", text: "Weather " },
          { type: "text", text: "in Paris?" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Need the weather tool." },
          { type: "text", text: "Checking." },
          { type: "tool-call", toolCallId: "a", toolName: "weather", input: { city: "Paris" } },
          { type: "tool-call", toolCallId: "b", toolName: "echo", input: "raw text" },
          {
            type: "tool-call",
            toolCallId: "c",
            toolName: "search",
            input: {},
            providerExecuted: true,
          },
          {
            type: "tool-result",
            toolCallId: "c",
            toolName: "search",
            output: { type: "json", value: { hits: 2 } },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "weather",
            output: { type: "json", value: { sky: "sunny" } },
          },
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "echo",
            output: { type: "error-text", value: "boom" },
          },
          {
            type: "tool-result",
            toolCallId: "d",
            toolName: "gone",
            output: { type: "error-text", value: UNAVAILABLE_TOOL_RESULT },
          },
          {
            type: "tool-result",
            toolCallId: "e",
            toolName: "deny",
            output: { type: "execution-denied", reason: "no" },
          },
        ],
      },
      { role: "assistant", content: "Sunny." },
    ];
    let n = 0;
    const out = fromModelMessages(messages, { ...target, messageId: () => `m${n++}` });
    expect(out.map((m) => [m.id, m.role, m.originalContent])).toEqual([
      ["m0", "system", "Be brief."],
      ["m1", "user", "Weather in Paris?"],
      ["m2", "assistant", "Checking."],
      ["m3", "tool", '{"sky":"sunny"}'],
      ["m4", "tool", "boom"],
      ["m5", "tool", "no"],
      ["m6", "assistant", "Sunny."],
    ]);
    expect(out[2]).toMatchObject({
      reasoningSteps: ["Need the weather tool."],
      toolCalls: [
        { toolCallId: "a", toolName: "weather", arguments: { city: "Paris" } },
        { toolCallId: "b", toolName: "echo", arguments: { input: "raw text" } },
        { toolCallId: "c", toolName: "search", arguments: {}, result: { hits: 2 } },
      ],
    });
    expect(out[3]).toMatchObject({ toolCallId: "a", toolName: "weather" });
    expect(out.every((m) => m.timestamp === 1_000 && m.conversationId === "c1")).toBe(true);
    expect(() => stored(out)).not.toThrow();
  });

  it("is the inverse of toModelMessages: replay → store → replay gives the same replay", () => {
    const history = [
      message("1", { role: "system", originalContent: "You are terse." }),
      message("2", { role: "user", originalContent: "Find flights" }),
      message("3", {
        role: "assistant",
        originalContent: "Searching.",
        toolCalls: [
          { toolCallId: "t1", toolName: "flights", arguments: { from: "CDG", to: "JFK" } },
          { toolCallId: "t2", toolName: "hotels", arguments: { city: "NYC" } },
          { toolCallId: "t3", toolName: "cached", arguments: {}, result: { price: 42 } },
          { toolCallId: "t4", toolName: "note", arguments: {}, result: "plain text" },
          { toolCallId: "t5", toolName: "pending", arguments: { q: 1 } },
        ],
      }),
      message("4", {
        role: "tool",
        toolCallId: "t1",
        toolName: "flights",
        originalContent: '[{"id":"AF1"}]',
      }),
      message("5", {
        role: "tool",
        toolCallId: "t2",
        toolName: "hotels",
        originalContent: "12345678901234567890",
      }),
      message("6", {
        role: "assistant",
        originalContent: "",
        toolCalls: [{ toolCallId: "t6", toolName: "x" }],
      }),
      message("7", { role: "tool", toolCallId: "t6", toolName: "x", originalContent: "done" }),
      message("8", { role: "assistant", originalContent: "AF1 it is." }),
      message("9", { role: "user", originalContent: "Thanks" }),
    ];
    const replay = toModelMessages(history);
    const again = stored(fromModelMessages(replay as ModelMessage[], target));
    expect(toModelMessages(again)).toEqual(replay);
    // What both sides express survives field by field too.
    expect(again.map((m) => [m.role, m.originalContent])).toContainEqual([
      "tool",
      "12345678901234567890",
    ]);
    expect(again.find((m) => m.toolCalls.length === 5)?.toolCalls[4]).toMatchObject({
      toolCallId: "t5",
      arguments: { q: 1 },
      result: null, // the "unavailable" placeholder is not stored as a result
    });
    expect(again.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual([
      "t1",
      "t2",
      "t3",
      "t4",
      "t6",
    ]);
  });

  it("stores what a model produced so that replaying it gives the same messages", () => {
    const turn: ModelMessage[] = [
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool-call", toolCallId: "w1", toolName: "weather", input: { city: "Paris" } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "w1",
            toolName: "weather",
            output: { type: "json", value: { sky: "sunny", temp: 21 } },
          },
        ],
      },
      { role: "assistant", content: "Sunny, 21°C." },
    ];
    expect(toModelMessages(stored(fromModelMessages(turn, target)))).toEqual(turn);
  });

  it("rejects a tool input JSON cannot hold with a ValidationError", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const turn: ModelMessage[] = [
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "x", toolName: "t", input: cyclic }],
      },
    ];
    expect(() => fromModelMessages(turn, target)).toThrow(
      expect.objectContaining({ code: "VALIDATION", message: expect.stringContaining("[ai-sdk]") }),
    );
  });
});

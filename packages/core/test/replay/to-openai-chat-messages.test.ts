import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { type Message, toOpenAIChatMessages, UNAVAILABLE_TOOL_RESULT } from "../../src/index.js";
import { assistant, message, toolMessage } from "../support/builders.js";

/** Replays through core; the annotation makes `tsc` check the result against the openai types. */
function replay(messages: Message[], systemPrompt?: string): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = toOpenAIChatMessages(messages, { systemPrompt });
  return out;
}

/** Checks what the Chat Completions API enforces on a tool sequence. */
function expectProviderValid(messages: ChatCompletionMessageParam[]): void {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") {
      expect.fail(`tool message at ${i} does not follow an assistant message with tool_calls`);
    }
    if (m.role !== "assistant" || !m.tool_calls) continue;
    const ids = m.tool_calls.map((c) => c.id);
    const answers = messages.slice(i + 1, i + 1 + ids.length);
    expect(answers.map((a) => (a.role === "tool" ? a.tool_call_id : null))).toEqual(ids);
    for (const c of m.tool_calls) {
      if (c.type !== "function") expect.fail("only function tool calls are replayed");
      expect(typeof JSON.parse(c.function.arguments)).toBe("object");
    }
    i += ids.length;
  }
}

const call = (id: string, result: unknown = null) => ({
  toolCallId: id,
  toolName: "search",
  arguments: { q: id, nested: { "$k.x": [1, null, "\u0000"] } },
  result: result as never,
});

describe("toOpenAIChatMessages", () => {
  it("maps plain roles, system prompt first", () => {
    expect(
      replay(
        [
          message({ role: "system", originalContent: "rules" }),
          message({ role: "user", originalContent: "hi" }),
          message({ role: "colleague_assistant", originalContent: "hello" }),
          message({ role: "assistant", originalContent: "" }),
        ],
        "prompt",
      ),
    ).toEqual([
      { role: "system", content: "prompt" },
      { role: "system", content: "rules" },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "assistant", content: "" },
    ]);
  });

  it("emits tool_calls with JSON-string arguments and one tool message per call", () => {
    const out = replay([
      assistant("checking", [call("a"), call("b")]),
      toolMessage("a", '{"hits":3}'),
      toolMessage("b", "plain"),
    ]);
    expect(out).toEqual([
      {
        role: "assistant",
        content: "checking",
        tool_calls: [
          {
            id: "a",
            type: "function",
            function: { name: "search", arguments: expect.any(String) },
          },
          {
            id: "b",
            type: "function",
            function: { name: "search", arguments: expect.any(String) },
          },
        ],
      },
      { role: "tool", tool_call_id: "a", content: '{"hits":3}' },
      { role: "tool", tool_call_id: "b", content: "plain" },
    ]);
    const first = out[0];
    if (first?.role !== "assistant" || first.tool_calls?.[0]?.type !== "function")
      expect.fail("expected an assistant message with a function call");
    expect(JSON.parse(first.tool_calls[0].function.arguments)).toEqual(call("a").arguments);
    expectProviderValid(out);
  });

  it("uses content null for an assistant with calls and no text", () => {
    const [first] = replay([assistant("", [call("k", "r")])]);
    expect(first).toMatchObject({ role: "assistant", content: null });
  });

  it("replays stored results and marks missing ones", () => {
    const out = replay([
      assistant("x", [call("s", "as is"), call("j", { a: [1] }), call("n", 0), call("m")]),
    ]);
    expect(out.slice(1)).toEqual([
      { role: "tool", tool_call_id: "s", content: "as is" },
      { role: "tool", tool_call_id: "j", content: '{"a":[1]}' },
      { role: "tool", tool_call_id: "n", content: "0" },
      { role: "tool", tool_call_id: "m", content: UNAVAILABLE_TOOL_RESULT },
    ]);
    expectProviderValid(out);
  });

  it("keeps a provider-valid sequence for a window cut mid-turn", () => {
    const out = replay([
      toolMessage("cut-off", "orphan"),
      message({ originalContent: "q" }),
      assistant("a", [call("c1")]),
      message({ originalContent: "between" }),
      toolMessage("c1", "r1"),
      { ...toolMessage("c2", "flagged"), isFlagged: true },
      assistant("b", [call("c2")]),
    ]);
    expect(out.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "user",
      "assistant",
      "tool",
    ]);
    expectProviderValid(out);
  });

  it("the provider check used above does reject an unanswered call", () => {
    expect(() =>
      expectProviderValid([
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "x", type: "function", function: { name: "t", arguments: "{}" } }],
        },
        { role: "user", content: "next" },
      ]),
    ).toThrow();
  });
});

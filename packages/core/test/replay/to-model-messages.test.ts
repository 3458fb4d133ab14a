import { generateText, MissingToolResultsError, type ModelMessage, modelMessageSchema } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { type Message, toModelMessages, UNAVAILABLE_TOOL_RESULT } from "../../src/index.js";
import { assistant, message, toolMessage } from "../support/builders.js";

/** Replays through core and checks every message against the AI SDK's own schema. */
function replay(messages: Message[], systemPrompt?: string): ModelMessage[] {
  // Compile-time check: core's structural types are assignable to the SDK's.
  const out: ModelMessage[] = toModelMessages(messages, { systemPrompt });
  for (const m of out) {
    const parsed = modelMessageSchema.safeParse(m);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  }
  return out;
}

/** Runs the replay through `generateText`, which rejects unpaired tool calls; returns the prompt the model got. */
async function sendThroughSdk(messages: ModelMessage[]) {
  const model = new MockLanguageModelV3({
    doGenerate: {
      content: [{ type: "text", text: "ok" }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
      warnings: [],
    },
  });
  await generateText({
    model,
    messages: [...messages, { role: "user", content: "next" }],
    allowSystemInMessages: true,
  });
  return model.doGenerateCalls[0]!.prompt;
}

const call = (id: string, result: unknown = null) => ({
  toolCallId: id,
  toolName: "search",
  arguments: { q: id, "$dollar.key": "\u0000" },
  result: result as never,
});

describe("toModelMessages", () => {
  it("maps plain roles, system prompt first", () => {
    const out = replay(
      [
        message({ role: "user", originalContent: "hi" }),
        message({ role: "assistant", originalContent: "hello" }),
        message({ role: "colleague_assistant", originalContent: "also here" }),
        message({ role: "system", originalContent: "be brief" }),
      ],
      "You are helpful",
    );
    expect(out).toEqual([
      { role: "system", content: "You are helpful" },
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
      { role: "assistant", content: "also here" },
      { role: "system", content: "be brief" },
    ]);
  });

  it("emits tool-call parts then one tool message with results in call order", () => {
    const out = replay([
      assistant("Let me look", [call("a"), call("b")]),
      toolMessage("b", "plain words"),
      toolMessage("a", ' {"hits":[1,2],"x.y":null}'),
    ]);
    expect(out).toEqual([
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me look" },
          { type: "tool-call", toolCallId: "a", toolName: "search", input: call("a").arguments },
          { type: "tool-call", toolCallId: "b", toolName: "search", input: call("b").arguments },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "search",
            output: { type: "json", value: { hits: [1, 2], "x.y": null } },
          },
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "search",
            output: { type: "text", value: "plain words" },
          },
        ],
      },
    ]);
  });

  it.each([
    ["[1,2]", { type: "json", value: [1, 2] }],
    ["{broken", { type: "text", value: "{broken" }],
    ["12345678901234567890", { type: "text", value: "12345678901234567890" }],
    ['"quoted"', { type: "text", value: '"quoted"' }],
    ["true", { type: "text", value: "true" }],
    ["", { type: "text", value: "" }],
  ])("tool message content %j becomes %j", (content, output) => {
    const out = replay([assistant("", [call("k")]), toolMessage("k", content)]);
    expect(out[1]).toEqual({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "k", toolName: "search", output }],
    });
  });

  it("replays stored results (string as text, other JSON as json) and marks missing ones", () => {
    const out = replay([
      assistant("", [call("s", "done"), call("j", { n: 1 }), call("z", 0), call("m")]),
    ]);
    expect(out[0]).toEqual({
      role: "assistant",
      content: ["s", "j", "z", "m"].map((id) => expect.objectContaining({ toolCallId: id })),
    });
    expect(out[1]!.content).toEqual([
      expect.objectContaining({ toolCallId: "s", output: { type: "text", value: "done" } }),
      expect.objectContaining({ toolCallId: "j", output: { type: "json", value: { n: 1 } } }),
      expect.objectContaining({ toolCallId: "z", output: { type: "json", value: 0 } }),
      expect.objectContaining({
        toolCallId: "m",
        output: { type: "error-text", value: UNAVAILABLE_TOOL_RESULT },
      }),
    ]);
  });

  it("drops an orphan tool result at the start of the window", () => {
    const out = replay([
      toolMessage("earlier-call", '{"x":1}'),
      message({ role: "assistant", originalContent: "As you can see…" }),
    ]);
    expect(out).toEqual([{ role: "assistant", content: "As you can see…" }]);
  });

  it("is accepted end to end by generateText, with every call answered", async () => {
    const window = [
      toolMessage("cut-off", "orphan"),
      message({ role: "user", originalContent: "find ML docs" }),
      assistant("Searching", [call("c1"), call("c2", { total: 3 }), call("c3")]),
      message({ role: "user", originalContent: "(meanwhile)" }),
      toolMessage("c1", '{"results":[]}'),
      message({ role: "colleague_assistant", originalContent: "Found 3" }),
      message({ role: "user", originalContent: "flagged", isFlagged: true }),
      assistant("", [call("c4")]),
    ];
    const prompt = await sendThroughSdk(replay(window, "sys"));
    expect(prompt.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
      "assistant",
      "assistant",
      "tool",
      "user",
    ]);
  });

  it("the SDK check used above does reject an unpaired call", async () => {
    const unpaired: ModelMessage[] = [
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "x", toolName: "t", input: {} }],
      },
    ];
    await expect(sendThroughSdk(unpaired)).rejects.toBeInstanceOf(MissingToolResultsError);
  });
});

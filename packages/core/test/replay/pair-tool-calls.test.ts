import { describe, expect, it } from "vitest";
import { pairToolCalls } from "../../src/index.js";
import { assistant, message, toolMessage } from "../support/builders.js";

const call = (id: string, fields: { result?: unknown; toolName?: string } = {}) => ({
  toolCallId: id,
  toolName: fields.toolName ?? "search",
  arguments: { q: id },
  result: (fields.result ?? null) as never,
});

describe("pairToolCalls", () => {
  it("maps roles and puts the system prompt first", () => {
    const steps = pairToolCalls(
      [
        message({ role: "system", originalContent: "sys" }),
        message({ role: "user", originalContent: "hi" }),
        message({ role: "assistant", originalContent: "hello" }),
        message({ role: "colleague_assistant", originalContent: "me too" }),
      ],
      { systemPrompt: "You are helpful" },
    );
    expect(steps).toEqual([
      { role: "system", text: "You are helpful" },
      { role: "system", text: "sys" },
      { role: "user", text: "hi" },
      { role: "assistant", text: "hello", toolCalls: [] },
      { role: "assistant", text: "me too", toolCalls: [] },
    ]);
  });

  it("adds nothing for an empty or absent system prompt", () => {
    const m = [message({ originalContent: "x" })];
    expect(pairToolCalls(m, { systemPrompt: "" })).toEqual([{ role: "user", text: "x" }]);
    expect(pairToolCalls(m)).toEqual([{ role: "user", text: "x" }]);
    expect(pairToolCalls([])).toEqual([]);
  });

  it("drops flagged messages", () => {
    const steps = pairToolCalls([
      message({ originalContent: "a" }),
      message({ originalContent: "bad", isFlagged: true }),
      message({ role: "assistant", originalContent: "b", isFlagged: true }),
      message({ originalContent: "c" }),
    ]);
    expect(steps.map((s) => s.text)).toEqual(["a", "c"]);
  });

  it("answers a call with the tool message that follows it, used once", () => {
    const steps = pairToolCalls([
      assistant("looking", [call("k1", { result: { stale: true } })]),
      toolMessage("k1", '{"hits":3}'),
      message({ originalContent: "thanks" }),
    ]);
    expect(steps).toEqual([
      {
        role: "assistant",
        text: "looking",
        toolCalls: [
          {
            toolCallId: "k1",
            toolName: "search",
            arguments: { q: "k1" },
            result: { source: "message", content: '{"hits":3}' },
          },
        ],
      },
      { role: "user", text: "thanks" },
    ]);
  });

  it("falls back to the stored result, then to a missing marker", () => {
    const [step] = pairToolCalls([
      assistant("", [call("a", { result: [1, "two"] }), call("b"), call("c", { result: "s" })]),
    ]);
    expect(step).toMatchObject({
      toolCalls: [
        { toolCallId: "a", result: { source: "stored", value: [1, "two"] } },
        { toolCallId: "b", result: { source: "missing" } },
        { toolCallId: "c", result: { source: "stored", value: "s" } },
      ],
    });
  });

  it("treats a flagged tool message as absent", () => {
    const [step] = pairToolCalls([
      assistant("x", [call("k")]),
      { ...toolMessage("k", "secret"), isFlagged: true },
    ]);
    expect(step).toMatchObject({ toolCalls: [{ result: { source: "missing" } }] });
  });

  it("drops the results of a flagged assistant message with it", () => {
    const steps = pairToolCalls([
      message({ originalContent: "q" }),
      { ...assistant("hidden", [call("k")]), isFlagged: true },
      toolMessage("k", "result of a hidden call"),
    ]);
    expect(steps).toEqual([{ role: "user", text: "q" }]);
  });

  it("drops orphan tool messages: call outside the window, no id, result before call, repeats", () => {
    const steps = pairToolCalls([
      toolMessage("gone", "orphan at window start"),
      toolMessage(null, "no id"),
      toolMessage("late", "before its call"),
      assistant("x", [call("late"), call("k")]),
      toolMessage("k", "first"),
      toolMessage("k", "repeat"),
    ]);
    expect(steps).toEqual([
      {
        role: "assistant",
        text: "x",
        toolCalls: [
          expect.objectContaining({ toolCallId: "late", result: { source: "missing" } }),
          expect.objectContaining({
            toolCallId: "k",
            result: { source: "message", content: "first" },
          }),
        ],
      },
    ]);
  });

  it("moves a separated result up to its call and keeps the rest in order", () => {
    const steps = pairToolCalls([
      assistant("x", [call("k")]),
      message({ originalContent: "interrupting" }),
      toolMessage("k", "late result"),
      message({ originalContent: "after" }),
    ]);
    expect(steps).toEqual([
      {
        role: "assistant",
        text: "x",
        toolCalls: [
          expect.objectContaining({ result: { source: "message", content: "late result" } }),
        ],
      },
      { role: "user", text: "interrupting" },
      { role: "user", text: "after" },
    ]);
  });

  it("orders results by call order and uses the call's tool name", () => {
    const [step] = pairToolCalls([
      assistant("x", [call("a", { toolName: "alpha" }), call("b", { toolName: "beta" })]),
      toolMessage("b", "B", "wrong-name"),
      toolMessage("a", "A", "wrong-name"),
    ]);
    expect(step).toMatchObject({
      toolCalls: [
        { toolCallId: "a", toolName: "alpha", result: { content: "A" } },
        { toolCallId: "b", toolName: "beta", result: { content: "B" } },
      ],
    });
  });

  it("drops a call whose id an earlier call in the window already used", () => {
    const steps = pairToolCalls([
      assistant("one", [call("dup")]),
      toolMessage("dup", "R1"),
      assistant("two", [call("dup"), call("other", { result: 1 })]),
      toolMessage("dup", "R2"),
    ]);
    expect(steps).toMatchObject([
      { text: "one", toolCalls: [{ toolCallId: "dup", result: { content: "R1" } }] },
      { text: "two", toolCalls: [{ toolCallId: "other" }] },
    ]);
    expect((steps[1] as { toolCalls: unknown[] }).toolCalls).toHaveLength(1);
  });

  it("does not mutate its input", () => {
    const input = [assistant("x", [call("k")]), toolMessage("k", "r")];
    const copy = structuredClone(input);
    pairToolCalls(input, { systemPrompt: "s" });
    expect(input).toEqual(copy);
  });
});

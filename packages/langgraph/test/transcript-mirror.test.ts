import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { TranscriptMirror, turnTraces } from "../src/transcript-mirror.js";

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});
const ai = (id: string, calls: boolean, tokens?: [number, number]) =>
  new AIMessage({
    id,
    content: calls ? "" : `answer ${id}`,
    tool_calls: calls ? [{ id: `call-${id}`, name: "weather", args: {} }] : [],
    ...(tokens ? { usage_metadata: usage(...tokens) } : {}),
  });
const target = {
  threadId: "t",
  userId: "u",
  agentId: "a",
  latencyMs: 100,
  now: 1,
  checkpoint: { id: "c", step: 3 },
};

describe("turn traces", () => {
  const human = new HumanMessage({ id: "h1", content: "q" });
  const call = ai("a1", true, [20, 8]);
  const tool = new ToolMessage({ id: "t1", tool_call_id: "call-a1", content: "{}" });
  const answer = ai("a2", false, [40, 6]);

  it("a turn's answer gets one trace with every model call since the question", () => {
    const traces = turnTraces([answer], [human, call, tool, answer], target);
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      id: "a2",
      messageId: "a2",
      totalTokens: 74,
      totalLatencyMs: 100,
    });
    expect(traces[0]?.llmCalls?.map((c) => [c.promptTokens, c.latencyMs])).toEqual([
      [20, 50],
      [40, 50],
    ]);
  });

  it("no trace before the answer, for an answer already mirrored, or for a turn without usage", () => {
    expect(turnTraces([call, tool], [human, call, tool], target)).toEqual([]);
    expect(turnTraces([tool], [human, call, tool, answer], target)).toEqual([]);
    expect(turnTraces([ai("x", false)], [human, ai("x", false)], target)).toEqual([]);
  });

  it("prices each call from the saver's pricing map; without one, or for an unlisted model, cost stays unknown", () => {
    const priced = (model: string) =>
      new AIMessage({
        id: `p-${model}`,
        content: "priced",
        usage_metadata: usage(1000, 500),
        response_metadata: { model_name: model },
      });
    const pricing = { "gpt-4.1": { input: 2e-6, output: 8e-6 } };
    const trace = (answer: AIMessage, withPricing: boolean) =>
      turnTraces([answer], [human, answer], withPricing ? { ...target, pricing } : target)[0];
    expect(trace(priced("gpt-4.1"), true)?.llmCalls?.[0]?.costUsd).toBe(0.006);
    expect(trace(priced("o3"), true)?.llmCalls?.[0]?.costUsd).toBeNull();
    expect(trace(priced("gpt-4.1"), false)?.llmCalls?.[0]?.costUsd).toBeUndefined();
  });

  it("a second answer in one turn counts only the calls after the first", () => {
    const second = ai("a3", false, [5, 5]);
    const traces = turnTraces([second], [human, call, tool, answer, second], target);
    expect(traces.map((t) => [t.id, t.totalTokens])).toEqual([["a3", 10]]);
  });
});

describe("the mirror's memory of a thread", () => {
  it("a message is unchanged when it is the object remembered, or its copy read back", () => {
    const mirror = new TranscriptMirror(10);
    const written = [new HumanMessage({ id: "h", content: "q" }), ai("a", false)];
    mirror.remember("t", "c1", written);
    const readBack = written.map(
      (m) => new (m.constructor as typeof HumanMessage)(m.toDict().data),
    );
    mirror.remember("t", "c1", readBack);
    expect(mirror.changes("t", "c1", written)).toEqual([]);
    expect(mirror.changes("t", "c1", readBack)).toEqual([]);
    const edited = new HumanMessage({ id: "h", content: "edited" });
    const added = ai("b", false);
    expect(mirror.changes("t", "c1", [edited, written[1]!, added])).toEqual([edited, added]);
    expect(mirror.changes("t", "other", written)).toEqual(written);
  });
});

import { HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { type MessageStore, newId, ValidationError } from "@message-store/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MessageStoreSaver } from "../src/index.js";
import { fixture, runCli, runNode, withStudio } from "./support/processes.js";
import { BACKENDS, type StoreHome, storeHome } from "./support/stores.js";
import { reply, weatherGraph } from "./support/weather-graph.mjs";

/** The model's replies of turn one: a tool call, then the answer (new messages each run). */
const paris = () => [
  reply("", [20, 8], [{ id: "call-1", name: "weather", args: { city: "Paris" } }]),
  reply("Sunny in Paris.", [40, 6]),
];

describe.each(BACKENDS)("a LangGraph agent on MessageStoreSaver (%s)", (backend) => {
  let home: StoreHome;
  let store: MessageStore;
  let threadId: string;
  const config = () => ({ configurable: { thread_id: threadId, user_id: "u-1" } });
  const saver = () => new MessageStoreSaver(store, { agentId: "weather-bot" });

  beforeAll(async () => {
    home = await storeHome(backend, "graph");
  });
  beforeEach(async () => {
    store = await home.open();
    threadId = `thread-${newId()}`;
  });
  afterEach(() => store.close());
  afterAll(() => home.remove());

  /** Turn one (a tool call, its result, the answer), then `question` answered with `answer`. */
  async function twoTurns(question = "And tomorrow?", answer = "Also sunny.") {
    const turn1 = weatherGraph({ checkpointer: saver(), replies: paris() });
    await turn1.graph.invoke({ messages: [new HumanMessage("Weather in Paris?")] }, config());
    const turn2 = weatherGraph({ checkpointer: saver(), replies: [reply(answer, [60, 5])] });
    return turn2.graph.invoke({ messages: [new HumanMessage(question)] }, config());
  }

  it("two turns on one thread: the graph's state, and the same messages as the conversation's transcript", async () => {
    const state = await twoTurns();
    expect(state.messages.map((m: HumanMessage) => [m.type, m.text])).toEqual([
      ["human", "Weather in Paris?"],
      ["ai", ""],
      ["tool", '{"city":"Paris","sky":"sunny","temp":21}'],
      ["ai", "Sunny in Paris."],
      ["human", "And tomorrow?"],
      ["ai", "Also sunny."],
    ]);
    const conversation = await store.getConversation(threadId);
    expect(conversation).toMatchObject({ userId: "u-1", agentId: "weather-bot" });
    const context = await store.getImmediateContext(threadId, 10);
    expect(context.map((m) => [m.id, m.role, m.originalContent])).toEqual(
      state.messages.map((m: HumanMessage) => [
        m.id,
        { human: "user", ai: "assistant", tool: "tool" }[m.type as string],
        m.text,
      ]),
    );
    expect(context[1]!.toolCalls).toEqual([
      { toolCallId: "call-1", toolName: "weather", arguments: { city: "Paris" }, result: null },
    ]);
    expect(context[2]).toMatchObject({
      toolCallId: "call-1",
      toolName: "weather",
      toolArguments: { city: "Paris" },
    });
    const traces = await Promise.all(context.map((m) => store.getTurnTraceByMessageId(m.id)));
    // One trace per turn, on the answer that ended it, with each model call of the turn.
    expect(traces.map((t) => t?.totalTokens ?? null)).toEqual([null, null, null, 74, null, 65]);
    expect(traces[3]!.llmCalls.map((c) => [c.promptTokens, c.completionTokens])).toEqual([
      [20, 8],
      [40, 6],
    ]);
    expect(traces[5]).toMatchObject({
      agentId: "weather-bot",
      userId: "u-1",
      llmCalls: [{ model: "fake-gpt", promptTokens: 60, completionTokens: 5 }],
    });
    const day = { since: 0, until: Date.now() + 86_400_000, bucket: "day" } as const;
    const [usage] = await store.summarizeUsage({ ...day, userId: "u-1", agentId: "weather-bot" });
    expect(usage).toMatchObject({ turns: 2, totalTokens: 139, promptTokens: 120 });
  });

  it("another user's config cannot read or continue the thread", async () => {
    await twoTurns();
    const other = { configurable: { thread_id: threadId, user_id: "u-2" } };
    expect(await saver().getTuple(other)).toBeUndefined();
    const { graph } = weatherGraph({ checkpointer: saver(), replies: [reply("x", [1, 1])] });
    await expect(graph.invoke({ messages: [new HumanMessage("hi")] }, other)).rejects.toThrow(
      /does not exist/,
    );
    expect(await store.getImmediateContext(threadId, 100)).toHaveLength(6);
  });

  it("an empty or invalid user_id is refused with ValidationError, never read as no user", async () => {
    await twoTurns();
    const before = await store.getImmediateContext(threadId, 100);
    for (const user_id of ["", "x".repeat(257), { id: "u-1" }, "\ud800"]) {
      const bad = { configurable: { thread_id: threadId, user_id } };
      await expect(saver().getTuple(bad)).rejects.toThrow(ValidationError);
      await expect(saver().getTuple(bad)).rejects.toThrow(/configurable\.user_id must be an id/);
      await expect(saver().list(bad).next()).rejects.toThrow(ValidationError);
      const { graph } = weatherGraph({ checkpointer: saver(), replies: [reply("x", [1, 1])] });
      await expect(graph.invoke({ messages: [new HumanMessage("hi")] }, bad)).rejects.toThrow(
        ValidationError,
      );
    }
    for (const key of ["tenant_id", "agent_id"]) {
      const bad = { configurable: { thread_id: threadId, user_id: "u-1", [key]: "" } };
      await expect(saver().getTuple(bad)).rejects.toThrow(ValidationError);
    }
    expect(() => new MessageStoreSaver(store, { userId: "" })).toThrow(ValidationError);
    expect(() => new MessageStoreSaver(store, { tenantId: "" })).toThrow(ValidationError);
    expect(await store.getImmediateContext(threadId, 100)).toEqual(before);
  });

  it("a new process resumes the thread from the store", async () => {
    const { graph } = weatherGraph({ checkpointer: saver(), replies: paris() });
    await graph.invoke({ messages: [new HumanMessage("Weather in Paris?")] }, config());
    await store.close(); // the JSON file is locked by the store that has it open
    const out = await runNode([
      fixture("next-turn.mjs"),
      home.backend,
      home.where,
      threadId,
      "And in the evening?",
      "Still sunny.",
    ]);
    const lines = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; text: string });
    expect(lines.map((l) => l.text)).toEqual([
      "Weather in Paris?",
      "",
      '{"city":"Paris","sky":"sunny","temp":21}',
      "Sunny in Paris.",
      "And in the evening?",
      "Still sunny.",
    ]);
    store = await home.open();
    const transcript = await store.loadSessionMessages(threadId);
    expect(transcript.map((m) => m.originalContent)).toEqual(lines.map((l) => l.text));
  });

  it("an interrupt stops the run before the tool; a Command resumes it, in another saver", async () => {
    const first = weatherGraph({ checkpointer: saver(), replies: paris(), approve: true });
    const paused = await first.graph.invoke(
      { messages: [new HumanMessage("Weather in Paris?")] },
      config(),
    );
    expect(paused.__interrupt__).toEqual([
      expect.objectContaining({ value: { question: "run the tool?" } }),
    ]);
    const waiting = await first.graph.getState(config());
    expect(waiting.next).toEqual(["approve"]);
    expect((await store.loadSessionMessages(threadId)).map((m) => m.role)).toEqual([
      "user",
      "assistant",
    ]);
    const second = weatherGraph({
      checkpointer: saver(),
      replies: paris().slice(1),
      approve: true,
    });
    const done = await second.graph.invoke(new Command({ resume: "yes" }), config());
    expect(done.messages.at(-1).text).toBe("Sunny in Paris.");
    expect((await store.loadSessionMessages(threadId)).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
  });

  it("time travel: a run from an earlier checkpoint forks the thread, and its state reads back exactly", async () => {
    await twoTurns();
    const { graph } = weatherGraph({ checkpointer: saver(), replies: [] });
    let endOfTurn1 = null;
    for await (const snapshot of graph.getStateHistory(config())) {
      if (snapshot.values.messages?.length === 4 && snapshot.next.length === 0)
        endOfTurn1 = snapshot;
    }
    expect(endOfTurn1).not.toBeNull();
    const fork = weatherGraph({
      checkpointer: saver(),
      replies: [reply("Rome is sunny too.", [9, 3])],
    });
    const state = await fork.graph.invoke(
      { messages: [new HumanMessage("What about Rome?")] },
      endOfTurn1!.config,
    );
    const texts = state.messages.map((m: HumanMessage) => m.text);
    expect(texts.slice(4)).toEqual(["What about Rome?", "Rome is sunny too."]);
    // A fresh saver (nothing cached) reads the fork's state back from the store.
    const latest = await weatherGraph({ checkpointer: saver(), replies: [] }).graph.getState(
      config(),
    );
    expect(latest.values.messages.map((m: HumanMessage) => m.text)).toEqual(texts);
    // The transcript keeps both branches: what was said is never rewritten.
    const transcript = (await store.loadSessionMessages(threadId)).map((m) => m.originalContent);
    expect(transcript).toEqual([
      ...texts.slice(0, 4),
      "And tomorrow?",
      "Also sunny.",
      "What about Rome?",
      "Rome is sunny too.",
    ]);
  });

  it("the thread shows in `message-store show` with its transcript and turn usage", async () => {
    await twoTurns();
    await store.close();
    const out = await runCli(["show", "conversation", threadId, "--store", home.spec]);
    expect(out).toContain(`conversation "${threadId}"`);
    expect(out).toContain("user u-1 · agent weather-bot");
    expect(out).toMatch(/user\s+Weather in Paris\?/);
    expect(out).toContain('→ weather({"city":"Paris"})');
    expect(out).toContain('← weather (call-1): {"city":"Paris","sky":"sunny","temp":21}');
    expect(out).toMatch(/assistant\s+Sunny in Paris\./);
    expect(out).toContain("∑ turn: 74 tokens (60 prompt + 14 completion) · 2 LLM calls (fake-gpt)");
    expect(out).toContain("∑ turn: 65 tokens (60 prompt + 5 completion) · 1 LLM call (fake-gpt)");
    store = await home.open();
  });

  it("the thread shows in the studio: its transcript with tool calls, and the traces of its turns", async () => {
    await twoTurns();
    await store.close();
    const page = (await withStudio(home.spec, (get) =>
      get(`/api/conversations/${encodeURIComponent(threadId)}/messages`),
    )) as {
      items: { role: string; originalContent: string; toolCalls: { toolName: string }[] }[];
      traces: { messageId: string; totalTokens: number; llmCalls: number }[];
    };
    expect(page.items.map((m) => [m.role, m.originalContent])).toEqual([
      ["user", "Weather in Paris?"],
      ["assistant", ""],
      ["tool", '{"city":"Paris","sky":"sunny","temp":21}'],
      ["assistant", "Sunny in Paris."],
      ["user", "And tomorrow?"],
      ["assistant", "Also sunny."],
    ]);
    expect(page.items[1]!.toolCalls.map((c) => c.toolName)).toEqual(["weather"]);
    expect(page.traces.map((t) => [t.totalTokens, t.llmCalls]).sort()).toEqual([
      [65, 1],
      [74, 2],
    ]);
    store = await home.open();
  });
});

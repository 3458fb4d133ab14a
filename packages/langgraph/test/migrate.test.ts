import { HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { newId } from "@message-store/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageStoreSaver } from "../src/index.js";
import { runCli } from "./support/processes.js";
import { type StoreHome, storeHome } from "./support/stores.js";
import { reply, weatherGraph } from "./support/weather-graph.mjs";

describe("a LangGraph thread migrated from JSON to PostgreSQL with `message-store migrate`", () => {
  let json: StoreHome;
  let postgres: StoreHome;
  const threadId = `thread-${newId()}`;
  const config = { configurable: { thread_id: threadId, user_id: "u-1" } };

  beforeAll(async () => {
    json = await storeHome("json", "migrate_from");
    postgres = await storeHome("postgres", "migrate_to");
  });
  afterAll(async () => {
    await Promise.all([json.remove(), postgres.remove()]);
  });

  it("resumes on the target where it stopped: waiting for approval, with its history", async () => {
    const source = await json.open();
    const saver = () => new MessageStoreSaver(source, { agentId: "weather-bot" });
    // Turn one runs to its end; turn two stops at the approval before its tool call.
    const turn1 = weatherGraph({
      checkpointer: saver(),
      replies: [
        reply("", [20, 8], [{ id: "call-1", name: "weather", args: { city: "Paris" } }]),
        reply("Sunny in Paris.", [40, 6]),
      ],
      approve: true,
    });
    await turn1.graph.invoke({ messages: [new HumanMessage("Weather in Paris?")] }, config);
    await turn1.graph.invoke(new Command({ resume: "yes" }), config);
    const turn2 = weatherGraph({
      checkpointer: saver(),
      replies: [reply("", [60, 8], [{ id: "call-2", name: "weather", args: { city: "Rome" } }])],
      approve: true,
    });
    const paused = await turn2.graph.invoke({ messages: [new HumanMessage("And Rome?")] }, config);
    expect(paused.__interrupt__).toHaveLength(1);
    const before = await turn2.graph.getState(config);
    const history = [];
    for await (const s of turn2.graph.getStateHistory(config)) history.push(s.config);
    const latest = await source.getCheckpoint(threadId);
    expect(latest?.writes.length).toBeGreaterThan(0);
    await source.close();

    const out = await runCli(["migrate", "--from", json.spec, "--to", postgres.spec]);
    expect(out).toMatch(
      new RegExp(
        `verify: .*, ${history.length}/${history.length} checkpoints of the migrated ids: OK`,
      ),
    );

    const target = await postgres.open();
    try {
      expect(await target.getCheckpoint(threadId)).toEqual(latest);
      const resumed = weatherGraph({
        checkpointer: new MessageStoreSaver(target, { agentId: "weather-bot" }),
        replies: [reply("Sunny in Rome too.", [80, 6])],
        approve: true,
      });
      const waiting = await resumed.graph.getState(config);
      expect(waiting.next).toEqual(["approve"]);
      expect(waiting.tasks[0]?.interrupts).toEqual(before.tasks[0]?.interrupts);
      expect(waiting.values).toEqual(before.values);
      const targetHistory = [];
      for await (const s of resumed.graph.getStateHistory(config)) targetHistory.push(s.config);
      expect(targetHistory).toEqual(history);

      // A graph step on the target: the approval is given, the tool runs, the model answers.
      const done = await resumed.graph.invoke(new Command({ resume: "yes" }), config);
      expect(done.messages.map((m: HumanMessage) => [m.type, m.text])).toEqual([
        ["human", "Weather in Paris?"],
        ["ai", ""],
        ["tool", '{"city":"Paris","sky":"sunny","temp":21}'],
        ["ai", "Sunny in Paris."],
        ["human", "And Rome?"],
        ["ai", ""],
        ["tool", '{"city":"Rome","sky":"sunny","temp":21}'],
        ["ai", "Sunny in Rome too."],
      ]);
      const transcript = await target.loadSessionMessages(threadId);
      expect(transcript.map((m) => m.originalContent)).toEqual(
        done.messages.map((m: HumanMessage) => m.text),
      );
    } finally {
      await target.close();
    }
  });
});

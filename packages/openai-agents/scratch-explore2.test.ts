import { Agent, MemorySession, run, RunState, tool, Usage, setTracingDisabled } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { MessageStore } from "@message-store/core";
import "@message-store/core/memory";
import { z } from "zod";
import { it } from "vitest";
import { MessageStoreSession } from "./src/index.js";
setTracingDisabled(true);
const u = () => new Usage({ requests: 1, inputTokens: 5, outputTokens: 2, totalTokens: 7 });
async function scenario(session: any, guard: boolean, serialize: boolean) {
  const refund = tool({ name: "refund", description: "r", parameters: z.object({ id: z.string() }), needsApproval: true, execute: async ({ id }) => `refunded ${id}` });
  const look = tool({ name: "look", description: "l", parameters: z.object({ id: z.string() }), execute: async ({ id }) => `order ${id}` });
  const model = new ScriptedModel([
    { output: [functionCall("look", { id: "1" }, { callId: "c1" })], usage: u() },
    { output: [functionCall("refund", { id: "1" }, { callId: "c2" })], usage: u() },
    { output: [assistantMessage("Done.")], usage: u() },
  ]);
  const agent = new Agent({ name: "a", model, tools: [look, refund], ...(guard ? { outputGuardrails: [{ name: "g", execute: async () => ({ tripwireTriggered: false, outputInfo: null }) }] } : {}) });
  const r1 = await run(agent, "Refund order 1", { session });
  let state = r1.state;
  if (serialize) state = await RunState.fromString(agent, r1.state.toString());
  for (const i of state.getInterruptions()) state.approve(i);
  const r2 = await run(agent, state, { session });
  return { out: r2.finalOutput, items: await session.getItems() };
}
for (const guard of [false, true]) for (const ser of [false, true])
it(`approval guard=${guard} serialize=${ser}`, async () => {
  const mem = await scenario(new MemorySession(), guard, ser);
  const store = await MessageStore.initialize({ storage: "memory" } as never);
  let ours: any;
  try { ours = await scenario(new MessageStoreSession({ store, userId: "u" }), guard, ser); } catch (e) { ours = String(e); }
  console.log(guard, ser, JSON.stringify(mem.items) === JSON.stringify(ours.items) ? "SAME" : ["DIFF", JSON.stringify(mem), JSON.stringify(ours)]);
});

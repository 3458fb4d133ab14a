import { Agent, MemorySession, run, RunState, tool, Usage, setTracingDisabled, OutputGuardrailTripwireTriggered } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { it } from "vitest";
setTracingDisabled(true);
const u = () => new Usage({ requests: 1, inputTokens: 5, outputTokens: 2, totalTokens: 7 });
class Spy extends MemorySession {
  log: string[] = [];
  override async addItems(items: any) { this.log.push(`add ${items.map((i: any) => i.type ?? i.role).join(",")}`); return super.addItems(items); }
  override async applyHistoryTransaction(args: any) { this.log.push(`tx ${args.operationId} ${JSON.stringify(args.transaction).slice(0, 300)}`); return super.applyHistoryTransaction(args); }
  override async applyHistoryMutations(args: any) { this.log.push(`mut ${JSON.stringify(args)}`); return super.applyHistoryMutations(args); }
  override async popItem() { this.log.push("pop"); return super.popItem(); }
  override async clearSession() { this.log.push("clear"); return super.clearSession(); }
}
it("approval", async () => {
  const refund = tool({ name: "refund", description: "r", parameters: z.object({ id: z.string() }), needsApproval: true, execute: async ({ id }) => `refunded ${id}` });
  const look = tool({ name: "look", description: "l", parameters: z.object({ id: z.string() }), execute: async ({ id }) => `order ${id}` });
  const model = new ScriptedModel([
    { output: [functionCall("look", { id: "1" }, { callId: "c1" })], usage: u() },
    { output: [functionCall("refund", { id: "1" }, { callId: "c2" })], usage: u() },
    { output: [assistantMessage("Done.")], usage: u() },
  ]);
  const agent = new Agent({ name: "a", model, tools: [look, refund] });
  const s = new Spy();
  const r1 = await run(agent, "Refund order 1", { session: s });
  console.log("interruptions", r1.interruptions.length, s.log);
  const str = r1.state.toString();
  const state = await RunState.fromString(agent, str);
  for (const i of state.getInterruptions()) state.approve(i);
  const r2 = await run(agent, state, { session: s });
  console.log("final", r2.finalOutput, s.log);
  console.log(JSON.stringify(await s.getItems(), null, 0));
});
it("guardrail", async () => {
  const look = tool({ name: "look", description: "l", parameters: z.object({ id: z.string() }), execute: async ({ id }) => `order ${id}` });
  const model = new ScriptedModel([
    { output: [functionCall("look", { id: "1" }, { callId: "c1" })], usage: u() },
    { output: [assistantMessage("SECRET")], usage: u() },
  ]);
  const agent = new Agent({ name: "a", model, tools: [look], outputGuardrails: [{ name: "no-secret", execute: async ({ agentOutput }) => ({ tripwireTriggered: String(agentOutput).includes("SECRET"), outputInfo: null }) }] });
  const s = new Spy();
  try { await run(agent, "Tell me", { session: s }); } catch (e) { console.log("threw", (e as Error).constructor.name); }
  console.log(s.log);
  console.log(JSON.stringify(await s.getItems(), null, 0));
});

import { Agent, MemorySession, run, RunState, tool, Usage, setTracingDisabled } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { it } from "vitest";
setTracingDisabled(true);
const u = () => new Usage({ requests: 1, inputTokens: 5, outputTokens: 2, totalTokens: 7 });
class Spy extends MemorySession {
  readonly acceptsRunContext = true as const;
  log: string[] = [];
  ctxs = new WeakMap<object, number>(); n = 0;
  id(c: any) { if (!c) return "-"; if (!this.ctxs.has(c)) this.ctxs.set(c, ++this.n); return `ctx${this.ctxs.get(c)} req=${c.usage.requests}`; }
  override async getItems(limit?: number, c?: any) { this.log.push(`get ${limit} ${this.id(c)}`); return super.getItems(limit); }
  override async addItems(items: any, c?: any) { this.log.push(`add ${items.map((i: any) => i.type ?? i.role).join(",")} ${this.id(c)}`); return super.addItems(items); }
  override async applyHistoryTransaction(args: any, c?: any) { this.log.push(`tx ${args.transaction.type} ${this.id(c)}`); return super.applyHistoryTransaction(args); }
}
for (const ser of [false, true]) it(`resume ser=${ser}`, async () => {
  const refund = tool({ name: "refund", description: "r", parameters: z.object({ id: z.string() }), needsApproval: true, execute: async ({ id }) => `refunded ${id}` });
  const look = tool({ name: "look", description: "l", parameters: z.object({ id: z.string() }), execute: async ({ id }) => `order ${id}` });
  const model = new ScriptedModel([
    { output: [functionCall("look", { id: "1" }, { callId: "c1" })], usage: u() },
    { output: [functionCall("refund", { id: "1" }, { callId: "c2" })], usage: u() },
    { output: [assistantMessage("Done.")], usage: u() },
    { output: [functionCall("refund", { id: "2" }, { callId: "c3" })], usage: u() },
    { output: [assistantMessage("SECRET")], usage: u() },
  ]);
  const agent = new Agent({ name: "a", model, tools: [look, refund], outputGuardrails: [{ name: "g", execute: async ({agentOutput}) => ({ tripwireTriggered: String(agentOutput).includes("SECRET"), outputInfo: null }) }] });
  const s = new Spy();
  const r1 = await run(agent, "Refund order 1", { session: s });
  let state = r1.state;
  if (ser) state = await RunState.fromString(agent, r1.state.toString());
  for (const i of state.getInterruptions()) state.approve(i);
  await run(agent, state, { session: s });
  const r3 = await run(agent, "Refund 2", { session: s });
  state = ser ? await RunState.fromString(agent, r3.state.toString()) : r3.state;
  for (const i of state.getInterruptions()) state.approve(i);
  try { await run(agent, state, { session: s }); } catch (e) { s.log.push(String(e).slice(0, 80)); }
  console.log(ser, s.log, JSON.stringify(await s.getItems()));
});

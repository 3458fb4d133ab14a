import { join } from "node:path";
import { MessageStore } from "@message-store/core";
import "@message-store/json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addCosts, callsCostUsd } from "../src/format/calls-cost.js";
import { formatCost } from "../src/format/numbers.js";
import { runOk, tempDir } from "./support/cli.js";

describe("an unpriced call's cost is unknown, not $0", () => {
  it("formats and sums unknown costs as unknown", () => {
    expect(formatCost(null)).toBe("—");
    expect(callsCostUsd([])).toBeNull();
    expect(callsCostUsd([{ costUsd: null }, { costUsd: null }])).toBeNull();
    expect(callsCostUsd([{ costUsd: null }, { costUsd: 0.25 }, { costUsd: 0.5 }])).toBe(0.75);
    expect(callsCostUsd([{ costUsd: 0 }])).toBe(0); // priced at $0 is known
    expect(addCosts(null, null)).toBeNull();
    expect(addCosts(null, 0.1)).toBe(0.1);
  });

  const tmp = tempDir();
  const cwd = tmp.dir;
  afterAll(() => tmp.remove());
  const now = Date.now();

  beforeAll(async () => {
    const store = await MessageStore.initialize({ storage: "json", path: join(cwd, "s.json") });
    await store.storeConversation({ id: "c1", userId: "u1", agentId: "bridge" });
    for (const [id, costUsd] of [
      ["m1", undefined],
      ["m2", 0.002],
    ] as const) {
      await store.storeMessage({
        id,
        conversationId: "c1",
        userId: "u1",
        role: "assistant",
        originalContent: id,
        timestamp: now - 1000,
      });
      await store.storeTurnTrace({
        id: `t-${id}`,
        messageId: id,
        conversationId: "c1",
        agentId: costUsd === undefined ? "unpriced-bot" : "priced-bot",
        timestamp: now - 1000,
        totalTokens: 30,
        totalLatencyMs: 5,
        llmCalls: [
          {
            purpose: "agent_loop",
            model: "m",
            promptTokens: 20,
            completionTokens: 10,
            latencyMs: 5,
            ...(costUsd === undefined ? {} : { costUsd }),
          },
        ],
      });
    }
    await store.close();
  });

  it("stats: unknown for an agent whose calls carry no cost, and in --json as null", async () => {
    const stats = (await runOk(["stats", "--store", "json:s.json"], { cwd })).stdout;
    const row = (agent: string) => stats.split("\n").find((l) => l.includes(agent))!;
    expect(row("unpriced-bot")).toContain("—");
    expect(row("unpriced-bot")).not.toContain("$0");
    expect(row("priced-bot")).toContain("$0.0020");
    const json = JSON.parse(
      (await runOk(["stats", "--store", "json:s.json", "--json"], { cwd })).stdout,
    );
    const agents = Object.fromEntries(
      json.topAgents.map((a: { agentId: string; costUsd: number | null }) => [
        a.agentId,
        a.costUsd,
      ]),
    );
    expect(agents).toEqual({ "unpriced-bot": null, "priced-bot": 0.002 });
    expect(json.costUsd).toBe(0.002);
  });

  it("traces: unknown per turn and for a bucket without a priced call", async () => {
    const byTurn = (
      await runOk(["traces", "--store", "json:s.json", "--agent", "unpriced-bot", "--by", "turn"], {
        cwd,
      })
    ).stdout;
    const turn = byTurn.split("\n").find((l) => l.includes("│ unpriced-bot"))!;
    expect(turn).toContain("—");
    expect(byTurn).not.toContain("$0");
    const byDay = (
      await runOk(["traces", "--store", "json:s.json", "--agent", "unpriced-bot", "--by", "day"], {
        cwd,
      })
    ).stdout;
    expect(byDay).not.toContain("$0");
    expect(byDay.split("\n").find((l) => l.includes("total"))).toContain("—");
  });
});

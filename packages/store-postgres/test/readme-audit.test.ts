import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

/** The README's audit queries, taken from the README itself so the two cannot drift. */
const README = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const QUERIES = new Map(
  [...README.matchAll(/<!-- audit:([a-z0-9-]+) -->\s*```sql\n([\s\S]*?)```/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]),
);

const db = useDatabase("ms_pg_audit");
let store: PostgresMessageStore;

async function run(name: string): Promise<Record<string, unknown>[]> {
  const sql = QUERIES.get(name);
  if (!sql) throw new Error(`README has no audit query ${name}`);
  // `timestamp without time zone` as text: the queries show UTC wall time, whatever TZ tests run in.
  const types = {
    getTypeParser: (oid: number, format?: string) =>
      oid === 1114 ? (v: string) => v : pg.types.getTypeParser(oid, format as "text"),
  };
  return withClient(
    db.url(),
    async (c) => (await c.query({ text: sql, types } as pg.QueryConfig)).rows,
  );
}

const DAY = 86_400_000;
const call = (model: string, promptTokens: number, costUsd: number | null) => ({
  purpose: "agent_loop" as const,
  model,
  promptTokens,
  completionTokens: 10,
  latencyMs: 5,
  costUsd,
});

beforeAll(async () => {
  store = await openStore(db.url());
  await store.storeConversation(conversation("conv-42"));
  await store.storeMessages([
    message("m1", "conv-42", DAY + 1, { originalContent: "hello" }),
    message("m2", "conv-42", DAY + 1, { role: "assistant", originalContent: "hi there" }),
    message("m3", "conv-42", DAY + 2, { originalContent: "rude", isFlagged: true }),
    message("m4", "conv-42", 2 * DAY + 5, { role: "assistant", originalContent: "done" }),
  ]);
  await store.storeTurnTrace(
    trace("t-small", "m2", "conv-42", {
      agentId: "support-bot",
      timestamp: DAY + 1,
      totalTokens: 500,
      llmCalls: [call("gpt-small", 400, 0.001), call("gpt-big", 50, null)],
      toolTraces: [{ toolName: "calculator", exitCode: 0 }],
    }),
  );
  await store.storeTurnTrace(
    trace("t-big", "m4", "conv-42", {
      agentId: "support-bot",
      timestamp: 2 * DAY + 5,
      totalTokens: 25_000,
      llmCalls: [call("gpt-big", 20_000, 0.25)],
      toolTraces: [
        { toolName: "web_search", exitCode: 0, stdout: "x".repeat(5_000) },
        { toolName: "python", exitCode: 1, traceback: "Traceback: boom" },
      ],
      errors: [{ kind: "tool_failed", tool: "python" }],
    }),
  );
});
afterAll(async () => {
  await store?.close();
});

describe("README audit queries", () => {
  it("are all present", () => {
    expect([...QUERIES.keys()].sort()).toEqual(
      [
        "agent-errors",
        "cost-per-model-per-day",
        "failed-tool-runs",
        "largest-traces",
        "moderation-queue",
        "tokens-over-threshold",
        "transcript",
        "turns-using-tool",
      ].sort(),
    );
  });

  it("turns whose token usage exceeded 10,000", async () => {
    const rows = await run("tokens-over-threshold");
    expect(rows.map((r) => [r.id, Number(r.total_tokens)])).toEqual([["t-big", 25_000]]);
    expect(rows[0]!.at_utc).toBe("1970-01-03 00:00:00.005");
  });

  it("turns that used a tool", async () => {
    expect((await run("turns-using-tool")).map((r) => r.id)).toEqual(["t-big"]);
  });

  it("failed tool runs", async () => {
    expect(await run("failed-tool-runs")).toEqual([
      { trace_id: "t-big", tool: "python", exit_code: 1, traceback: "Traceback: boom" },
    ]);
  });

  it("cost per model per day", async () => {
    const rows = (await run("cost-per-model-per-day")).map((r) => [
      r.day_utc,
      r.model,
      Number(r.calls),
      Number(r.prompt_tokens),
      r.cost_usd === null ? null : Number(r.cost_usd),
    ]);
    expect(rows).toEqual([
      ["1970-01-02 00:00:00", "gpt-big", 1, 50, null],
      ["1970-01-02 00:00:00", "gpt-small", 1, 400, 0.001],
      ["1970-01-03 00:00:00", "gpt-big", 1, 20_000, 0.25],
    ]);
  });

  it("an agent's turns with errors", async () => {
    const rows = await run("agent-errors");
    expect(rows.map((r) => [r.id, r.errors])).toEqual([
      ["t-big", [{ kind: "tool_failed", tool: "python" }]],
    ]);
  });

  it("the moderation queue", async () => {
    expect((await run("moderation-queue")).map((r) => [r.id, r.preview])).toEqual([["m3", "rude"]]);
  });

  it("a transcript in store order", async () => {
    const rows = await run("transcript");
    expect(rows.map((r) => r.content)).toEqual(["hello", "hi there", "rude", "done"]);
    const seqs = rows.map((r) => Number(r.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it("the largest traces", async () => {
    const rows = await run("largest-traces");
    expect(rows.map((r) => r.id)).toEqual(["t-big", "t-small"]);
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runOk, tempDir, writeDataset } from "./support/cli.js";
import { makeDataset } from "./support/make-dataset.mjs";

const CONVERSATIONS = 15;
const PER_CONVERSATION = 26;
const records = makeDataset({ conversations: CONVERSATIONS, perConversation: PER_CONVERSATION })
  .lines.map((l) => JSON.parse(l))
  .filter((r) => r.type !== "header" && r.type !== "footer");
const messages = records.filter((r) => r.type === "message").map((r) => r.data);
const traces = records.filter((r) => r.type === "turnTrace").map((r) => r.data);

describe("stats, show, traces", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  beforeAll(async () => {
    const { path } = writeDataset(cwd, CONVERSATIONS, PER_CONVERSATION);
    await runOk(["import", path, "--store", "json:app.json"], { cwd });
  });
  afterAll(() => tmp.remove());

  it("stats: counts, date range and top agents by tokens", async () => {
    const { stdout } = await runOk(["stats", "--store", "json:app.json", "--json", "--top", "2"], {
      cwd,
    });
    const stats = JSON.parse(stdout);
    const tokens = new Map<string, number>();
    for (const t of traces) tokens.set(t.agentId, (tokens.get(t.agentId) ?? 0) + t.totalTokens);
    const top = [...tokens].sort((a, b) => b[1] - a[1]).slice(0, 2);
    expect(stats).toMatchObject({
      conversations: CONVERSATIONS,
      users: 7,
      messages: messages.length,
      flaggedMessages: messages.filter((m) => m.isFlagged).length,
      firstMessageAt: Math.min(...messages.map((m) => m.timestamp)),
      lastMessageAt: Math.max(...messages.map((m) => m.timestamp)),
      turnTraces: traces.length,
      totalTokens: traces.reduce((s, t) => s + t.totalTokens, 0),
    });
    expect(
      stats.topAgents.map((a: { agentId: string; totalTokens: number }) => [
        a.agentId,
        a.totalTokens,
      ]),
    ).toEqual(top);

    const text = (await runOk(["stats", "--store", "json:app.json"], { cwd })).stdout;
    expect(text).toContain(`conversations     ${CONVERSATIONS} (7 users)`);
    expect(text).toContain("top agents by tokens");
    expect(text).toContain(top[0]![0]);
  });

  it("show conversation: flagged marker, tool calls, tool results and trace totals per turn", async () => {
    const { stdout } = await runOk(
      ["show", "conversation", "conv-00000", "--store", "json:app.json"],
      { cwd },
    );
    const own = messages.filter((m) => m.conversationId === "conv-00000");
    const ownTraces = traces.filter((t) => t.conversationId === "conv-00000");
    expect(stdout).toContain('conversation "conv-00000" — Chat 0');
    expect(stdout.match(/ ⚑ /g)?.length).toBe(own.filter((m) => m.isFlagged).length);
    expect(stdout.match(/→ \w+\(\{"\$opt":\{"a\.b":1\},"query":"q\d+"\}\)/g)?.length).toBe(
      own.filter((m) => m.toolCalls?.length).length,
    );
    expect(stdout.match(/← \w+ \(conv-00000-m\d+-call\)/g)?.length).toBe(
      own.filter((m) => m.role === "tool").length,
    );
    const turnLines = stdout.split("\n").filter((l) => l.includes("∑ turn:"));
    expect(turnLines.length).toBe(ownTraces.length);
    expect(turnLines[0]).toContain(`${ownTraces[0].totalTokens.toLocaleString("en-US")} tokens`);
    // NUL is shown as a visible symbol, never written raw to the terminal.
    expect(stdout).not.toContain("\u0000");
    expect(stdout).toContain("\u2400");
  });

  it("show conversation: unknown id exits 1", async () => {
    const result = await runCli(["show", "conversation", "nope", "--store", "json:app.json"], {
      cwd,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no conversation with id "nope"');
  });

  it("traces: usage per day and per turn for an agent and window", async () => {
    const agent = "travel-bot";
    const mine = traces.filter((t) => t.agentId === agent);
    const args = [
      "traces",
      "--store",
      "json:app.json",
      "--agent",
      agent,
      "--since",
      "2025-06-01",
      "--until",
      "2025-06-03",
    ];
    const byDay = (await runOk([...args, "--by", "day"], { cwd })).stdout;
    const total = byDay.split("\n").find((l) => l.includes("total"))!;
    const cells = total.split("│").map((c) => c.trim());
    expect(cells[2]).toBe(String(mine.length));
    expect(cells[3]).toBe(mine.reduce((s, t) => s + t.totalTokens, 0).toLocaleString("en-US"));

    const byTurn = (await runOk([...args, "--by", "turn", "--limit", "3"], { cwd })).stdout;
    const rows = byTurn.split("\n").filter((l) => l.includes(`│ ${agent}`));
    expect(rows.length).toBe(3);
    expect(byTurn).toContain("newest 3 turns shown");

    // Costs under $0.0001 show their digits, not $0.0000.
    const all = (
      await runOk(
        [
          "traces",
          "--store",
          "json:app.json",
          "--since",
          "2000-01-01",
          "--by",
          "turn",
          "--limit",
          "1000",
        ],
        { cwd },
      )
    ).stdout;
    const tiny = traces.filter((t) => {
      const cost = t.llmCalls.reduce(
        (s: number, c: { costUsd: number | null }) => s + (c.costUsd ?? 0),
        0,
      );
      return cost > 0 && cost < 0.0001;
    });
    expect(tiny.length).toBeGreaterThan(0);
    expect(all).not.toMatch(/\$0\.0000(?!\d)/);
    expect(all).toMatch(/\$0\.0000\d/);

    const empty = (
      await runOk(["traces", "--store", "json:app.json", "--agent", agent, "--since", "90m"], {
        cwd,
      })
    ).stdout;
    expect(empty).toContain("no turns in this window");
  });

  it("reads the store from $MESSAGE_STORE and from a config file with dsn/path indirection", async () => {
    const fromEnv = await runOk(["stats", "--json"], {
      cwd,
      env: { MESSAGE_STORE: "json:env:APP_PATH", APP_PATH: "app.json" },
    });
    expect(JSON.parse(fromEnv.stdout).conversations).toBe(CONVERSATIONS);
    writeFileSync(
      join(cwd, "store.json"),
      JSON.stringify({ storage: "json", path_env: "APP_PATH" }),
    );
    const fromConfig = await runOk(["stats", "--json", "--config", "store.json"], {
      cwd,
      env: { APP_PATH: "app.json" },
    });
    expect(JSON.parse(fromConfig.stdout).conversations).toBe(CONVERSATIONS);
  });
});

describe("one of each: singular nouns", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  afterAll(() => tmp.remove());

  it("import and stats say 1 conversation, 1 user", async () => {
    const { path } = writeDataset(cwd, 1, 3);
    const imported = await runOk(["import", path, "--store", "json:one.json"], { cwd });
    expect(imported.stderr + imported.stdout).toMatch(/imported 1 conversation, \d+ messages/);
    const stats = (await runOk(["stats", "--store", "json:one.json"], { cwd })).stdout;
    expect(stats).toContain("conversations     1 (1 user)");
  });
});

describe("usage errors exit 2", () => {
  const tmp = tempDir();
  beforeAll(() => {
    writeFileSync(join(tmp.dir, "no-dsn.json"), JSON.stringify({ storage: "postgres" }));
    writeFileSync(join(tmp.dir, "redis.json"), JSON.stringify({ storage: "redis", url: "x" }));
    writeFileSync(join(tmp.dir, "postgress.json"), JSON.stringify({ storage: "postgress" }));
  });
  afterAll(() => tmp.remove());
  const cases: [string, string[], Record<string, string>, RegExp][] = [
    ["unknown command", ["frobnicate"], {}, /unknown command 'frobnicate'/],
    [
      "unknown option",
      ["stats", "--store", "json:x.json", "--colour"],
      {},
      /unknown option '--colour'/,
    ],
    ["no store", ["stats"], {}, /no store: give --store/],
    [
      "show without its record",
      ["show", "--store", "json:x.json"],
      {},
      /missing "conversation <id>": message-store show conversation <id> --store/,
    ],
    ["show of an unknown record", ["show", "convo", "1"], {}, /unknown record "convo"/],
    [
      "a misspelt storage in a config file",
      ["stats", "--config", "postgress.json"],
      {},
      /unknown storage "postgress".*Did you mean "postgres"\?/,
    ],
    [
      "bad store spec",
      ["stats", "--store", "redis:localhost"],
      {},
      /unrecognised store "redis:localhost"/,
    ],
    [
      "unset environment variable",
      ["stats", "--store", "postgres:env:NOPE_URL"],
      {},
      /environment variable NOPE_URL is not set/,
    ],
    [
      "bad duration",
      ["traces", "--store", "json:x.json", "--since", "yesterday"],
      {},
      /argument 'yesterday' is invalid/,
    ],
    [
      "window ends before it starts",
      ["traces", "--store", "json:x.json", "--since", "1h", "--until", "2h"],
      {},
      /--since must be before --until/,
    ],
    [
      "bad batch size",
      ["migrate", "--from", "json:a.json", "--to", "json:b.json", "--batch-size", "0"],
      {},
      /expected a positive integer/,
    ],
    ["missing --to", ["migrate", "--from", "json:a.json"], {}, /required option '--to <spec>'/],
    [
      "same store twice",
      ["migrate", "--from", "json:a.json", "--to", "json:./a.json"],
      {},
      /name the same store/,
    ],
    [
      "missing config file",
      ["stats", "--config", "nope.json"],
      {},
      /config file .*nope\.json: no such file/,
    ],
    [
      "both --store and --config",
      ["stats", "--store", "json:a.json", "--config", "x.json"],
      {},
      /--store or --config, not both/,
    ],
    [
      "config without a required key",
      ["stats", "--config", "no-dsn.json"],
      {},
      /invalid postgres config: .*dsn or pool/,
    ],
    [
      "unknown storage in config",
      ["stats", "--config", "redis.json"],
      {},
      /unknown storage "redis"/,
    ],
  ];
  for (const [name, args, env, message] of cases) {
    it(name, async () => {
      const result = await runCli(args, { cwd: tmp.dir, env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    });
  }

  it("--help exits 0", async () => {
    const result = await runCli(["migrate", "--help"], { cwd: tmp.dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("--batch-size <n>");
  });
});

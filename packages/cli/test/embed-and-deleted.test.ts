import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runOk, tempDir, writeDataset } from "./support/cli.js";

/** A deterministic embedder: [length, vowels, 1]; it logs each batch size to `calls.log`. */
const EMBEDDER = `
import { appendFileSync } from "node:fs";
export async function embed(texts) {
  appendFileSync(new URL("./calls.log", import.meta.url), texts.length + "\\n");
  return texts.map((t) => [t.length, (t.match(/[aeiou]/g) ?? []).length, 1]);
}
`;

const exportLines = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("embed", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let pending: { id: string; text: string }[];
  beforeAll(async () => {
    writeFileSync(join(cwd, "embedder.mjs"), EMBEDDER);
    const { path } = writeDataset(cwd, 6, 9);
    await runOk(["import", path, "--store", "json:app.json"], { cwd });
    const records = exportLines(
      (await runOk(["export", "--store", "json:app.json"], { cwd })).stdout,
    );
    pending = records
      .filter((r) => r.type === "message")
      .map((r) => r.data)
      .filter((m) => ["user", "assistant"].includes(m.role) && !m.isFlagged && m.embedding === null)
      .map((m) => ({ id: m.id, text: m.originalContent }));
  });
  afterAll(() => tmp.remove());

  it("embeds every pending user and assistant message in batches, with progress, then nothing more", async () => {
    expect(pending.length).toBeGreaterThan(10);
    const first = await runOk(
      [
        "embed",
        "--store",
        "json:app.json",
        "--module",
        "./embedder.mjs",
        "--batch-size",
        "4",
        "--progress",
        "lines",
      ],
      { cwd },
    );
    expect(first.stdout).toContain(`pending: ${pending.length} messages to embed`);
    expect(first.stdout).toMatch(new RegExp(`embed: ${pending.length}/${pending.length} messages`));
    expect(first.stdout).toContain(`embedded ${pending.length} messages`);
    const batches = readFileSync(join(cwd, "calls.log"), "utf8").trim().split("\n").map(Number);
    expect(batches.every((n) => n <= 4)).toBe(true);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(pending.length);

    const records = exportLines(
      (await runOk(["export", "--store", "json:app.json"], { cwd })).stdout,
    );
    const byId = new Map(
      records.filter((r) => r.type === "message").map((r) => [r.data.id, r.data]),
    );
    for (const { id, text } of pending) {
      expect(byId.get(id).embedding).toEqual([
        text.length,
        (text.match(/[aeiou]/g) ?? []).length,
        1,
      ]);
    }
    const again = await runOk(["embed", "--store", "json:app.json", "--module", "embedder.mjs"], {
      cwd,
    });
    expect(again.stdout).toContain("pending: 0 messages to embed");
    expect(again.stdout).toContain("embedded 0 messages");
  });

  it("--roles and --user narrow what is embedded", async () => {
    const result = await runOk(
      [
        "embed",
        "--store",
        "json:app.json",
        "-m",
        "embedder.mjs",
        "--roles",
        "tool",
        "--user",
        "user-1",
      ],
      { cwd },
    );
    const records = exportLines(
      (await runOk(["export", "--store", "json:app.json"], { cwd })).stdout,
    );
    const tools = records
      .filter((r) => r.type === "message" && r.data.role === "tool")
      .map((r) => r.data);
    const embedded = tools.filter((m) => m.embedding !== null);
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.every((m) => m.userId === "user-1")).toBe(true);
    expect(result.stdout).toContain(`embedded ${embedded.length} messages`);
  });

  it("a module without embed, or a bad flag, is a usage error (exit 2)", async () => {
    writeFileSync(join(cwd, "nothing.mjs"), "export const x = 1;\n");
    const none = await runCli(["embed", "--store", "json:app.json", "--module", "nothing.mjs"], {
      cwd,
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("exports no embed function");
    const missing = await runCli(["embed", "--store", "json:app.json", "--module", "nope.mjs"], {
      cwd,
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot load the embedder module nope.mjs");
    const role = await runCli(
      ["embed", "--store", "json:app.json", "-m", "embedder.mjs", "--roles", "robot"],
      { cwd },
    );
    expect(role.code).toBe(2);
  });

  it("an embedder that returns the wrong number of vectors fails (exit 1) and stores nothing of that batch", async () => {
    writeFileSync(join(cwd, "short.mjs"), "export default { embed: async (texts) => [[1]] };\n");
    const store = "json:short.json";
    const { path } = writeDataset(cwd, 2, 6, "short.ndjson");
    await runOk(["import", path, "--store", store], { cwd });
    const result = await runCli(
      ["embed", "--store", store, "-m", "short.mjs", "--batch-size", "3"],
      { cwd },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("expected 3 vectors, got 1 vectors");
  });
});

describe("export and import keep soft-deleted data", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  afterAll(() => tmp.remove());
  const at = 1_735_700_000_000;
  const base = { tags: [], metadata: {} };
  const file = [
    { type: "header", format: "message-store-export", version: 2 },
    {
      type: "conversation",
      data: {
        ...base,
        id: "gone",
        userId: "u",
        tenantId: "acme",
        title: "Gone",
        status: "closed",
        description: "old",
        createdAt: at - 10,
        updatedAt: at - 10,
        deletedAt: at,
      },
    },
    {
      type: "message",
      data: {
        id: "gone-1",
        conversationId: "gone",
        userId: "u",
        tenantId: "acme",
        role: "user",
        originalContent: "hi",
        timestamp: at - 5,
        deletedAt: at,
        tags: ["x"],
        traceId: "abc",
        spanId: "def",
      },
    },
    {
      type: "message",
      data: {
        id: "gone-2",
        conversationId: "gone",
        userId: "u",
        tenantId: "acme",
        role: "tool",
        originalContent: "{}",
        toolCallId: "k",
        toolName: "t",
        toolArguments: { q: 1 },
        timestamp: at - 4,
        deletedAt: at - 1,
      },
    },
    {
      type: "turnTrace",
      data: {
        id: "gone-t",
        messageId: "gone-1",
        conversationId: "gone",
        agentId: "a",
        userId: "u",
        tenantId: "acme",
        timestamp: at - 5,
        totalTokens: 1,
        totalLatencyMs: 1,
        deletedAt: at,
      },
    },
    { type: "footer", conversations: 1, messages: 2, turnTraces: 1 },
  ];

  it("round-trips soft-deleted records byte for byte, and show marks them only when asked", async () => {
    writeFileSync(
      join(cwd, "deleted.ndjson"),
      `${file.map((r) => JSON.stringify(r)).join("\n")}\n`,
    );
    await runOk(["import", "deleted.ndjson", "--store", "json:a.json"], { cwd });
    const first = (await runOk(["export", "--store", "json:a.json"], { cwd })).stdout;
    const records = exportLines(first);
    expect(records.map((r) => r.type)).toEqual([
      "header",
      "conversation",
      "message",
      "message",
      "turnTrace",
      "footer",
    ]);
    expect(records[1].data).toMatchObject({
      deletedAt: at,
      tenantId: "acme",
      status: "closed",
      description: "old",
    });
    expect(records[2].data).toMatchObject({
      deletedAt: at,
      tags: ["x"],
      traceId: "abc",
      spanId: "def",
    });
    expect(records[3].data).toMatchObject({ deletedAt: at - 1, toolArguments: { q: 1 } });
    expect(records[4].data).toMatchObject({ deletedAt: at, tenantId: "acme" });
    await runOk(["import", "--store", "json:b.json", "-"], { cwd, input: first });
    expect((await runOk(["export", "--store", "json:b.json"], { cwd })).stdout).toBe(first);

    const hidden = await runCli(["show", "conversation", "gone", "--store", "json:a.json"], {
      cwd,
    });
    expect(hidden.code).toBe(1);
    expect(hidden.stderr).toContain('no conversation with id "gone"');
    const shown = await runOk(
      ["show", "conversation", "gone", "--store", "json:a.json", "--include-deleted"],
      { cwd },
    );
    expect(shown.stdout).toContain("tenant acme");
    expect(shown.stdout).toContain("status closed");
    expect(shown.stdout).toContain("✗ deleted");
    expect(shown.stdout).toMatch(/user ✗\s+hi/);
    expect(shown.stdout).toContain('arguments: {"q":1}');
    const stats = JSON.parse(
      (await runOk(["stats", "--store", "json:a.json", "--json"], { cwd })).stdout,
    );
    expect(stats).toMatchObject({ conversations: 0, messages: 0, turnTraces: 0 });
  });

  it("migrates soft-deleted data too, and verifies it", async () => {
    const result = await runOk(
      ["migrate", "--from", "json:a.json", "--to", "json:m.json", "--progress", "lines"],
      { cwd },
    );
    expect(result.stdout).toContain(
      "1/1 conversations, 2/2 messages, 1/1 traces, 0/0 checkpoints of the migrated ids: OK",
    );
    const a = (await runOk(["export", "--store", "json:a.json"], { cwd })).stdout;
    expect((await runOk(["export", "--store", "json:m.json"], { cwd })).stdout).toBe(a);
  });
});

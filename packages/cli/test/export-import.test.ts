import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runOk, tempDir, writeDataset } from "./support/cli.js";

describe("export and import (JSON store)", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let dataset: ReturnType<typeof writeDataset>;
  let firstExport: string;

  beforeAll(async () => {
    dataset = writeDataset(cwd, 20, 14);
    const imported = await runOk(
      ["import", dataset.path, "--store", "json:a.json", "--batch-size", "7"],
      { cwd },
    );
    expect(imported.stderr).toContain(
      `imported ${dataset.counts.conversations} conversations, ${dataset.counts.messages} messages, ${dataset.counts.turnTraces} traces`,
    );
    await runOk(["export", "--store", "json:a.json", "-o", "first.ndjson"], { cwd });
    firstExport = readFileSync(join(cwd, "first.ndjson"), "utf8");
  });
  afterAll(() => tmp.remove());

  it("writes a header, canonical records in a deterministic order and a footer", () => {
    const lines = firstExport.trimEnd().split("\n");
    expect(lines[0]).toBe('{"type":"header","format":"message-store-export","version":3}');
    expect(JSON.parse(lines.at(-1)!)).toEqual({
      type: "footer",
      ...dataset.counts,
      checkpoints: 0,
    });
    const conversationIds = lines
      .map((l) => JSON.parse(l))
      .filter((r) => r.type === "conversation")
      .map((r) => r.data.id as string);
    // Code-point order: U+FF5E sorts before U+1F600 (UTF-16 order would say the opposite).
    expect(conversationIds.slice(-2)).toEqual(["conv-\uFF5E-bmp", "conv-\u{1F600}-astral"]);
    expect(lines[1]).toMatch(/^\{"type":"conversation","data":\{"agentId":/);
    expect(lines[1]).not.toContain("lastActivityAt");
    // Keys are sorted at every depth; `$` and `.` keys and NUL survive.
    expect(lines[1]).toContain(
      '"metadata":{"$channel":"web","alpha":{"$set":true,"a.b":[1,"nul\\u0000inside"]},"zeta":0}',
    );
  });

  it("keeps same-timestamp messages in transcript order", () => {
    const messages = firstExport
      .split("\n")
      .filter((l) => l.startsWith('{"type":"message"'))
      .map((l) => JSON.parse(l).data)
      .filter((m) => m.conversationId === "conv-00000");
    expect(messages.map((m) => m.id)).toEqual([...messages.map((m) => m.id)].sort());
    expect(messages[1].timestamp).toBe(messages[2].timestamp);
    expect(messages[2].role).toBe("tool");
  });

  it("exports the same bytes twice, and after a JSON → JSON import, and after importing again", async () => {
    const again = await runOk(["export", "--store", "json:a.json"], { cwd });
    expect(again.stdout).toBe(firstExport);
    await runOk(["import", "first.ndjson", "--store", "json:b.json"], { cwd });
    expect((await runOk(["export", "--store", "json:b.json"], { cwd })).stdout).toBe(firstExport);
    // Re-importing upserts: nothing is duplicated, nothing moves.
    await runOk(["import", "--store", "json:b.json", "-"], { cwd, input: firstExport });
    expect((await runOk(["export", "--store", "json:b.json"], { cwd })).stdout).toBe(firstExport);
  });

  it("exports one user's conversations with --user", async () => {
    const { stdout } = await runOk(["export", "--store", "json:a.json", "--user", "user-3"], {
      cwd,
    });
    const records = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    const conversations = records.filter((r) => r.type === "conversation");
    expect(conversations.length).toBeGreaterThan(0);
    expect(conversations.every((r) => r.data.userId === "user-3")).toBe(true);
    expect(records.at(-1).conversations).toBe(conversations.length);
  });

  it("fails (exit 1) on a file without footer, after importing what it read", async () => {
    const truncated = firstExport.split("\n").slice(0, 10).join("\n");
    writeFileSync(join(cwd, "truncated.ndjson"), truncated);
    const result = await runCli(["import", "truncated.ndjson", "--store", "json:c.json"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no footer line");
  });

  it("fails (exit 1) on a broken line, naming it", async () => {
    const lines = firstExport.split("\n");
    lines[3] = lines[3]!.slice(0, 40);
    writeFileSync(join(cwd, "broken.ndjson"), lines.join("\n"));
    const result = await runCli(["import", "broken.ndjson", "--store", "json:d.json"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("line 4: not JSON");
  });

  it("fails (exit 1) with the store's error when a record breaks integrity", async () => {
    const lines = firstExport.split("\n");
    const message = lines.findIndex((l) => l.startsWith('{"type":"message"'));
    lines.splice(1, message - 1); // drop the first conversation line, keep its messages
    writeFileSync(join(cwd, "orphan.ndjson"), lines.join("\n"));
    const result = await runCli(["import", "orphan.ndjson", "--store", "json:e.json"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/could not store line \d+.*\[message-store\] \[json\]/);
  });
});

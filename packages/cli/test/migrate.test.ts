import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMongo, freshPostgres, runCli, runOk, tempDir, writeDataset } from "./support/cli.js";

describe("migrate", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let counts: { conversations: number; messages: number; turnTraces: number };
  let sourceExport: string;

  beforeAll(async () => {
    const dataset = writeDataset(cwd, 25, 18);
    counts = dataset.counts;
    await runOk(["import", dataset.path, "--store", "json:source.json"], { cwd });
    sourceExport = (await runOk(["export", "--store", "json:source.json"], { cwd })).stdout;
  });
  afterAll(() => tmp.remove());

  it("JSON → Postgres → Mongo → JSON: every export is byte-identical", async () => {
    const env = {
      PG_DSN: await freshPostgres("cli_chain"),
      MONGO_URI: freshMongo("cli_chain"),
    };
    const hops = [
      "json:source.json",
      "postgres:env:PG_DSN",
      "mongodb:env:MONGO_URI",
      "json:final.json",
    ];
    for (let i = 1; i < hops.length; i++) {
      const result = await runOk(
        ["migrate", "--from", hops[i - 1]!, "--to", hops[i]!, "--batch-size", "50"],
        { cwd, env },
      );
      expect(result.stdout).toContain(
        `verify: target holds ${counts.conversations}/${counts.conversations} conversations, ${counts.messages}/${counts.messages} messages, ${counts.turnTraces}/${counts.turnTraces} traces, 0/0 checkpoints of the migrated ids: OK`,
      );
      const exported = await runOk(["export", "--store", hops[i]!], { cwd, env });
      expect(exported.stdout, `export of ${hops[i]}`).toBe(sourceExport);
    }
  });

  it("prints plain lines when stdout is not a terminal", async () => {
    const { stdout } = await runOk(
      ["migrate", "--from", "json:source.json", "--to", "json:plain.json"],
      { cwd },
    );
    expect(stdout).not.toMatch(/[\r\u001b]/);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(`from: json ${join(cwd, "source.json")}`);
    expect(lines[1]).toBe(`to:   json ${join(cwd, "plain.json")}`);
    const progress = lines.filter((l) => l.startsWith("migrate: "));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) {
      expect(line).toMatch(
        /^migrate: \d+\/\d+ conversations \(\d+%\), [\d,]+ messages, [\d,]+ traces, [\d,]+ msg\/s, ETA \S+$/,
      );
    }
    expect(progress.at(-1)).toMatch(
      new RegExp(
        `^migrate: ${counts.conversations}/${counts.conversations} conversations \\(100%\\)`,
      ),
    );
    expect(lines.at(-1)).toMatch(/: OK$/);
  });

  it("exits 1 when the target holds more than the source for a migrated id", async () => {
    // The target already has conv-00000 with a message the source does not have.
    const extra = [
      '{"type":"header","format":"message-store-export","version":1}',
      '{"type":"conversation","data":{"id":"conv-00000","userId":"user-0","createdAt":1}}',
      '{"type":"message","data":{"id":"stray-message","conversationId":"conv-00000","userId":"user-0","role":"user","originalContent":"hi","timestamp":2}}',
      '{"type":"footer","conversations":1,"messages":1,"turnTraces":0}',
    ];
    writeFileSync(join(cwd, "extra.ndjson"), `${extra.join("\n")}\n`);
    await runOk(["import", "extra.ndjson", "--store", "json:mismatch.json"], { cwd });
    const result = await runCli(
      ["migrate", "--from", "json:source.json", "--to", "json:mismatch.json"],
      { cwd },
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("MISMATCH in 1 conversation\n");
    expect(result.stdout).toMatch(/"conv-00000": messages \d+ in source, \d+ in target/);
    expect(result.stderr).toContain("verification failed");
  });
});

describe("secrets are never printed", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  const password = "s3cret-Pa55";
  afterAll(() => tmp.remove());

  it("a DSN with a password to a closed port (flag and environment)", async () => {
    const dsn = `postgres://alice:${password}@127.0.0.1:1/app`;
    for (const [args, env] of [
      [["stats", "--store", dsn], {}],
      [["stats", "--store", "postgres:env:APP_DSN"], { APP_DSN: dsn }],
      [["migrate", "--from", "postgres:env:APP_DSN", "--to", "json:t.json"], { APP_DSN: dsn }],
      [["stats", "--store", "postgres:env:APP_DSN", "--debug"], { APP_DSN: dsn }],
    ] as [string[], Record<string, string>][]) {
      const result = await runCli(args, { cwd, env });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/connect|ECONNREFUSED|unreachable/i);
      expect(result.stdout + result.stderr).not.toContain(password);
    }
  });

  it("a MongoDB URI with a password, from a config file", async () => {
    writeFileSync(
      join(cwd, "mongo.json"),
      JSON.stringify({
        storage: "mongodb",
        uri_env: "MONGO_URI",
        db: "app",
        server_selection_timeout_ms: 1000,
      }),
    );
    const env = { MONGO_URI: `mongodb://bob:${password}@127.0.0.1:1/app` };
    const result = await runCli(["stats", "--config", "mongo.json"], { cwd, env });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout + result.stderr).not.toContain(password);
  });

  it("a password in a bad store spec", async () => {
    const result = await runCli(["stats", "--store", `redis://carol:${password}@host`], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain(password);
  });
});

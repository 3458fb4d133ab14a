import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPostgres, runCli, runOk, tempDir, writeDataset } from "./support/cli.js";

describe("migrate with SQLite", () => {
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

  it("JSON → SQLite → Postgres → SQLite → JSON: every export is byte-identical", async () => {
    const env = { PG_DSN: await freshPostgres("cli_sqlite_chain") };
    const hops = [
      "json:source.json",
      "sqlite:data/agent.db",
      "postgres:env:PG_DSN",
      "sqlite:other.db",
      "json:final.json",
    ];
    for (let i = 1; i < hops.length; i++) {
      const result = await runOk(["migrate", "--from", hops[i - 1]!, "--to", hops[i]!], {
        cwd,
        env,
      });
      expect(result.stdout).toContain(
        `verify: target holds ${counts.conversations}/${counts.conversations} conversations, ${counts.messages}/${counts.messages} messages, ${counts.turnTraces}/${counts.turnTraces} traces, 0/0 checkpoints of the migrated ids: OK`,
      );
      const exported = await runOk(["export", "--store", hops[i]!], { cwd, env });
      expect(exported.stdout, `export of ${hops[i]}`).toBe(sourceExport);
    }
    const stats = await runOk(["stats", "--store", "sqlite:data/agent.db"], { cwd });
    expect(stats.stdout).toContain(String(counts.messages));
  });

  it("a read-only command on a missing SQLite file fails and creates nothing", async () => {
    const { existsSync } = await import("node:fs");
    const { join } = await import("node:path");
    const result = await runCli(["stats", "--store", "sqlite:missing.db"], { cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("no message-store data at");
    expect(existsSync(join(cwd, "missing.db"))).toBe(false);
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  finish,
  freshPostgres,
  runCli,
  runOk,
  startCli,
  tempDir,
  writeDataset,
} from "./support/cli.js";

/**
 * PostgreSQL's default layout to the partitioned one (`partitions`) and back, each a schema of
 * one database named by a config file: interrupted and resumed, verified, and byte-identical
 * exports at every hop.
 */
describe("migrate between PostgreSQL layouts", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let env: Record<string, string>;
  let sourceExport: string;
  let counts: { conversations: number; messages: number; turnTraces: number };

  /** A config file for a schema of the test database, optionally partitioned. */
  function config(name: string, extra: Record<string, unknown>): string {
    const body = { storage: "postgres", dsn: "env:PG_DSN", ...extra };
    writeFileSync(join(cwd, `${name}.json`), JSON.stringify(body));
    return `config:${name}.json`;
  }

  beforeAll(async () => {
    const dataset = writeDataset(cwd, 60, 30);
    counts = dataset.counts;
    env = { PG_DSN: await freshPostgres("cli_layouts") };
    await runOk(["import", dataset.path, "--store", "postgres:env:PG_DSN"], { cwd, env });
    sourceExport = (await runOk(["export", "--store", "postgres:env:PG_DSN"], { cwd, env })).stdout;
  });
  afterAll(() => tmp.remove());

  it("default → partitioned (interrupted, then run again) → default: same export, verified", async () => {
    const parted = config("parted", { schema: "parted", partitions: 4 });
    const args = ["migrate", "--from", "postgres:env:PG_DSN", "--to", parted, "--batch-size", "10"];
    const first = startCli(args, { cwd, env });
    const output = finish(first);
    first.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString("utf8").includes("migrate: ")) first.kill("SIGKILL");
    });
    const killed = await output;
    expect(killed.stdout, "the first run must not have finished").not.toContain("copied");
    const partial = JSON.parse(
      (await runOk(["stats", "--json", "--store", parted], { cwd, env })).stdout,
    );
    expect(partial.messages).toBeGreaterThan(0);
    expect(partial.messages).toBeLessThan(counts.messages);

    const again = await runOk(args, { cwd, env });
    expect(again.stdout).toContain(`to:   postgres postgres://`);
    expect(again.stdout).toContain("(schema parted, 4 partitions)");
    expect(again.stdout).toMatch(/verify: .* of the migrated ids: OK/);
    const stats = JSON.parse(
      (await runOk(["stats", "--json", "--store", parted], { cwd, env })).stdout,
    );
    expect([stats.conversations, stats.messages, stats.turnTraces]).toEqual([
      counts.conversations,
      counts.messages,
      counts.turnTraces,
    ]);
    expect((await runOk(["export", "--store", parted], { cwd, env })).stdout).toBe(sourceExport);

    // A store that opens the partitioned schema without naming the layout finds it.
    const found = config("found", { schema: "parted" });
    const back = config("back", { schema: "back" });
    const home = await runOk(["migrate", "--from", found, "--to", back], { cwd, env });
    expect(home.stdout).toMatch(/verify: .* of the migrated ids: OK/);
    expect((await runOk(["export", "--store", back], { cwd, env })).stdout).toBe(sourceExport);
  });

  it("a target whose layout differs from the config is refused before anything is copied", async () => {
    const wrong = config("wrong", { schema: "parted", partitions: 8 });
    const result = await runCli(["migrate", "--from", "postgres:env:PG_DSN", "--to", wrong], {
      cwd,
      env,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'schema "parted" has the partitioned layout with 4 partitions, but the config asks for partitions: 8',
    );
    expect(result.stdout).not.toContain("copied");
  });
});

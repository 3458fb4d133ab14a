import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  finish,
  freshMongo,
  freshPostgres,
  runCli,
  runOk,
  startCli,
  tempDir,
  writeDataset,
} from "./support/cli.js";

const NO_DATA = /no message-store data (at|in)/;

describe("the CLI never writes by accident", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let dataset: string;

  beforeAll(async () => {
    dataset = writeDataset(cwd, 40, 30).path;
    await runOk(["import", dataset, "--store", "json:data.json"], { cwd });
  });
  afterAll(() => tmp.remove());

  it("stats, show, traces and export on a missing JSON path: exit 1, nothing created", async () => {
    for (const args of [
      ["stats"],
      ["show", "conversation", "c1"],
      ["traces"],
      ["export"],
      ["export", "-o", "out.ndjson"],
    ]) {
      const result = await runCli([...args, "--store", "json:missing/typo.json"], { cwd });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toMatch(NO_DATA);
      expect(result.stderr).toContain("typo.json");
      expect(existsSync(join(cwd, "missing")), args.join(" ")).toBe(false);
      expect(existsSync(join(cwd, "out.ndjson"))).toBe(false);
    }
    // A missing file in an existing folder: not even a lock file is left.
    const before = readdirSync(cwd).sort();
    const result = await runCli(["stats", "--store", "json:typo.json"], { cwd });
    expect(result.code).toBe(1);
    expect(readdirSync(cwd).sort()).toEqual(before);
  });

  it("stats on an empty PostgreSQL database creates no table", async () => {
    const env = { PG_DSN: await freshPostgres("cli_readonly") };
    for (let i = 0; i < 2; i++) {
      // The second run would find the tables if the first had created them.
      const result = await runCli(["stats", "--store", "postgres:env:PG_DSN"], { cwd, env });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/no message-store data in schema "public"/);
    }
  });

  it("stats on a MongoDB database without collections creates none", async () => {
    const env = { MONGO_URI: freshMongo("cli_readonly") };
    for (let i = 0; i < 2; i++) {
      const result = await runCli(["stats", "--store", "mongodb:env:MONGO_URI"], { cwd, env });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toMatch(/no message-store data in database/);
    }
  });

  it("migrate from a mistyped source fails and creates neither source nor target", async () => {
    const result = await runCli(
      ["migrate", "--from", "json:dta.json", "--to", "json:target.json"],
      { cwd },
    );
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toMatch(NO_DATA);
    expect(result.stdout).not.toContain("verify");
    expect(existsSync(join(cwd, "dta.json"))).toBe(false);
    expect(existsSync(join(cwd, "target.json"))).toBe(false);
  });

  it("migrate from an empty store needs --allow-empty", async () => {
    await runOk(["import", "--allow-empty", "--store", "json:empty.json"], {
      cwd,
      input: `${(await runOk(["export", "--store", "json:data.json", "-u", "nobody"], { cwd })).stdout}`,
    });
    expect(existsSync(join(cwd, "empty.json"))).toBe(true);
    const refused = await runCli(
      ["migrate", "--from", "json:empty.json", "--to", "json:empty-target.json"],
      { cwd },
    );
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/holds no conversations.*--allow-empty/);
    expect(existsSync(join(cwd, "empty-target.json"))).toBe(false);
    const allowed = await runOk(
      ["migrate", "--allow-empty", "--from", "json:empty.json", "--to", "json:empty-target.json"],
      { cwd },
    );
    expect(allowed.stdout).toContain("OK");
  });

  it("import: an export without records needs --allow-empty; a failed import leaves no empty target", async () => {
    const empty = (await runOk(["export", "--store", "json:data.json", "-u", "nobody"], { cwd }))
      .stdout;
    const refused = await runCli(["import", "--store", "json:new1.json"], { cwd, input: empty });
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/no records.*--allow-empty/);
    expect(existsSync(join(cwd, "new1.json"))).toBe(false);

    // The first conversation is invalid: the store was opened (created), nothing was stored.
    const [header] = empty.split("\n");
    const bad = `${header}\n${JSON.stringify({ type: "conversation", data: { id: "c", userId: 5 } })}\n`;
    writeFileSync(join(cwd, "bad.ndjson"), bad);
    const failed = await runCli(["import", "bad.ndjson", "--store", "json:new2.json"], { cwd });
    expect(failed.code, failed.stderr).toBe(1);
    expect(readdirSync(cwd).filter((f) => f.startsWith("new2"))).toEqual([]);
  });

  it("import: a bad export (a file or standard input) creates no PostgreSQL tables and no MongoDB collections", async () => {
    const empty = (await runOk(["export", "--store", "json:data.json", "-u", "nobody"], { cwd }))
      .stdout;
    const [header] = empty.split("\n");
    // A valid conversation first, then a bad message: checked before any store is opened.
    const good = { type: "conversation", data: { id: "c", userId: "u", createdAt: 1 } };
    const badMessage = { type: "message", data: { id: "m", conversationId: "c", role: "robot" } };
    writeFileSync(
      join(cwd, "bad-late.ndjson"),
      `${header}\n${JSON.stringify(good)}\n${JSON.stringify(badMessage)}\n`,
    );
    const env = {
      PG_DSN: await freshPostgres("cli_import"),
      MONGO_URI: freshMongo("cli_import"),
    };
    const bad = readFileSync(join(cwd, "bad-late.ndjson"), "utf8");
    for (const [store, file] of [
      ["postgres:env:PG_DSN", "bad-late.ndjson"],
      ["mongodb:env:MONGO_URI", "bad-late.ndjson"],
      ["postgres:env:PG_DSN", "-"],
    ] as const) {
      const failed = await runCli(["import", file, "--store", store], { cwd, env, input: bad });
      expect(failed.code, failed.stderr).toBe(1);
      expect(failed.stderr).toMatch(/line 3.*role/s);
      // Nothing was created: a read-only command still finds no message-store data there.
      const stats = await runCli(["stats", "--store", store], { cwd, env });
      expect(stats.code, stats.stderr).toBe(1);
      expect(stats.stderr).toMatch(/no message-store data/);
    }
  });

  it("a config file names environment variables as the command line does (env:NAME), and the old <key>_env still works", async () => {
    writeFileSync(join(cwd, "new.json.config"), JSON.stringify({ storage: "json", path: "env:P" }));
    writeFileSync(join(cwd, "old.json.config"), JSON.stringify({ storage: "json", path_env: "P" }));
    const env = { P: join(cwd, "data.json") };
    for (const file of ["new.json.config", "old.json.config"]) {
      const { stdout } = await runOk(["stats", "--config", file, "--json"], { cwd, env });
      expect(JSON.parse(stdout).conversations).toBe(40);
    }
  });

  it("export | head: the broken pipe ends the export, which closes the store and its lock", async () => {
    const child = startCli(["export", "--store", "json:data.json"], { cwd });
    const done = finish(child);
    child.stdin!.end();
    // Read the first chunk, then close the pipe as `head` would.
    await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
    child.stdout!.destroy();
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain("error");
    expect(existsSync(join(cwd, "data.json.lock"))).toBe(false);
    // The store opens again at once.
    await runOk(["stats", "--store", "json:data.json"], { cwd });
  });
});

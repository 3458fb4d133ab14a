import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MessageStore, TurnTraceSchema } from "@message-store/core";
import "@message-store/json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seededCheckpoints, seedThreads } from "./support/checkpoint-threads.js";
import { freshMongo, freshPostgres, runCli, runOk, tempDir } from "./support/cli.js";

const openJson = (path: string) => MessageStore.initialize({ storage: "json", path });

async function withJson<T>(path: string, use: (store: MessageStore) => Promise<T>): Promise<T> {
  const store = await openJson(path);
  try {
    return await use(store);
  } finally {
    await store.close();
  }
}

const records = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("checkpoints in export, import and migrate", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  const source = join(cwd, "source.json");
  let sourceExport: string;
  let sourceCheckpoints: Awaited<ReturnType<typeof seededCheckpoints>>;

  beforeAll(async () => {
    await withJson(source, seedThreads);
    sourceCheckpoints = await withJson(source, seededCheckpoints);
    sourceExport = (await runOk(["export", "--store", "json:source.json"], { cwd })).stdout;
  });
  afterAll(() => tmp.remove());

  it("the export has a line per checkpoint, each value once per thread, and counts them", () => {
    const lines = records(sourceExport);
    expect(lines[0]).toEqual({ type: "header", format: "message-store-export", version: 3 });
    expect(lines.at(-1)).toEqual({
      type: "footer",
      conversations: 3,
      messages: 4,
      turnTraces: 0,
      checkpoints: 7,
    });
    const checkpoints = lines.filter((l) => l.type === "checkpoint").map((l) => l.data);
    // Newest first, as listCheckpoints lists them; a value travels with the first line using it.
    expect(
      checkpoints.map((c) => [c.id, c.values.map((v: { channel: string }) => v.channel)]),
    ).toEqual([
      ["cp-04", ["blob", "messages", "step"]],
      ["cp-03a", ["inner"]],
      ["cp-03", []],
      ["cp-02a", ["inner"]],
      ["cp-02", ["step"]],
      ["cp-01", ["messages"]],
      ["cp-b1", ["messages"]],
    ]);
    const latest = checkpoints[0];
    expect(latest.writes.map((w: { taskId: string; idx: number }) => [w.taskId, w.idx])).toEqual([
      ["task-1", -3],
      ["task-2", 0],
      ["task-2", 1],
    ]);
    const blob = latest.values.find((v: { channel: string }) => v.channel === "blob").value;
    expect(Buffer.from(blob.data, "base64")).toEqual(
      Buffer.from(Uint8Array.from({ length: 256 }, (_, i) => i)),
    );
  });

  it("JSON → PostgreSQL → MongoDB → JSON: record for record, verified at each hop", async () => {
    const env = { PG_DSN: await freshPostgres("cli_ckpt"), MONGO_URI: freshMongo("cli_ckpt") };
    const hops = [
      "json:source.json",
      "postgres:env:PG_DSN",
      "mongodb:env:MONGO_URI",
      "json:final.json",
    ];
    for (let i = 1; i < hops.length; i++) {
      const result = await runOk(
        ["migrate", "--from", hops[i - 1]!, "--to", hops[i]!, "--batch-size", "2"],
        { cwd, env },
      );
      expect(result.stdout).toContain(
        "copied 3 conversations, 4 messages, 0 traces, 7 checkpoints in ",
      );
      expect(result.stdout).toContain(
        "verify: target holds 3/3 conversations, 4/4 messages, 0/0 traces, 7/7 checkpoints of the migrated ids: OK",
      );
      expect(result.stdout).toContain(
        "note: 1 soft-deleted conversation migrated without checkpoints: the store hides a soft-deleted conversation's checkpoints (restore it first to carry them)",
      );
      const exported = await runOk(["export", "--store", hops[i]!], { cwd, env });
      expect(exported.stderr).toContain("note: 1 soft-deleted conversation exported without");
      expect(exported.stdout, `export of ${hops[i]}`).toBe(sourceExport);
    }
    await withJson(join(cwd, "final.json"), async (final) => {
      expect(await seededCheckpoints(final)).toEqual(sourceCheckpoints);
      const latest = await final.getCheckpoint("thread-a");
      expect(latest?.id).toBe("cp-04");
      expect(latest?.values.map((v) => `${v.channel}@${v.version}`)).toEqual([
        "blob@1",
        "messages@2",
        "step@2",
      ]);
      expect(latest?.writes).toHaveLength(3);
      expect((await final.getCheckpoint("thread-a", { namespace: "agent:sub|1" }))?.writes).toEqual(
        [expect.objectContaining({ taskId: "task-s", idx: 0 })],
      );
      expect((await final.getConversation("thread-b"))?.tenantId).toBe("acme");
      expect((await final.getMessage("a-3", { includeDeleted: true }))?.deletedAt).not.toBeNull();
      expect(
        (await final.getConversation("gone", { includeDeleted: true }))?.deletedAt,
      ).not.toBeNull();
    });
  });

  it("into PostgreSQL's partitioned layout, twice (upserts), and back: the same export", async () => {
    const env = { PG_DSN: await freshPostgres("cli_ckpt_parted") };
    writeFileSync(
      join(cwd, "parted.json"),
      JSON.stringify({ storage: "postgres", dsn: "env:PG_DSN", schema: "parted", partitions: 4 }),
    );
    for (const [from, to] of [
      ["json:source.json", "config:parted.json"],
      ["json:source.json", "config:parted.json"],
      ["config:parted.json", "json:back.json"],
    ]) {
      const result = await runOk(["migrate", "--from", from!, "--to", to!], { cwd, env });
      expect(result.stdout).toContain("7/7 checkpoints of the migrated ids: OK");
    }
    const exported = await runOk(["export", "--store", "config:parted.json"], { cwd, env });
    expect(exported.stdout).toBe(sourceExport);
    expect((await runOk(["export", "--store", "json:back.json"], { cwd })).stdout).toBe(
      sourceExport,
    );
  });

  it("import carries the checkpoints: export → import → export is byte-identical", async () => {
    writeFileSync(join(cwd, "source.ndjson"), sourceExport);
    const imported = await runOk(["import", "source.ndjson", "--store", "json:imported.json"], {
      cwd,
    });
    expect(imported.stderr).toContain(
      "imported 3 conversations, 4 messages, 0 traces, 7 checkpoints",
    );
    const again = await runOk(["export", "--store", "json:imported.json"], { cwd });
    expect(again.stdout).toBe(sourceExport);
    await withJson(join(cwd, "imported.json"), async (store) => {
      expect(await seededCheckpoints(store)).toEqual(sourceCheckpoints);
    });
  });

  it("verify fails when the target's checkpoints differ in number or in content", async () => {
    const owner = { userId: "u-1" };
    const value = { type: "json", data: new TextEncoder().encode('"stale"') };
    // A pending write the target already holds is kept (a retried task keeps its first result).
    await withJson(join(cwd, "stale.json"), (store) =>
      store.putCheckpointWrites(
        {
          conversationId: "thread-a",
          checkpointId: "cp-04",
          taskId: "task-2",
          taskPath: "~__pregel_pull, tools",
          writes: [{ channel: "messages", idx: 0, value }],
        },
        owner,
      ),
    );
    const stale = await runCli(
      ["migrate", "--from", "json:source.json", "--to", "json:stale.json"],
      {
        cwd,
      },
    );
    expect(stale.code, stale.stderr).toBe(1);
    expect(stale.stdout).toContain(
      "7/7 checkpoints of the migrated ids: MISMATCH in 1 conversation",
    );
    expect(stale.stdout).toContain('"thread-a": checkpoints differ in content');

    await withJson(join(cwd, "extra.json"), (store) =>
      store.putCheckpoint(
        { conversationId: "thread-a", id: "cp-05", checkpoint: value },
        { ...owner, messages: [], traces: [] },
      ),
    );
    const extra = await runCli(
      ["migrate", "--from", "json:source.json", "--to", "json:extra.json"],
      {
        cwd,
      },
    );
    expect(extra.code, extra.stderr).toBe(1);
    expect(extra.stdout).toContain(
      "8/7 checkpoints of the migrated ids: MISMATCH in 1 conversation",
    );
    expect(extra.stdout).toContain('"thread-a": checkpoints 6 in source, 7 in target');
    expect(extra.stderr).toContain("verification failed");
  });

  it("a bad checkpoint line fails the import (exit 1) before anything is stored", async () => {
    const lines = sourceExport.trimEnd().split("\n");
    const at = lines.findIndex((l) => l.includes('"type":"checkpoint"'));
    const cases: [string, string[], RegExp][] = [
      [
        "bad base64",
        lines.map((l, i) => (i === at ? l.replace(/"data":"[^"]+"/, '"data":"not base64!"') : l)),
        new RegExp(`line ${at + 1}: checkpoint\\.data is not base64`),
      ],
      [
        "a checkpoint before its conversation",
        [lines[0]!, lines[at]!, ...lines.slice(1, at), ...lines.slice(at + 1)],
        /checkpoint on line 2: it must follow its conversation "thread-a"/,
      ],
      [
        "a checkpoint of a soft-deleted conversation",
        lines.map((l) =>
          l.includes('"type":"conversation"') && l.includes('"id":"thread-a"')
            ? l.replace('"deletedAt":null', '"deletedAt":5')
            : l,
        ),
        new RegExp(`checkpoint on line ${at + 1}: its conversation "thread-a" is soft-deleted`),
      ],
      [
        "a field the model refuses",
        lines.map((l, i) => (i === at ? l.replace('"parentId":"cp-03"', '"parentId":7') : l)),
        new RegExp(`could not store checkpoint on line ${at + 1}: .*parentId`),
      ],
    ];
    for (const [name, broken, error] of cases) {
      writeFileSync(join(cwd, "broken.ndjson"), `${broken.join("\n")}\n`);
      const result = await runCli(["import", "broken.ndjson", "--store", "json:broken.json"], {
        cwd,
      });
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toMatch(error);
      expect(existsSync(join(cwd, "broken.json")), name).toBe(false);
    }
  });

  it("a footer announcing other checkpoint counts fails the import (exit 1)", async () => {
    const text = sourceExport.replace('"checkpoints":7}', '"checkpoints":6}');
    writeFileSync(join(cwd, "footer.ndjson"), text);
    const result = await runCli(["import", "footer.ndjson", "--store", "json:footer.json"], {
      cwd,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("checkpoints 7 read, 6 announced");
  });
});

describe("an export written before checkpoints were exported (version 2)", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  afterAll(() => tmp.remove());

  it("imports with its soft-deleted records and exports again as version 3, record for record", async () => {
    const fixture = join(import.meta.dirname, "fixtures/export-v2.ndjson");
    const old = readFileSync(fixture, "utf8");
    const imported = await runOk(["import", fixture, "--store", "json:v2.json"], { cwd });
    expect(imported.stderr).toContain(
      "imported 3 conversations, 12 messages, 3 traces, 0 checkpoints",
    );
    const exported = records((await runOk(["export", "--store", "json:v2.json"], { cwd })).stdout);
    const before = records(old);
    expect(before[0].version).toBe(2);
    expect(exported[0].version).toBe(3);
    // Fields added to the models since read back as their defaults: a tool run's `input` is null.
    const upgraded = before
      .slice(1, -1)
      .map((record) =>
        record.type === "turnTrace"
          ? { ...record, data: TurnTraceSchema.parse(record.data) }
          : record,
      );
    expect(upgraded.some((record) => record.type === "turnTrace")).toBe(true);
    expect(exported.slice(1, -1)).toEqual(upgraded);
    expect(exported.filter((r) => r.data?.deletedAt != null)).toHaveLength(7);
    expect(exported.at(-1)).toEqual({ ...before.at(-1), checkpoints: 0 });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finish, freshPostgres, runOk, startCli, tempDir, writeDataset } from "./support/cli.js";

const CONVERSATIONS = 300;
const PER_CONVERSATION = 40;

/** SIGKILLs the child as soon as `text` appears in its stdout (in the same tick). */
function killOnOutput(child: ReturnType<typeof startCli>, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString("utf8");
      if (seen.includes(text)) {
        child.kill("SIGKILL");
        child.stdout!.off("data", onData);
        resolve();
      }
    };
    child.stdout!.on("data", onData);
    child.once("exit", () =>
      reject(new Error(`exited before printing ${JSON.stringify(text)}:\n${seen}`)),
    );
  });
}

describe("an interrupted migration, run again, ends complete without duplicates", () => {
  const tmp = tempDir();
  const cwd = tmp.dir;
  let counts: { conversations: number; messages: number; turnTraces: number };
  let sourceExport: string;

  beforeAll(async () => {
    const dataset = writeDataset(cwd, CONVERSATIONS, PER_CONVERSATION);
    counts = dataset.counts;
    await runOk(["import", dataset.path, "--store", "json:source.json", "--batch-size", "5000"], {
      cwd,
    });
    sourceExport = (await runOk(["export", "--store", "json:source.json"], { cwd })).stdout;
  });
  afterAll(() => tmp.remove());

  const targets: [string, () => Promise<Record<string, string>>, string][] = [
    [
      "Postgres",
      async () => ({ TARGET: await freshPostgres("cli_interrupt") }),
      "postgres:env:TARGET",
    ],
    ["a JSON file", async () => ({}), "json:target.json"],
  ];

  for (const [name, makeEnv, target] of targets) {
    it(`into ${name}`, async () => {
      const env = await makeEnv();
      const args = ["migrate", "--from", "json:source.json", "--to", target, "--batch-size", "20"];

      const first = startCli(args, { cwd, env });
      const output = finish(first);
      // The first progress line is printed once the first batch (20 of the first
      // conversation's 40 messages) is stored: kill it there, without warning, so that a
      // conversation is left half-written.
      await killOnOutput(first, "migrate: ");
      const killed = await output;
      expect(killed.signal).toBe("SIGKILL");
      expect(killed.stdout, "the first run must not have finished").not.toContain("copied");

      const partial = JSON.parse(
        (await runOk(["stats", "--json", "--store", target], { cwd, env })).stdout,
      );
      expect(partial.messages).toBeGreaterThan(0);
      expect(partial.messages).toBeLessThan(counts.messages);

      const again = await runOk(args, { cwd, env });
      expect(again.stdout).toMatch(/verify: .* of the migrated ids: OK/);

      const stats = JSON.parse(
        (await runOk(["stats", "--json", "--store", target], { cwd, env })).stdout,
      );
      expect([stats.conversations, stats.messages, stats.turnTraces]).toEqual([
        counts.conversations,
        counts.messages,
        counts.turnTraces,
      ]);
      // Same bytes: nothing duplicated, nothing reordered (same-timestamp messages included).
      expect((await runOk(["export", "--store", target], { cwd, env })).stdout).toBe(sourceExport);
    });
  }
});

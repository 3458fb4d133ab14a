import { execFile } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  createTestDatabase,
  dropTestDatabase,
  postgresForTests,
} from "@message-store/test-servers";
import { writeSyntheticFile } from "./adapters/json.js";

const run = promisify(execFile);

/** The CLI's `formatSeconds` back to seconds: `4.2s`, `42s`, `3m 05s`, `1h 02m`. */
function parseDuration(text: string): number {
  const unit = { h: 3600, m: 60, s: 1 } as const;
  const parts = [...text.matchAll(/([\d.]+)([hms])/g)];
  if (parts.length === 0) return Number.NaN;
  return parts.reduce((sum, [, n, u]) => sum + Number(n) * unit[u as keyof typeof unit], 0);
}
const CLI = fileURLToPath(new URL("../../packages/cli/bin/message-store.js", import.meta.url));

/**
 * `migrate [--messages 200000] [--traces 40000] [--batch-size 500]`: issue #17's migration
 * speed. Writes a JSON store of the synthetic dataset, then times the CLI's own
 * `message-store migrate --from json:… --to postgres:…` (copy and verification, as a user runs
 * it) into a fresh database of the embedded PostgreSQL 18 (or `MESSAGE_STORE_POSTGRES_URL`), in
 * a child process whose peak RSS `/usr/bin/time` reports. Prints one markdown table row.
 */
export async function migrateBench(argv: string[]): Promise<void> {
  const option = (name: string, fallback: number) => {
    const i = argv.indexOf(name);
    return i >= 0 ? Number(argv[i + 1]) : fallback;
  };
  const messages = option("--messages", 200_000);
  const traces = option("--traces", Math.floor(messages / 5));
  const batch = option("--batch-size", 500);
  const dir = await mkdtemp(join(tmpdir(), "ms-bench-migrate-"));
  const server = await postgresForTests();
  const dsn = await createTestDatabase(server.url, "migrate");
  try {
    const file = join(dir, "store.json");
    await writeSyntheticFile(file, messages, traces);
    const size = (await stat(file)).size / 2 ** 20;
    const load = loadavg()[0]!;
    const started = performance.now();
    const { stdout, stderr } = await run(
      "/usr/bin/time",
      [
        "-f",
        "maxrss_kib=%M",
        process.execPath,
        // MIGRATE_CPU_PROF=<dir>: a CPU profile of the CLI (for `top-frames`).
        ...(process.env.MIGRATE_CPU_PROF
          ? ["--cpu-prof", `--cpu-prof-dir=${process.env.MIGRATE_CPU_PROF}`]
          : []),
        CLI,
        "migrate",
        "--from",
        `json:${file}`,
        "--to",
        `postgres:${dsn}`,
        "--batch-size",
        String(batch),
        "--progress",
        "lines",
      ],
      { maxBuffer: 64 << 20 },
    );
    const seconds = (performance.now() - started) / 1000;
    const copySeconds = parseDuration(/copied .* in (.+)$/m.exec(stdout)?.[1] ?? "");
    const rss = Number(/maxrss_kib=(\d+)/.exec(stderr)?.[1]) / 1024;
    const verdict = /verify: .*/.exec(stdout)?.[0] ?? "no verify line";
    console.log(process.env.MIGRATE_VERBOSE ? stdout : stdout.split("\n").slice(-4).join("\n"));
    console.log(
      "\n| messages | traces | file | batch | copy (s) | messages/s (copy) | whole command (s) | peak RSS | load avg |",
    );
    console.log("|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
    console.log(
      `| ${messages.toLocaleString("en-US")} | ${traces.toLocaleString("en-US")} | ${size.toFixed(0)} MiB | ${batch} | ${copySeconds.toFixed(1)} | ${Math.round(messages / copySeconds).toLocaleString("en-US")} | ${seconds.toFixed(1)} | ${rss.toFixed(0)} MiB | ${load.toFixed(2)} |`,
    );
    console.log(`\n${verdict}`);
  } finally {
    await dropTestDatabase(dsn).catch(() => {});
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

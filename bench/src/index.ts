/**
 * `pnpm bench`: every scenario of issue #6 on every adapter, against the raw minimum, written to
 * BENCHMARKS.md. See `USAGE` in cli-args.ts for the options and the other commands.
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { writeSyntheticFile } from "./adapters/json.js";
import type { AdapterName, BenchTarget } from "./adapters/types.js";
import { parseArgs, type RunOptions, USAGE } from "./cli-args.js";
import { describeMachine } from "./machine.js";
import { migrateBench } from "./migrate-bench.js";
import { otelBench } from "./otel-bench.js";
import { profileHotPath } from "./profile/hot-paths.js";
import { profileFiles, topFrames } from "./profile/top-frames.js";
import { Progress } from "./progress.js";
import { loadRun, type RunReport, saveRun, writeReport } from "./report.js";
import { scaleBench } from "./scale-bench.js";
import { type Limits, type Scenario, scaled } from "./scenario.js";
import { deleteConversation } from "./scenarios/delete-conversation.js";
import { immediateContext } from "./scenarios/immediate-context.js";
import { ingest } from "./scenarios/ingest.js";
import { jsonCompactionWrites } from "./scenarios/json-compaction-writes.js";
import { jsonOpenMemory } from "./scenarios/json-open-memory.js";
import { jsonStore } from "./scenarios/json-store.js";
import { langgraphSavers } from "./scenarios/langgraph-savers.js";
import { peersJson } from "./scenarios/peers-json.js";
import { peersPostgres } from "./scenarios/peers-postgres.js";
import { roundTrips } from "./scenarios/round-trips.js";
import { tracesByAgent } from "./scenarios/traces-by-agent.js";
import { turnLoop } from "./scenarios/turn-loop.js";
import { searchBench } from "./search-bench.js";
import { sqliteBench } from "./sqlite-bench.js";
import { startTarget } from "./targets.js";
import { writersBench } from "./writers-bench.js";

/** In run order: the big-store scenarios build on each other's data (context → traces → delete). */
const SCENARIOS: Scenario[] = [
  roundTrips,
  ingest,
  turnLoop,
  immediateContext,
  tracesByAgent,
  deleteConversation,
  jsonStore,
  jsonOpenMemory,
  jsonCompactionWrites,
  peersPostgres,
  peersJson,
  langgraphSavers,
];

const DEFAULT_REPORT = fileURLToPath(new URL("../../BENCHMARKS.md", import.meta.url));
const FINDINGS = fileURLToPath(new URL("../FINDINGS.md", import.meta.url));
/** The last run's results (ignored by git), for `report`. */
const LAST_RUN = fileURLToPath(new URL("../.last-run.json", import.meta.url));

/** The issue's sizes × scale; smaller ones for a constrained server (jongodb). */
function limitsFor(target: BenchTarget, options: RunOptions): Limits {
  const s = (n: number, step: number, min: number) => scaled(n, options.scale, step, min);
  const big = (n: number) => s(n, 100, 1000);
  const bigStore =
    target.name === "postgres"
      ? big(1_000_000)
      : target.name === "json"
        ? big(100_000)
        : big(options.mongoMax ?? (target.constraint ? 50_000 : 1_000_000));
  const limits: Limits = {
    ingestMessages: s(100_000, 500, 1000),
    sequentialTurns: s(1000, 10, 50),
    turnsPerConversation: s(60, 1, 10),
    bigStore,
    peerStores: options.peerStores.map((n) => big(n)),
    traces: Math.min(s(200_000, 100, 200), Math.floor(bigStore / 5)),
    deleteMessages: s(5000, 2, 100),
    freshStoreForDelete: false,
    resetBetweenPhases: false,
  };
  if (!target.constraint) return limits;
  return {
    ...limits,
    ingestMessages: 1000,
    sequentialTurns: Math.min(limits.sequentialTurns, 50),
    turnsPerConversation: 3,
    deleteMessages: Math.min(limits.deleteMessages, 1000),
    freshStoreForDelete: true,
    resetBetweenPhases: true,
  };
}

async function run(argv: string[]): Promise<void> {
  const options = parseArgs(argv);
  const selected = SCENARIOS.filter((s) => !options.scenarios || options.scenarios.includes(s.id));
  if (selected.length === 0) throw new Error(`no scenario matches ${options.scenarios}`);
  const progress = new Progress();
  const report: RunReport = {
    date: new Date(),
    durationSeconds: 0,
    command: ["pnpm bench", ...argv].join(" "),
    scale: options.scale,
    machine: describeMachine(),
    load: { start: loadavg()[0]!, end: 0 },
    servers: {},
    results: [],
    failures: [],
  };
  const out = options.out === "" ? DEFAULT_REPORT : options.out;
  const save = () => {
    report.durationSeconds = progress.elapsedSeconds;
    report.load.end = loadavg()[0]!;
    if (out) {
      writeReport(report, out, FINDINGS);
      saveRun(report, LAST_RUN);
    }
  };
  try {
    for (const adapter of options.adapters) {
      const scenarios = selected.filter((s) => s.adapters.includes(adapter));
      if (scenarios.length === 0) continue;
      progress.log(`${adapter}: starting`);
      const { target, stop } = await startTarget(adapter, { pool: options.pool });
      report.servers[adapter] = target.constraint
        ? `${target.server}. **Reduced sizes:** ${target.constraint}`
        : target.server;
      progress.log(`${adapter}: ${target.server}`);
      try {
        for (const scenario of scenarios)
          await runScenario(scenario, target, options, progress, report);
      } finally {
        await stop();
      }
      save();
    }
  } finally {
    progress.stop();
  }
  save();
  if (out) console.log(`report written to ${out}`);
  const failed = report.results.flatMap((r) => r.output.targets).filter((t) => !t.pass);
  console.log(
    `${report.results.length} scenario runs, ${report.failures.length} errors, ${failed.length} targets missed (${(progress.elapsedSeconds / 60).toFixed(1)} min)`,
  );
  if (report.failures.length > 0) process.exitCode = 1;
}

async function runScenario(
  scenario: Scenario,
  target: BenchTarget,
  options: RunOptions,
  progress: Progress,
  report: RunReport,
): Promise<void> {
  progress.log(`${target.name}: ${scenario.title}`);
  try {
    const output = await scenario.run({
      target,
      scale: options.scale,
      progress,
      limits: limitsFor(target, options),
    });
    report.results.push({ scenario, adapter: target.name, output });
    for (const m of output.measurements) {
      const ratio = m.ratio === undefined ? "" : ` ours÷raw ${m.ratio.toFixed(2)}×`;
      const p50 = m.ours ? ` p50 ${m.ours.p50.toFixed(3)} ms` : "";
      const rate = m.rate ? ` ${Math.round(m.rate.ours)} ${m.rate.unit}` : "";
      progress.log(`  ${m.label}:${p50}${rate}${ratio}${m.note ? ` (${m.note})` : ""}`);
    }
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    progress.log(`${target.name}: ${scenario.id} FAILED: ${message}`);
    report.failures.push({
      scenario: scenario.title,
      adapter: target.name,
      error: error instanceof Error ? error.message : String(error),
    });
    await target.reset().catch(() => {});
  }
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  switch (command) {
    case "report": {
      // Renders the last run again, with the current FINDINGS.md.
      const target = rest[0] === "--out" && rest[1] ? rest[1] : DEFAULT_REPORT;
      writeReport(loadRun(LAST_RUN), target, FINDINGS);
      console.log(`report written to ${target}`);
      return;
    }
    case "search":
      await searchBench(rest);
      return;
    case "migrate":
      await migrateBench(rest);
      return;
    case "otel":
      await otelBench(rest);
      return;
    case "sqlite":
      await sqliteBench(rest);
      return;
    case "scale":
      await scaleBench(rest);
      return;
    case "writers":
      await writersBench(rest);
      return;
    case "make-json-fixture":
      await writeSyntheticFile(rest[0]!, Number(rest[1] ?? 100_000), Number(rest[2] ?? 20_000));
      return;
    case "top-frames":
      for (const file of profileFiles(rest[0]!))
        console.log(topFrames(file, Number(rest[1] ?? 25)));
      return;
    case "profile": {
      const [adapter, what, seconds, file] = rest;
      if (!adapter || !what) throw new Error(USAGE);
      await profileHotPath(
        adapter as AdapterName,
        what,
        Number(seconds ?? 10),
        file ?? `${adapter}-${what}.cpuprofile`,
      );
      return;
    }
    default:
      await run(process.argv.slice(2));
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

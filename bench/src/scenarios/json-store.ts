import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { JsonTarget } from "../adapters/json.js";
import { PER_CONVERSATION, STEP_MS, syntheticIds } from "../adapters/synthetic.js";
import { BASE_TIME, makeMessage, rng } from "../data.js";
import type { Measurement, Scenario, TargetCheck } from "../scenario.js";
import { type Stat, sampleInterleaved, summarize } from "../stats.js";

/** What the `probe-json-open` child reports. */
export interface OpenProbe {
  openMs: number;
  rssBefore: number;
  rss: number;
  rssAfterGc: number;
  heapUsed: number;
}

/**
 * The child: a bare Node process that loads only `@message-store/json` (and core), opens the
 * store, prints time and memory as JSON, and closes it (nothing was written, nothing rewritten).
 */
const PROBE = `
import { JsonMessageStore } from "@message-store/json";
globalThis.gc();
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const store = await JsonMessageStore.open({ storage: "json", path: process.argv[1] });
const openMs = performance.now() - started;
const rss = process.memoryUsage().rss;
globalThis.gc();
const after = process.memoryUsage();
await store.close();
process.stdout.write(JSON.stringify({ openMs, rssBefore, rss, rssAfterGc: after.rss, heapUsed: after.heapUsed }));
`;

/** Opens the store in a fresh process (cold, nothing else in its heap) and reports time and RSS. */
export function probeOpen(path: string): Promise<OpenProbe> {
  return runProbe<OpenProbe>(["--expose-gc"], PROBE, path);
}

/**
 * Runs `script` (an ES module) in a fresh Node process with `path` as its argument, from the
 * bench package (so it resolves the packages whatever the current directory), and resolves with
 * the JSON it prints.
 */
export function runProbe<T>(flags: string[], script: string, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, "--input-type=module", "-e", script, path], {
      stdio: ["ignore", "pipe", "inherit"],
      cwd: fileURLToPath(new URL("..", import.meta.url)),
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`the open probe exited with ${code}`));
      else resolve(JSON.parse(out) as T);
    });
  });
}

const MiB = 1024 * 1024;

export const jsonStore: Scenario = {
  id: "json",
  title: "6. JSON store: write latency by size, open time, memory",
  description:
    "Single `storeMessage` (a new message at the end of an existing conversation) on stores of 1k, 10k and 100k messages (plus one trace per five messages), 300 calls each, interleaved with the raw minimum: one JSON line appended and fdatasync'ed. Then the 100k store is closed (so the store itself compacts it into its pretty-printed main file) and opened 3 times in a fresh Node process: open time and the process's RSS after opening, against the file size.",
  adapters: ["json"],
  async run({ target, scale, progress }) {
    const json = target as JsonTarget;
    const sizes = [1000, 10_000, 100_000].map((s) =>
      Math.max(PER_CONVERSATION, Math.round((s * scale) / PER_CONVERSATION) * PER_CONVERSATION),
    );
    const measurements: Measurement[] = [];
    const byName = new Map<number, Stat>();
    await json.reset();
    for (const size of sizes) {
      await json.loader.grow({ messages: size, traces: Math.floor(size / 5) });
      const conversationId = syntheticIds.conversation(0);
      const start = BASE_TIME + size * STEP_MS;
      const random = rng(size);
      const iterations = 300;
      const task = progress.task(
        `json: storeMessage at ${size.toLocaleString("en-US")}`,
        iterations,
      );
      for (let w = 0; w < 20; w++) {
        const m = makeMessage(`warm-${size}-${w}`, conversationId, "load-u-0", w, start, random);
        await json.store.storeMessage(m);
        await json.raw.storeMessages([m]);
      }
      const samples = await sampleInterleaved(
        iterations,
        (i) => {
          const m = makeMessage(
            `single-${size}-${i}`,
            conversationId,
            "load-u-0",
            i,
            start + 1000 + i,
            random,
          );
          return {
            ours: () => json.store.storeMessage(m),
            raw: () => json.raw.storeMessages([m]),
          };
        },
        () => task.tick(),
      );
      task.done();
      const ours = summarize(samples.ours);
      byName.set(size, ours);
      measurements.push({
        adapter: "json",
        label: `storeMessage at ${size.toLocaleString("en-US")} messages`,
        ours,
        raw: summarize(samples.raw),
        ratio: ours.p50 / summarize(samples.raw).p50,
      });
    }
    const largest = sizes[sizes.length - 1]!;
    const task = progress.task(
      `json: open ${largest.toLocaleString("en-US")} in a fresh process`,
      3,
    );
    const probes: OpenProbe[] = [];
    let fileSize = 0;
    await json.whileClosed(async () => {
      fileSize = await json.fileSize();
      for (let i = 0; i < 3; i++) {
        probes.push(await probeOpen(json.mainFile));
        task.tick();
      }
    });
    task.done();
    probes.sort((a, b) => a.openMs - b.openMs);
    const median = probes[1]!;
    measurements.push({
      adapter: "json",
      label: `open ${largest.toLocaleString("en-US")} messages (${Math.floor(largest / 5).toLocaleString("en-US")} traces), fresh process, 3 runs`,
      ours: summarize(probes.map((p) => p.openMs)),
      note: `file ${(fileSize / MiB).toFixed(1)} MiB; RSS after open ${(median.rss / MiB).toFixed(0)} MiB (${(median.rss / fileSize).toFixed(2)}× file), after GC ${(median.rssAfterGc / MiB).toFixed(0)} MiB, before open ${(median.rssBefore / MiB).toFixed(0)} MiB; heap ${(median.heapUsed / MiB).toFixed(0)} MiB`,
    });
    const small = byName.get(sizes[0]!)!;
    const big = byName.get(largest)!;
    const growth = big.p50 / small.p50;
    const rssRatio = median.rss / fileSize;
    const targets: TargetCheck[] = [
      {
        adapter: "json",
        target: `storeMessage p50 at ${largest.toLocaleString("en-US")} ≤ 2× p50 at ${sizes[0]!.toLocaleString("en-US")}`,
        value: `${growth.toFixed(2)}× (${small.p50.toFixed(3)} → ${big.p50.toFixed(3)} ms)`,
        pass: growth <= 2,
      },
      {
        adapter: "json",
        target: `open ${largest.toLocaleString("en-US")} messages ≤ 2 s`,
        value: `${(median.openMs / 1000).toFixed(2)} s`,
        pass: median.openMs <= 2000,
      },
      {
        adapter: "json",
        target: "RSS after open ≤ 4× file size",
        value: `${rssRatio.toFixed(2)}× (${(median.rss / MiB).toFixed(0)} MiB / ${(fileSize / MiB).toFixed(1)} MiB)`,
        pass: rssRatio <= 4,
      },
    ];
    return { measurements, targets, notes: [] };
  },
};

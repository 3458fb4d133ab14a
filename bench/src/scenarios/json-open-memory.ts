import type { JsonMessageStore } from "@message-store/json";
import type { JsonTarget } from "../adapters/json.js";
import { syntheticIds } from "../adapters/synthetic.js";
import { BASE_TIME, makeMessage, rng } from "../data.js";
import type { Measurement, Scenario, TargetCheck } from "../scenario.js";
import { summarize } from "../stats.js";
import { runProbe } from "./json-store.js";

/** What the `json-open-memory` child reports. */
interface PeakProbe {
  openMs: number;
  /** Peak resident set size of the process (getrusage maxrss), bytes. */
  peakRss: number;
  /** RSS of the bare process before opening, bytes. */
  rssBefore: number;
}

/** The child: a bare Node process that opens the store, reports its peak RSS, and closes it. */
const PROBE = `
import { JsonMessageStore } from "@message-store/json";
const rssBefore = process.memoryUsage().rss;
const started = performance.now();
const store = await JsonMessageStore.open({ storage: "json", path: process.argv[1] });
const openMs = performance.now() - started;
const peakRss = process.resourceUsage().maxRSS * 1024;
await store.close();
process.stdout.write(JSON.stringify({ openMs, peakRss, rssBefore }));
`;

function probePeak(path: string): Promise<PeakProbe> {
  return runProbe<PeakProbe>([], PROBE, path);
}

const MiB = 1024 * 1024;
/** Gap between the writes issued while a compaction runs. */
const WRITE_GAP_MS = 5;

export const jsonOpenMemory: Scenario = {
  id: "json-memory",
  title: "6b. JSON store at 200k messages: peak memory of an open, write stalls during compaction",
  description:
    "A store of 200,000 messages (and 40,000 traces), rewritten by the store in its own pretty-printed format, opened 3 times in a fresh Node process: the process's peak RSS (getrusage maxrss) against the file size. Then, in the bench process, `compact()` is run 3 times while a `storeMessage` is issued every 5 ms: latency of the writes issued during each compaction (p50, max).",
  adapters: ["json"],
  async run({ target, scale, progress }) {
    const json = target as JsonTarget;
    const messages = Math.max(1000, Math.round((200_000 * scale) / 100) * 100);
    await json.reset();
    await json.loader.grow({ messages, traces: Math.floor(messages / 5) });
    const store = () => json.store as JsonMessageStore;
    await store().driver.compact(); // the store's own (pretty-printed) format
    const measurements: Measurement[] = [];

    const task = progress.task(
      `json: peak RSS of an open at ${messages.toLocaleString("en-US")}`,
      3,
    );
    const probes: PeakProbe[] = [];
    let fileSize = 0;
    await json.whileClosed(async () => {
      fileSize = await json.fileSize();
      for (let i = 0; i < 3; i++) {
        probes.push(await probePeak(json.mainFile));
        task.tick();
      }
    });
    task.done();
    probes.sort((a, b) => a.peakRss - b.peakRss);
    const median = probes[1]!;
    const ratio = median.peakRss / fileSize;
    measurements.push({
      adapter: "json",
      label: `open ${messages.toLocaleString("en-US")} messages, fresh process, 3 runs`,
      ours: summarize(probes.map((p) => p.openMs)),
      note: `file ${(fileSize / MiB).toFixed(1)} MiB; peak RSS ${(median.peakRss / MiB).toFixed(0)} MiB (${ratio.toFixed(2)}× file); bare process ${(median.rssBefore / MiB).toFixed(0)} MiB`,
    });

    const stall = progress.task("json: writes during compaction", 3);
    const latencies: number[] = [];
    const compactions: number[] = [];
    const conversationId = syntheticIds.conversation(0);
    const random = rng(7);
    let n = 0;
    for (let round = 0; round < 3; round++) {
      let compacting = true;
      const started = performance.now();
      const compaction = store()
        .driver.compact()
        .finally(() => {
          compacting = false;
        });
      const writes: Promise<void>[] = [];
      while (compacting) {
        const m = makeMessage(
          `stall-${n}`,
          conversationId,
          "load-u-0",
          n,
          BASE_TIME + 1e9 + n,
          random,
        );
        n++;
        const issued = performance.now();
        writes.push(
          json.store.storeMessage(m).then(() => {
            latencies.push(performance.now() - issued);
          }),
        );
        await new Promise((resolve) => setTimeout(resolve, WRITE_GAP_MS));
      }
      await compaction;
      compactions.push(performance.now() - started);
      await Promise.all(writes);
      stall.tick();
    }
    stall.done();
    const writeStat = summarize(latencies);
    measurements.push({
      adapter: "json",
      label: `storeMessage issued every ${WRITE_GAP_MS} ms during compact() of ${messages.toLocaleString("en-US")} messages, 3 compactions`,
      ours: writeStat,
      note: `${latencies.length} writes; compaction ${summarize(compactions).p50.toFixed(0)} ms (p50)`,
    });
    const targets: TargetCheck[] = [
      {
        adapter: "json",
        target: "peak RSS of an open < 2× file size",
        value: `${ratio.toFixed(2)}× (${(median.peakRss / MiB).toFixed(0)} MiB / ${(fileSize / MiB).toFixed(1)} MiB)`,
        pass: ratio < 2,
      },
      {
        adapter: "json",
        target: "write latency during compaction < 100 ms (max)",
        value: `max ${writeStat.max.toFixed(0)} ms, p50 ${writeStat.p50.toFixed(1)} ms`,
        pass: writeStat.max < 100,
      },
    ];
    return { measurements, targets, notes: [] };
  },
};

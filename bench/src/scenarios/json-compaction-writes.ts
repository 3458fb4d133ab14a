import type { JsonMessageStore } from "@message-store/json";
import type { JsonTarget } from "../adapters/json.js";
import { BASE_TIME, makeConversation, makeMessage, rng } from "../data.js";
import type { Measurement, Scenario } from "../scenario.js";
import { quantile, summarize } from "../stats.js";

const LOADED = 50_000;
const BATCH = 500;
const ROUNDS = 3;
/** Idle writes timed after each compaction, to compare with. */
const IDLE_WRITES = 300;
/** The bound: a write while a compaction runs costs at most this many idle writes. */
const BOUND = 3;

/**
 * Issue #29, item 8: a store just bulk-loaded with 50,000 messages compacts them into its main
 * file while the application goes on writing. Each round starts `compact()` and times single
 * `storeMessage` calls, one after the other as an agent's turns come, until it is done; then
 * times as many on the idle store. A compaction serialising its snapshot on the event loop shows
 * here as writes waiting behind it.
 */
export const jsonCompactionWrites: Scenario = {
  id: "json-compaction",
  title: "6c. JSON store: single writes while a compaction of 50,000 messages runs, vs idle",
  description: `50,000 messages (× scale) stored through \`storeMessages\` in batches of ${BATCH} (a bulk load), then ${ROUNDS} rounds: \`compact()\` is started and single \`storeMessage\` calls are timed back to back until it finishes, then ${IDLE_WRITES} more on the idle store. Target: p50 and p95 during the compaction within ${BOUND}× of idle.`,
  adapters: ["json"],
  async run({ target, scale, progress }) {
    const json = target as JsonTarget;
    const loaded = Math.max(5_000, Math.round((LOADED * scale) / BATCH) * BATCH);
    await json.reset();
    const store = json.store as JsonMessageStore;
    const random = rng(29);
    const conversation = makeConversation("compaction-c", "compaction-u", "compaction-a");
    await store.storeConversation(conversation);
    const load = progress.task(`json: bulk load of ${loaded.toLocaleString("en-US")}`, loaded);
    for (let n = 0; n < loaded; n += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, i) =>
        message(`bulk-${n + i}`, n + i, random),
      );
      await store.storeMessages(batch);
      load.tick(BATCH);
    }
    load.done();

    const during: number[] = [];
    const idle: number[] = [];
    const compactions: number[] = [];
    let n = 0;
    const write = async (into: number[]) => {
      const m = message(`single-${n}`, loaded + n, random);
      n++;
      const started = performance.now();
      await store.storeMessage(m);
      into.push(performance.now() - started);
    };
    const task = progress.task("json: writes during compaction and idle", ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      let compacting = true;
      const started = performance.now();
      const compaction = store.driver.compact().finally(() => {
        compacting = false;
      });
      while (compacting) await write(during);
      await compaction;
      compactions.push(performance.now() - started);
      for (let i = 0; i < IDLE_WRITES; i++) await write(idle);
      task.tick();
    }
    task.done();

    const p95 = (xs: number[]) =>
      quantile(
        [...xs].sort((a, b) => a - b),
        0.95,
      );
    const busy = summarize(during);
    const quiet = summarize(idle);
    const ratios = { p50: busy.p50 / quiet.p50, p95: p95(during) / p95(idle) };
    const label = (what: string) =>
      `storeMessage ${what}, store of ${loaded.toLocaleString("en-US")} messages`;
    const measurements: Measurement[] = [
      {
        adapter: "json",
        label: label("while compact() runs"),
        ours: busy,
        note: `p95 ${p95(during).toFixed(2)} ms; ${during.length} writes in ${ROUNDS} compactions of ${summarize(compactions).p50.toFixed(0)} ms (p50)`,
      },
      {
        adapter: "json",
        label: label("idle"),
        ours: quiet,
        note: `p95 ${p95(idle).toFixed(2)} ms; during ÷ idle: p50 ${ratios.p50.toFixed(2)}×, p95 ${ratios.p95.toFixed(2)}×`,
      },
    ];
    return {
      measurements,
      targets: [
        {
          adapter: "json",
          target: `single writes during compaction within ${BOUND}× of idle (p50 and p95)`,
          value: `p50 ${ratios.p50.toFixed(2)}×, p95 ${ratios.p95.toFixed(2)}×`,
          pass: ratios.p50 <= BOUND && ratios.p95 <= BOUND,
        },
      ],
      notes: [],
    };
  },
};

function message(id: string, n: number, random: () => number) {
  return makeMessage(id, "compaction-c", "compaction-u", n, BASE_TIME + 1_000 + n, random);
}

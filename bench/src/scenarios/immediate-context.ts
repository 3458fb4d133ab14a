import { Bench } from "tinybench";
import { PER_CONVERSATION, syntheticIds } from "../adapters/synthetic.js";
import type { BenchTarget } from "../adapters/types.js";
import { rng } from "../data.js";
import type { Measurement, Scenario, TargetCheck } from "../scenario.js";
import { type Stat, sampleInterleaved, summarize, timed } from "../stats.js";

const N = 20;

/** Store sizes to measure at: 10k, 100k and the big store, scaled, never above the big store. */
export function contextSizes(bigStore: number, scale: number): number[] {
  const sizes = [10_000, 100_000, 1_000_000].map((s) =>
    Math.max(1000, Math.round((s * scale) / PER_CONVERSATION) * PER_CONVERSATION),
  );
  const capped = sizes.filter((s) => s < bigStore);
  return [...new Set([...capped, bigStore])];
}

/** Latencies of ours and raw on random loaded conversations (same one for both per iteration). */
async function sample(
  target: BenchTarget,
  size: number,
  iterations: number,
  onTick: () => void,
): Promise<{ ours: Stat; raw: Stat; prepared?: Stat }> {
  const conversations = size / PER_CONVERSATION;
  const random = rng(size);
  const pick = () => syntheticIds.conversation(Math.floor(random() * conversations));
  if (target.name === "json") {
    // Both sides are in-memory calls of a few microseconds: tinybench's timed loop suits them.
    const bench = new Bench({ time: 1500, warmupTime: 300 });
    const ids = Array.from({ length: 1024 }, pick);
    let i = 0;
    let j = 0;
    bench
      .add("ours", async () => {
        await target.store.getImmediateContext(ids[i++ & 1023]!, N);
      })
      .add("raw", async () => {
        await target.raw.immediateContext(ids[j++ & 1023]!, N);
      });
    await bench.run();
    onTick();
    const [ours, raw] = bench.tasks.map((t) => summarize(t.result?.latency.samples ?? []));
    return { ours: ours!, raw: raw! };
  }
  for (let w = 0; w < 50; w++) {
    await target.store.getImmediateContext(pick(), N);
    await target.raw.immediateContext(pick(), N);
  }
  const samples = await sampleInterleaved(
    iterations,
    () => {
      const id = pick();
      return {
        ours: () => target.store.getImmediateContext(id, N),
        raw: () => target.raw.immediateContext(id, N),
      };
    },
    onTick,
  );
  let prepared: Stat | undefined;
  const preparedCall = target.raw.immediateContextPrepared?.bind(target.raw);
  if (preparedCall) {
    const times: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const id = pick();
      times.push(await timed(() => preparedCall(id, N)));
    }
    prepared = summarize(times);
  }
  return { ours: summarize(samples.ours), raw: summarize(samples.raw), prepared };
}

export const immediateContext: Scenario = {
  id: "context",
  title: "3. getImmediateContext(20) on a big store",
  description:
    "`getImmediateContext(conversation, 20)` on a random conversation (100 messages each) of a store grown step by step to the big-store size; the same conversation for ours and raw on every iteration, alternating which goes first. Raw minimum: Postgres — the flip `SELECT … ORDER BY timestamp DESC, seq DESC LIMIT 20` re-sorted ascending, on the same index, through plain `pg` (default type parsers); Mongo — `find({conversationId, isFlagged: false}).sort({timestamp: -1, sequence: -1}).limit(20)`; JSON — `array.slice(-20)` of an in-memory array per conversation (JSON is measured with tinybench, 1.5 s per side).",
  adapters: ["postgres", "mongo", "json"],
  async run({ target, scale, progress, limits }) {
    const bigStore = limits.bigStore;
    await target.reset();
    const sizes = contextSizes(bigStore, scale);
    const iterations = target.constraint
      ? 300
      : Math.max(300, Math.round(2000 * Math.min(1, scale * 2)));
    const measurements: Measurement[] = [];
    const byName = new Map<number, { ours: Stat; raw: Stat; prepared?: Stat }>();
    for (const size of sizes) {
      const load = progress.task(
        `${target.name}: load ${size.toLocaleString("en-US")} messages`,
        1,
      );
      const started = performance.now();
      await target.loader.grow({ messages: size, traces: 0 });
      load.done();
      const loadSeconds = (performance.now() - started) / 1000;
      const task = progress.task(
        `${target.name}: getImmediateContext(20) at ${size.toLocaleString("en-US")}`,
        target.name === "json" ? 1 : iterations,
      );
      const result = await sample(target, size, iterations, () => task.tick());
      task.done();
      byName.set(size, result);
      measurements.push({
        adapter: target.name,
        label: `getImmediateContext(20) at ${size.toLocaleString("en-US")} messages`,
        ours: result.ours,
        raw: result.raw,
        ratio: result.ours.p50 / result.raw.p50,
        note: `load ${loadSeconds.toFixed(1)} s${result.prepared ? `; raw as a named prepared statement: p50 ${result.prepared.p50.toFixed(3)} ms` : ""}`,
      });
    }
    const targets: TargetCheck[] = [];
    if (target.name === "postgres") {
      for (const [size, r] of byName) {
        const ratio = r.ours.p50 / r.raw.p50;
        targets.push({
          adapter: "postgres",
          target: `getImmediateContext p50 ≤ 1.3× raw at ${size.toLocaleString("en-US")}`,
          value: `${ratio.toFixed(2)}×`,
          pass: ratio <= 1.3,
        });
      }
      const first = byName.get(sizes[0]!)!;
      const last = byName.get(sizes[sizes.length - 1]!)!;
      const growth = last.ours.p50 / first.ours.p50;
      targets.push({
        adapter: "postgres",
        target: `getImmediateContext flat: p50 at ${sizes[sizes.length - 1]!.toLocaleString("en-US")} ≤ 1.5× p50 at ${sizes[0]!.toLocaleString("en-US")}`,
        value: `${growth.toFixed(2)}×`,
        pass: growth <= 1.5,
      });
    }
    return {
      measurements,
      targets,
      notes: [`${target.name}: data made by ${target.loader.method}.`],
    };
  },
};

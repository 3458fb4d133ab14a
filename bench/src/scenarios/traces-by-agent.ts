import { AGENTS, STEP_MS, syntheticIds } from "../adapters/synthetic.js";
import { BASE_TIME, rng } from "../data.js";
import type { Scenario, TargetCheck } from "../scenario.js";
import { sampleInterleaved, summarize } from "../stats.js";

const HOUR = 3_600_000;

export const tracesByAgent: Scenario = {
  id: "traces",
  title: "4. Traces by agent, 1-hour window",
  description: `\`getTurnTracesByAgentId(agent, { since, until: since + 1 h })\` (no limit: the whole window) for a random agent of ${AGENTS} and a random window inside the data's time span, over a store of 200,000 traces (one per fifth message of the big store; each trace has two model calls, one in four a tool run). Raw minimum: Postgres — \`SELECT … WHERE agent_id = $1 AND timestamp >= $2 AND timestamp < $3 ORDER BY timestamp DESC, id DESC\` on the same index through plain \`pg\`; Mongo — the same \`find\` with \`sort\`; JSON — a binary search and \`slice\` of an in-memory per-agent array.`,
  adapters: ["postgres", "mongo", "json"],
  async run({ target, scale, progress, limits }) {
    const { bigStore, traces } = limits;
    const load = progress.task(
      `${target.name}: load ${bigStore.toLocaleString("en-US")} messages, ${traces.toLocaleString("en-US")} traces`,
      1,
    );
    await target.loader.grow({ messages: bigStore, traces });
    load.done();
    const span = bigStore * STEP_MS;
    const random = rng(42);
    const iterations = Math.max(100, Math.round(500 * Math.min(1, scale * 2)));
    const rows: number[] = [];
    const task = progress.task(`${target.name}: traces by agent`, iterations);
    const pick = () => ({
      agent: syntheticIds.agent(Math.floor(random() * AGENTS)),
      since: BASE_TIME + Math.floor(random() * (span - HOUR)),
    });
    for (let w = 0; w < 20; w++) {
      const { agent, since } = pick();
      await target.store.getTurnTracesByAgentId(agent, { since, until: since + HOUR });
      await target.raw.tracesByAgent(agent, since, since + HOUR);
    }
    const samples = await sampleInterleaved(
      iterations,
      () => {
        const { agent, since } = pick();
        return {
          ours: async () => {
            const page = await target.store.getTurnTracesByAgentId(agent, {
              since,
              until: since + HOUR,
            });
            rows.push(page.items.length);
          },
          raw: () => target.raw.tracesByAgent(agent, since, since + HOUR),
        };
      },
      () => task.tick(),
    );
    task.done();
    const ours = summarize(samples.ours);
    const raw = summarize(samples.raw);
    const meanRows = rows.reduce((a, b) => a + b, 0) / rows.length;
    const targets: TargetCheck[] = [];
    return {
      measurements: [
        {
          adapter: target.name,
          label: `1-hour window over ${traces.toLocaleString("en-US")} traces`,
          ours,
          raw,
          ratio: ours.p50 / raw.p50,
          note: `${meanRows.toFixed(0)} traces per window on average`,
        },
      ],
      targets,
      notes: [],
    };
  },
};

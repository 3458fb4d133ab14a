import { loadavg } from "node:os";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { MessageStoreSaver } from "@message-store/langgraph";
import pg from "pg";
import { type RecordedPut, recordAgentThread } from "../peers/langgraph-steps.js";
import type { PeerMeasurement, Scenario } from "../scenario.js";
import { summarize, timed } from "../stats.js";

const TURNS = 10;
const PEER_SCHEMA = "langgraph_peer";

interface Saver {
  name: string;
  saver: BaseCheckpointSaver;
  samples: { put: number[]; get: number[]; step: number[] };
}

/**
 * One step of a thread on one saver, as a graph's loop makes it: the put of the step's checkpoint
 * (its parent named by the config), then `getTuple` of the thread's latest, timed apart.
 */
async function step(s: Saver, thread: string, put: RecordedPut, record: boolean): Promise<void> {
  const configurable = { ...put.config.configurable, thread_id: thread };
  const config: RunnableConfig = { ...put.config, configurable };
  const putMs = await timed(() =>
    s.saver.put(config, put.checkpoint, put.metadata, put.newVersions),
  );
  const getMs = await timed(() => s.saver.getTuple({ configurable: { thread_id: thread } }));
  if (!record) return;
  s.samples.put.push(putMs);
  s.samples.get.push(getMs);
  s.samples.step.push(putMs + getMs);
}

export const langgraphSavers: Scenario = {
  id: "langgraph",
  title: "9. LangGraph checkpointer vs PostgresSaver",
  description: `Our \`MessageStoreSaver\` (\`@message-store/langgraph\`) on the PostgreSQL store against \`@langchain/langgraph-checkpoint-postgres\`'s \`PostgresSaver\` on the same server and database (its tables in schema \`${PEER_SCHEMA}\`, its own pool of the run's size). The checkpoints are those of real LangGraph runs, recorded once (a \`StateGraph\` over \`MessagesAnnotation\`, LangChain's fake chat model calling a tool then answering, ${TURNS} turns per thread, each a question, a tool call, its result and the answer), then handed to each saver as a graph's loop does: per step \`put\` (with the step's \`newVersions\`), then \`getTuple\` of the thread's latest, the saver that goes first rotating step by step. Ours also mirrors the \`messages\` channel into the conversation's transcript (only the step's new messages, with a turn trace per answered turn from the usage of its model calls) in the same statement as the checkpoint; PostgresSaver stores the checkpoint only. The last column is our saver with the mirror off (\`messagesChannel: false\`): checkpoints only, as PostgresSaver stores (its ratio below 1 is what the mirror costs ours).`,
  adapters: ["postgres"],
  async run({ target, progress, scale }) {
    if (!target.dsn || !target.poolSize) throw new Error("the langgraph scenario needs PostgreSQL");
    await target.reset();
    const threads = Math.max(5, Math.round(40 * scale));
    const recordTask = progress.task("postgres: langgraph recording runs", threads + 1);
    const runs: RecordedPut[][] = [];
    for (let r = 0; r <= threads; r++) {
      runs.push(await recordAgentThread(TURNS));
      recordTask.tick();
    }
    recordTask.done();
    const pool = new pg.Pool({ connectionString: target.dsn, max: target.poolSize });
    pool.on("error", () => {});
    const peer = new PostgresSaver(pool, undefined, { schema: PEER_SCHEMA });
    await peer.setup();
    const savers: Saver[] = [
      {
        name: "ours",
        saver: new MessageStoreSaver(target.store, { userId: "bench-user", agentId: "bench" }),
        samples: { put: [], get: [], step: [] },
      },
      { name: "PostgresSaver", saver: peer, samples: { put: [], get: [], step: [] } },
      {
        name: "ours, messagesChannel: false",
        saver: new MessageStoreSaver(target.store, {
          userId: "bench-user",
          agentId: "bench",
          messagesChannel: false,
        }),
        samples: { put: [], get: [], step: [] },
      },
    ];
    const load = [loadavg()[0]!];
    const steps = runs[0]!.length;
    try {
      // Run 0 warms both up (connections, plans, the JIT) and is not recorded.
      const task = progress.task("postgres: langgraph steps", (threads + 1) * steps);
      for (const [r, puts] of runs.entries()) {
        for (const [i, put] of puts.entries()) {
          const first = (r * steps + i) % savers.length;
          for (let k = 0; k < savers.length; k++) {
            const s = savers[(first + k) % savers.length]!;
            await step(s, `${s.name.replace(/\W+/g, "-")}-${r}`, put, r > 0);
          }
          task.tick();
        }
      }
      task.done();
    } finally {
      load.push(loadavg()[0]!);
      await pool.query(`DROP SCHEMA IF EXISTS ${PEER_SCHEMA} CASCADE`).catch(() => {});
      await pool.end().catch(() => {});
      await target.reset();
    }
    const [ours, ...others] = savers as [Saver, ...Saver[]];
    const row = (label: string, key: keyof Saver["samples"]): PeerMeasurement => ({
      adapter: "postgres",
      label,
      ours: summarize(ours.samples[key]),
      peers: others.map((s) => ({ name: s.name, stat: summarize(s.samples[key]) })),
    });
    const what = `${threads} threads of ${steps} steps (${TURNS} agent turns)`;
    const rows = [
      row(`LangGraph step: put + getTuple, ${what}`, "step"),
      row("LangGraph step: put alone", "put"),
      row("LangGraph step: getTuple (latest) alone", "get"),
    ];
    const ratio = rows[0]!.peers[0]!.stat.p50 / rows[0]!.ours.p50;
    return {
      measurements: [],
      peers: rows,
      targets: [
        {
          adapter: "postgres",
          target: "LangGraph put + getTuple at least as fast as PostgresSaver",
          value: `${ratio.toFixed(2)}×`,
          pass: ratio >= 1,
        },
      ],
      notes: [
        `postgres: load average (1 min) at the start / end of the langgraph scenario: ${load[0]!.toFixed(2)} / ${load[1]!.toFixed(2)}.`,
        "postgres: ours writes per step: one statement (`ms_put_checkpoint`: the checkpoint row, each changed channel's value, the step's new messages and their turn traces, in its conversation), one statement per `getTuple`.",
        "postgres: PostgresSaver writes per step: a transaction on a pooled client (BEGIN, one INSERT per changed channel, the checkpoint INSERT, COMMIT), one statement per `getTuple`.",
      ],
    };
  },
};

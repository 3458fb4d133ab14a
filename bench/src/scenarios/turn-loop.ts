import type { Message, TurnTrace } from "@message-store/core";
import type { BenchTarget, Side } from "../adapters/types.js";
import {
  BASE_TIME,
  conversationMessages,
  makeConversation,
  makeMessage,
  makeTrace,
  rng,
} from "../data.js";
import type { ProgressTask } from "../progress.js";
import type { Measurement, Scenario } from "../scenario.js";
import { summarize, timed } from "../stats.js";

const HISTORY = 20;
const CONCURRENCY = 32;
const AGENT = "agent-turns";

/** The records of turn `k` of a conversation (generated before the clock starts). */
function turnRecords(prefix: string, conversationId: string, k: number) {
  const random = rng(k);
  const userId = "user-turns";
  const n = HISTORY + 2 * k;
  const ts = BASE_TIME + n * 1000;
  const user = makeMessage(`${prefix}-u-${k}`, conversationId, userId, n, ts, random);
  const assistant = makeMessage(
    `${prefix}-a-${k}`,
    conversationId,
    userId,
    n + 1,
    ts + 500,
    random,
  );
  const trace = makeTrace(`${prefix}-t-${k}`, assistant, AGENT, k);
  return { user, assistant, trace };
}

/** One agent turn: store the user message, read the context, store the answer and the trace. */
function turn(
  target: BenchTarget,
  side: Side,
  conversationId: string,
  r: { user: Message; assistant: Message; trace: TurnTrace },
): () => Promise<void> {
  if (side === "ours") {
    const s = target.store;
    return async () => {
      await s.storeMessage(r.user);
      await s.getImmediateContext(conversationId, 20);
      await s.storeMessage(r.assistant);
      await s.storeTurnTrace(r.trace);
    };
  }
  const raw = target.raw;
  return async () => {
    await raw.storeMessages([r.user]);
    await raw.immediateContext(conversationId, 20);
    await raw.storeMessages([r.assistant]);
    await raw.storeTrace(r.trace);
  };
}

async function newConversation(target: BenchTarget, side: Side, id: string): Promise<void> {
  const history = conversationMessages(`${id}-h`, id, "user-turns", HISTORY, BASE_TIME, rng(7));
  await target.seed(side, makeConversation(id, "user-turns", AGENT), history, []);
}

/** `turns` turns in each of `conversations` conversations at once; per-turn latencies and wall time. */
async function loop(
  target: BenchTarget,
  side: Side,
  tag: string,
  conversations: number,
  turns: number,
  task: ProgressTask,
): Promise<{ latencies: number[]; wallMs: number }> {
  const ids = Array.from({ length: conversations }, (_, c) => `${tag}-${side}-${c}`);
  for (const id of ids) await newConversation(target, side, id);
  const latencies: number[] = [];
  const start = performance.now();
  await Promise.all(
    ids.map(async (id) => {
      for (let k = 0; k < turns; k++) {
        const run = turn(target, side, id, turnRecords(id, id, k));
        latencies.push(await timed(run));
        task.tick();
      }
    }),
  );
  return { latencies, wallMs: performance.now() - start };
}

function measurement(
  target: BenchTarget,
  label: string,
  ours: { latencies: number[]; wallMs: number }[],
  raw: { latencies: number[]; wallMs: number }[],
): Measurement {
  const rate = (runs: typeof ours) =>
    runs.reduce((a, r) => a + r.latencies.length, 0) /
    (runs.reduce((a, r) => a + r.wallMs, 0) / 1000);
  const oursRate = rate(ours);
  const rawRate = rate(raw);
  return {
    adapter: target.name,
    label,
    ours: summarize(ours.flatMap((r) => r.latencies)),
    raw: summarize(raw.flatMap((r) => r.latencies)),
    rate: { ours: oursRate, raw: rawRate, unit: "turns/s" },
    ratio: rawRate / oursRate,
  };
}

export const turnLoop: Scenario = {
  id: "turns",
  title: "2. Agent turn loop",
  description: `A turn = \`storeMessage(user)\`, \`getImmediateContext(20)\`, \`storeMessage(assistant)\`, \`storeTurnTrace\`, each awaited in order; every conversation starts with ${HISTORY} messages of history. Sequential: one conversation, turns one after another, ours and raw alternating turn by turn. Concurrent: ${CONCURRENCY} conversations at once, each running its turns in order; ours and raw run as separate phases, alternated over three rounds. Raw minimum per turn: single-row INSERTs + the flip SELECT (Postgres), insertOne ×3 + find (Mongo), three appended+fdatasync'ed lines + an array slice (JSON). Turns/s = turns ÷ wall time.`,
  adapters: ["postgres", "mongo", "json"],
  async run({ target, progress, limits }) {
    await target.reset();
    const sequential = limits.sequentialTurns;
    const perConversation = limits.turnsPerConversation;

    // Sequential, interleaved turn by turn.
    for (const side of ["ours", "raw"] as const) {
      await newConversation(target, side, `seq-${side}`);
      await newConversation(target, side, `warm-${side}`);
    }
    for (let k = 0; k < 10; k++) {
      await turn(target, "ours", "warm-ours", turnRecords("warm-ours", "warm-ours", k))();
      await turn(target, "raw", "warm-raw", turnRecords("warm-raw", "warm-raw", k))();
    }
    const seqTask = progress.task(`${target.name}: sequential turns × 2`, sequential);
    const seq = {
      ours: { latencies: [] as number[], wallMs: 0 },
      raw: { latencies: [] as number[], wallMs: 0 },
    };
    for (let k = 0; k < sequential; k++) {
      const order: Side[] = k % 2 === 0 ? ["ours", "raw"] : ["raw", "ours"];
      for (const side of order) {
        const id = `seq-${side}`;
        const t = await timed(turn(target, side, id, turnRecords(id, id, k)));
        seq[side].latencies.push(t);
        seq[side].wallMs += t;
      }
      seqTask.tick();
    }
    seqTask.done();

    // Concurrent: three rounds of phases, alternating which side goes first.
    const concurrent: Record<Side, { latencies: number[]; wallMs: number }[]> = {
      ours: [],
      raw: [],
    };
    const task = progress.task(
      `${target.name}: ${CONCURRENCY} concurrent conversations × 3 rounds × 2`,
      6 * CONCURRENCY * perConversation,
    );
    let round = 0;
    for (const side of ["ours", "raw", "raw", "ours", "ours", "raw"] as const) {
      if (limits.resetBetweenPhases) await target.reset();
      concurrent[side].push(
        await loop(target, side, `con${round++}`, CONCURRENCY, perConversation, task),
      );
    }
    task.done();

    return {
      measurements: [
        measurement(
          target,
          `sequential, 1 conversation (${sequential} turns)`,
          [seq.ours],
          [seq.raw],
        ),
        measurement(
          target,
          `${CONCURRENCY} concurrent conversations (${3 * CONCURRENCY * perConversation} turns)`,
          concurrent.ours,
          concurrent.raw,
        ),
      ],
      targets: [],
      notes: [],
    };
  },
};

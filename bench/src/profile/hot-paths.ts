import { AGENTS, PER_CONVERSATION, STEP_MS, syntheticIds } from "../adapters/synthetic.js";
import type { AdapterName, BenchTarget } from "../adapters/types.js";
import { BASE_TIME, makeConversation, makeMessage, makeTrace, rng } from "../data.js";
import { startTarget } from "../targets.js";
import { profileToFile } from "./cpu-profile.js";
import { topFrames } from "./top-frames.js";

type Work = () => Promise<unknown>;

/** Sets up data for `what` and returns one iteration of the hot path. */
async function prepare(target: BenchTarget, what: string): Promise<(i: number) => Work> {
  const random = rng(5);
  switch (what) {
    case "context": {
      await target.loader.grow({ messages: 10_000, traces: 0 });
      const conversations = 10_000 / PER_CONVERSATION;
      return () => {
        const id = syntheticIds.conversation(Math.floor(random() * conversations));
        return () => target.store.getImmediateContext(id, 20);
      };
    }
    case "traces": {
      await target.loader.grow({ messages: 100_000, traces: 20_000 });
      return () => {
        const since = BASE_TIME + Math.floor(random() * (100_000 * STEP_MS - 3_600_000));
        const agent = syntheticIds.agent(Math.floor(random() * AGENTS));
        return () =>
          target.store.getTurnTracesByAgentId(agent, { since, until: since + 3_600_000 });
      };
    }
    case "ingest": {
      return (i) => {
        const conv = makeConversation(`prof-c-${i}`, "prof-u", "prof-agent");
        const batch = Array.from({ length: 500 }, (_, n) =>
          makeMessage(`prof-${i}-${n}`, conv.id, "prof-u", n, BASE_TIME + n * 1000, random),
        );
        return async () => {
          await target.store.storeConversation(conv);
          await target.store.storeMessages(batch);
        };
      };
    }
    case "turns": {
      await target.store.storeConversation(makeConversation("prof-turns", "prof-u", "prof-agent"));
      return (k) => {
        const ts = BASE_TIME + k * 2000;
        const user = makeMessage(`pt-u-${k}`, "prof-turns", "prof-u", 2 * k, ts, random);
        const assistant = makeMessage(
          `pt-a-${k}`,
          "prof-turns",
          "prof-u",
          2 * k + 1,
          ts + 1,
          random,
        );
        const trace = makeTrace(`pt-t-${k}`, assistant, "prof-agent", k);
        return async () => {
          await target.store.storeMessage(user);
          await target.store.getImmediateContext("prof-turns", 20);
          await target.store.storeMessage(assistant);
          await target.store.storeTurnTrace(trace);
        };
      };
    }
    case "append": {
      // One storeMessage per iteration, as an agent turn stores each message.
      await target.store.storeConversation(makeConversation("prof-append", "prof-u", "prof-agent"));
      return (k) => {
        const m = makeMessage(`pa-${k}`, "prof-append", "prof-u", k, BASE_TIME + k * 1000, random);
        return () => target.store.storeMessage(m);
      };
    }
    default:
      throw new Error(`unknown hot path ${what} (context, traces, ingest, turns, append)`);
  }
}

/**
 * Runs one hot path of one adapter for `seconds` under the V8 profiler (setup excluded), writes
 * the `.cpuprofile` and prints the top self-time frames.
 */
export async function profileHotPath(
  adapter: AdapterName,
  what: string,
  seconds: number,
  out: string,
): Promise<void> {
  const { target, stop } = await startTarget(adapter, { pool: 10 });
  try {
    const next = await prepare(target, what);
    for (let i = 0; i < 50; i++) await next(1_000_000 + i)();
    let count = 0;
    const started = performance.now();
    await profileToFile(out, async () => {
      const deadline = performance.now() + seconds * 1000;
      while (performance.now() < deadline) await next(count++)();
    });
    const elapsed = performance.now() - started;
    console.log(
      `${adapter} ${what}: ${count} iterations in ${(elapsed / 1000).toFixed(1)} s, ${(elapsed / count).toFixed(3)} ms each`,
    );
    console.log(topFrames(out));
  } finally {
    await stop();
  }
}

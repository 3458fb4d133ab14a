import { loadavg } from "node:os";
import type { MessageStore } from "@message-store/core";
import { PostgresMessageStore } from "@message-store/postgres";
import {
  createTestDatabase,
  dropTestDatabase,
  messageInput,
  postgresForTests,
  traceInput,
} from "@message-store/test-servers";
import { fmt, quantile } from "./stats.js";

/**
 * `writers [--writers 4,8,16] [--partitions 16] [--turns 100] [--batches 10] [--rounds 3]`:
 * issue #30's scale bench. Throughput of concurrent writers on the default layout and on the
 * partitioned one (`--partitions` hash partitions), two schemas of one database of the embedded
 * PostgreSQL 18 (or MESSAGE_STORE_POSTGRES_URL), each store with a pool as large as the most
 * writers. Each writer has a conversation of its own:
 *
 * - **turn loop**: `--turns` turns, each a user message, the context window of 20, the answer
 *   and its trace (the calls an agent makes per turn);
 * - **ingest**: `--batches` batches of 100 messages.
 *
 * A writer first stores its conversation. Each round runs every writer count on both layouts, the layout that goes first alternating, so
 * drift hits both alike; the table gives the median over the rounds of each run's throughput
 * (whole turns or messages per second of wall time) and the p50 of one turn.
 */

interface Options {
  writers: number[];
  partitions: number;
  turns: number;
  batches: number;
  rounds: number;
}

function parse(argv: string[]): Options {
  const o: Options = { writers: [4, 8, 16], partitions: 16, turns: 100, batches: 10, rounds: 3 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i];
    const values = String(argv[i + 1])
      .split(",")
      .map(Number);
    if (!values.every((v) => Number.isInteger(v) && v > 0))
      throw new Error(`${key} needs positive integers`);
    if (key === "--writers") o.writers = values;
    else if (key === "--partitions") o.partitions = values[0]!;
    else if (key === "--turns") o.turns = values[0]!;
    else if (key === "--batches") o.batches = values[0]!;
    else if (key === "--rounds") o.rounds = values[0]!;
    else throw new Error(`unknown option ${key}`);
  }
  return o;
}

interface Layout {
  label: string;
  store: MessageStore;
}

/** One run: how long `writers` concurrent writers took, and each turn's latency. */
interface Run {
  seconds: number;
  units: number;
  latencies: number[];
}

/** A run's unique prefix, so that no two runs share a conversation or an id. */
let runs = 0;

/**
 * `writers` writers at once, each on a new conversation of its own, each running `laps` laps of
 * `lap`; a lap's latency is one sample.
 */
async function concurrently(
  store: MessageStore,
  writers: number,
  laps: number,
  lap: (conversation: string, n: number) => Promise<void>,
): Promise<{ seconds: number; latencies: number[] }> {
  const prefix = `r${++runs}`;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      const conversation = `${prefix}-c${w}`;
      await store.storeConversation({ id: conversation, userId: "u1", createdAt: 0 });
      for (let n = 0; n < laps; n++) {
        const lapStarted = performance.now();
        await lap(conversation, n);
        latencies.push(performance.now() - lapStarted);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies };
}

async function turnLoop(store: MessageStore, writers: number, turns: number): Promise<Run> {
  const run = await concurrently(store, writers, turns, async (conversation, t) => {
    const id = `${conversation}-${t}`;
    await store.storeMessage(messageInput(`${id}-u`, conversation, 2 * t));
    await store.getImmediateContext(conversation, 20);
    await store.storeMessage(
      messageInput(`${id}-a`, conversation, 2 * t + 1, { role: "assistant" }),
    );
    await store.storeTurnTrace(traceInput(`${id}-tr`, `${id}-a`, conversation, 2 * t + 1));
  });
  return { ...run, units: writers * turns };
}

async function ingest(store: MessageStore, writers: number, batches: number): Promise<Run> {
  const run = await concurrently(store, writers, batches, async (conversation, b) => {
    await store.storeMessages(
      Array.from({ length: 100 }, (_, k) =>
        messageInput(`${conversation}-${b}-${k}`, conversation, b * 100 + k),
      ),
    );
  });
  return { ...run, units: writers * batches * 100 };
}

const rate = (value: number) => Math.round(value).toLocaleString("en-US");
const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

export async function writersBench(argv: string[]): Promise<void> {
  const o = parse(argv);
  const log = (s: string) =>
    console.error(`[writers ${new Date().toISOString().slice(11, 19)}] ${s}`);
  const server = await postgresForTests();
  const dsn = await createTestDatabase(server.url, "writers");
  const poolMax = Math.max(...o.writers);
  const layouts: Layout[] = [
    {
      label: "default",
      store: await PostgresMessageStore.open({ dsn, schema: "plain", pool_max: poolMax }),
    },
    {
      label: `${o.partitions} partitions`,
      store: await PostgresMessageStore.open({
        dsn,
        schema: "parted",
        partitions: o.partitions,
        pool_max: poolMax,
      }),
    },
  ];
  const workloads = [
    {
      name: "turn loop",
      unit: "turns/s",
      run: (s: MessageStore, w: number) => turnLoop(s, w, o.turns),
    },
    {
      name: "ingest (batches of 100)",
      unit: "messages/s",
      run: (s: MessageStore, w: number) => ingest(s, w, o.batches),
    },
  ];
  // results[workload][writers][layout] = the runs of the rounds
  const results = workloads.map(() => o.writers.map(() => layouts.map((): Run[] => [])));
  try {
    // Warm-up: each store's statements prepared and its pool open.
    for (const l of layouts) await turnLoop(l.store, poolMax, 2);
    for (let round = 0; round < o.rounds; round++) {
      for (const [wi, work] of workloads.entries()) {
        for (const [ni, writers] of o.writers.entries()) {
          const order = (round + ni) % 2 === 0 ? [0, 1] : [1, 0];
          for (const li of order) {
            results[wi]![ni]![li]!.push(await work.run(layouts[li]!.store, writers));
          }
          log(`round ${round + 1}: ${work.name}, ${writers} writers`);
        }
      }
    }
    print(o, layouts, workloads, results, server.url);
  } finally {
    for (const l of layouts) await l.store.close();
    await dropTestDatabase(dsn).catch(() => {});
    await server.stop();
  }
}

function print(
  o: Options,
  layouts: Layout[],
  workloads: { name: string; unit: string }[],
  results: Run[][][][],
  url: string,
): void {
  console.log(
    `\n${o.rounds} rounds; turn loop: ${o.turns} turns a writer; ingest: ${o.batches} batches of 100 a writer; load average ${loadavg()[0]!.toFixed(2)}; server ${url.replace(/\/\/[^@]*@/, "//")}\n`,
  );
  const [a, b] = layouts;
  console.log(
    `| workload | writers | ${a!.label} | ${b!.label} | ${b!.label} ÷ ${a!.label} | p50 of one turn or batch, ms (${a!.label} / ${b!.label}) |`,
  );
  console.log("|---|--:|--:|--:|--:|--:|");
  for (const [wi, work] of workloads.entries()) {
    for (const [ni, writers] of o.writers.entries()) {
      const perLayout = results[wi]![ni]!.map((rs) => ({
        rate: median(rs.map((r) => r.units / r.seconds)),
        p50: median(rs.flatMap((r) => r.latencies)),
      }));
      const [x, y] = perLayout;
      console.log(
        `| ${work.name} | ${writers} | ${rate(x!.rate)} ${work.unit} | ${rate(y!.rate)} ${work.unit} | ${fmt(y!.rate / x!.rate, 2)}× | ${fmt(x!.p50)} / ${fmt(y!.p50)} |`,
      );
    }
  }
}

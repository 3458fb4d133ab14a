import { loadavg } from "node:os";
import { PostgresMessageStore } from "@message-store/postgres";
import {
  createTestDatabase,
  dropTestDatabase,
  postgresForTests,
} from "@message-store/test-servers";
import pg from "pg";
import { loader } from "./adapters/postgres.js";
import {
  PER_CONVERSATION,
  syntheticIds,
  syntheticMessage,
  syntheticTrace,
  TRACE_EVERY,
  traceMessageIndex,
} from "./adapters/synthetic.js";
import { fmt, type Stat, sampleRotating, summarize } from "./stats.js";

/**
 * `scale [--messages 1000000] [--partitions 16] [--iterations 2000] [--ingest 5000]`: issue #18's
 * scale scenario. One database of the embedded PostgreSQL 18 (or MESSAGE_STORE_POSTGRES_URL)
 * holds the synthetic dataset twice, in schema `plain` (the default layout) and in schema
 * `parted` (the partitioned layout, `--partitions` hash partitions), loaded by the bench's
 * server-side loader. Every call is then timed on three stores, rotating call by call (each goes
 * first equally often, so drift hits all alike), on random conversations and ids: the default
 * layout, the partitioned one, and the partitioned one again on connections that set
 * `plan_cache_mode = force_generic_plan` (as `ALTER ROLE … SET` would). The calls: the context
 * window, a transcript page, ingest (turns one by one, batches of 100, traces), and the calls
 * keyed only by a message id. Both schemas are read into the OS page cache first (see
 * `prewarm`). Prints markdown tables (recorded under Findings).
 */

interface Options {
  messages: number;
  partitions: number;
  iterations: number;
  ingest: number;
}

function parse(argv: string[]): Options {
  const o: Options = { messages: 1_000_000, partitions: 16, iterations: 2000, ingest: 5000 };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], Number(argv[i + 1])];
    if (!Number.isInteger(value) || value <= 0) throw new Error(`${key} needs a positive integer`);
    if (key === "--messages") o.messages = value;
    else if (key === "--partitions") o.partitions = value;
    else if (key === "--iterations") o.iterations = value;
    else if (key === "--ingest") o.ingest = value;
    else throw new Error(`unknown option ${key}`);
  }
  return o;
}

/** Deterministic pseudo-random integers in [0, n) (xorshift32). */
function picker(seed: number): (n: number) => number {
  let x = seed | 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

interface Layout {
  label: string;
  /** Tells the stores' own writes apart (two of them share the partitioned schema). */
  key: string;
  schema: string;
  store: PostgresMessageStore;
  /** The store's pool (ours to end), and one for the loader and sizes. */
  own: pg.Pool;
  pool: pg.Pool;
  loadSeconds: number;
  bytes: number;
}

/** A store on `schema`; `settings` are server settings of its connections (`-c …`). */
async function open(
  dsn: string,
  schema: string,
  label: string,
  partitions?: number,
  settings = "",
): Promise<Layout> {
  const own = new pg.Pool({ connectionString: dsn, max: 4, options: settings || undefined });
  own.on("error", () => {});
  const store = await PostgresMessageStore.open({ pool: own, schema, partitions });
  const pool = new pg.Pool({ connectionString: dsn, max: 2, options: `-c search_path=${schema}` });
  pool.on("error", () => {});
  const key = label.replace(/\W+/g, "-");
  return { label, key, schema, store, own, pool, loadSeconds: 0, bytes: 0 };
}

async function load(layout: Layout, o: Options, log: (s: string) => void): Promise<void> {
  const started = performance.now();
  const traces = Math.floor(o.messages / TRACE_EVERY);
  const counts = { messages: 0, traces: 0 };
  const bulk = loader(layout.pool, counts);
  // In steps of a million, so that a long load shows progress.
  for (let m = Math.min(o.messages, 1_000_000); ; m = Math.min(o.messages, m + 1_000_000)) {
    await bulk.grow({ messages: m, traces: Math.floor(m / TRACE_EVERY) });
    log(`  ${layout.label}: ${m.toLocaleString("en-US")} messages loaded`);
    if (m === o.messages) break;
  }
  if (counts.traces !== traces) throw new Error("the loader stopped short");
  layout.loadSeconds = (performance.now() - started) / 1000;
  const { rows } = await layout.pool.query(
    `SELECT sum(pg_total_relation_size(c.oid))::bigint AS bytes FROM pg_class c
      WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r'`,
    [layout.schema],
  );
  layout.bytes = Number(rows[0].bytes);
}

/**
 * Reads every table and index of both schemas into the OS page cache (`pg_prewarm(…, 'read')`),
 * the one loaded first last, so that neither layout is measured colder than the other just for
 * having been loaded earlier. Both must fit in memory for that (10M messages: ~17 GiB).
 */
async function prewarm(layouts: Layout[], log: (s: string) => void): Promise<void> {
  const pool = layouts[0]!.pool;
  await pool.query("CREATE EXTENSION IF NOT EXISTS pg_prewarm");
  for (const schema of [...new Set(layouts.map((l) => l.schema))].reverse()) {
    const started = performance.now();
    await pool.query(
      `SELECT sum(pg_prewarm(c.oid, 'read')) FROM pg_class c
        WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'i', 't')`,
      [schema],
    );
    log(`  ${schema}: prewarmed in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}

interface Row {
  call: string;
  /** One per store, in the order of the layouts. */
  stats: Stat[];
}

/** Times `call` on every store, rotating; `call(layout, i)` gets the iteration (< 0: warm-up). */
async function compare(
  name: string,
  layouts: Layout[],
  iterations: number,
  call: (layout: Layout, i: number) => Promise<unknown>,
): Promise<Row> {
  for (let i = 0; i < Math.min(50, iterations); i++) {
    for (const layout of layouts) await call(layout, -1 - i);
  }
  const samples = await sampleRotating(iterations, (i) =>
    layouts.map((layout) => () => call(layout, i)),
  );
  return { call: name, stats: samples.map(summarize) };
}

export async function scaleBench(argv: string[]): Promise<void> {
  const o = parse(argv);
  const log = (s: string) =>
    console.error(`[scale ${new Date().toISOString().slice(11, 19)}] ${s}`);
  const server = await postgresForTests();
  const dsn = await createTestDatabase(server.url, "scale");
  const layouts: Layout[] = [
    await open(dsn, "plain", "default"),
    await open(dsn, "parted", `${o.partitions} partitions`, o.partitions),
    await open(
      dsn,
      "parted",
      `${o.partitions} partitions, generic plans`,
      o.partitions,
      "-c plan_cache_mode=force_generic_plan",
    ),
  ];
  try {
    for (const layout of layouts.slice(0, 2)) await load(layout, o, log);
    await prewarm(layouts, log);
    const conversations = o.messages / PER_CONVERSATION;
    const traces = Math.floor(o.messages / TRACE_EVERY);
    const pick = picker(7);
    // Same random picks for both layouts: iteration i uses pick number i (negative: warm-up).
    const most = Math.max(o.iterations, o.ingest);
    const picks = Array.from({ length: most + 50 }, () => pick(1 << 30));
    const at = (i: number, n: number) => picks[i < 0 ? most - i - 1 : i]! % n;
    const conv = (i: number) => syntheticIds.conversation(at(i, conversations));
    const rows: Row[] = [];
    const run = async (name: string, n: number, call: Parameters<typeof compare>[3]) => {
      log(name);
      rows.push(await compare(name, layouts, n, call));
    };
    await run("getImmediateContext(20)", o.iterations, ({ store: s }, i) =>
      s.getImmediateContext(conv(i), 20),
    );
    await run("getMessagesByConversationId(limit 50)", o.iterations, ({ store: s }, i) =>
      s.getMessagesByConversationId(conv(i), { limit: 50 }),
    );
    await run("getConversation", o.iterations, ({ store: s }, i) => s.getConversation(conv(i)));
    await run("getMessage (id only)", o.iterations, ({ store: s }, i) =>
      s.getMessage(syntheticIds.message(at(i, o.messages))),
    );
    await run("getTurnTraceByMessageId (id only)", o.iterations, ({ store: s }, i) =>
      s.getTurnTraceByMessageId(syntheticIds.message(traceMessageIndex(at(i, traces)))),
    );
    await run("flagMessage(false) (id only, a write)", o.iterations, ({ store: s }, i) =>
      s.flagMessage(syntheticIds.message(at(i, o.messages)), false),
    );
    // Ingest: new messages after the loaded ones; each layout writes the same records.
    let next = o.messages;
    const fresh = new Map<string, number>();
    const newIndex = (layout: Layout, i: number) => {
      const key = `${layout.key}:${i}`;
      if (!fresh.has(key)) fresh.set(key, next++);
      return fresh.get(key)!;
    };
    // A turn: one new message into an existing conversation (ids beyond the loaded ones).
    await run("storeMessage (a turn, new id)", o.ingest, (layout, i) => {
      const s = layout.store;
      const c = at(i, conversations);
      const g = newIndex(layout, i);
      return s.storeMessage({
        ...syntheticMessage(c * PER_CONVERSATION),
        id: `turn-${g}`,
        timestamp: syntheticMessage(c * PER_CONVERSATION).timestamp + 1e9 + g,
      });
    });
    // The trace of each of those turns.
    await run("storeTurnTrace (new trace)", o.ingest, ({ store: s, key }, i) => {
      const g = fresh.get(`${key}:${i}`)!;
      const base = syntheticTrace(at(i, conversations) * PER_CONVERSATION + 1);
      return s.storeTurnTrace({ ...base, id: `turn-trace-${g}`, messageId: `turn-${g}` });
    });
    const batches = Math.max(10, Math.floor(o.ingest / 100));
    // New conversations, apart for each store (two of them share the partitioned schema).
    await run("storeConversation + storeMessages(100), new conversation", batches, async (l, i) => {
      const c =
        conversations + 1 + layouts.indexOf(l) * (batches + 100) + (i < 0 ? batches - i : i);
      const base = syntheticMessage(c * PER_CONVERSATION);
      await l.store.storeConversation({
        id: base.conversationId,
        userId: base.userId,
        createdAt: 1,
      });
      await l.store.storeMessages(
        Array.from({ length: 100 }, (_, k) => syntheticMessage(c * PER_CONVERSATION + k)),
      );
    });
    await run("deleteMessage (id only, a write)", o.ingest, ({ store: s, key }, i) =>
      s.deleteMessage(`turn-${fresh.get(`${key}:${i}`)}`),
    );
    print(o, layouts, rows, server.url);
  } finally {
    for (const layout of layouts) {
      await layout.store.close();
      await layout.own.end();
      await layout.pool.end();
    }
    await dropTestDatabase(dsn).catch(() => {});
    await server.stop();
  }
}

function print(o: Options, layouts: Layout[], rows: Row[], url: string): void {
  const gib = (b: number) => `${(b / 2 ** 30).toFixed(2)} GiB`;
  console.log(
    `\n${o.messages.toLocaleString("en-US")} messages in ${(o.messages / PER_CONVERSATION).toLocaleString("en-US")} conversations, ${Math.floor(o.messages / TRACE_EVERY).toLocaleString("en-US")} traces; ${o.iterations} calls per read, ${o.ingest} per write; both layouts prewarmed; load average ${loadavg()[0]!.toFixed(2)}; server ${url.replace(/\/\/[^@]*@/, "//")}\n`,
  );
  console.log("| layout | bulk load (loader, VACUUM ANALYZE) | tables + indexes |");
  console.log("|---|---|---|");
  for (const l of layouts.slice(0, 2))
    console.log(`| ${l.label} | ${l.loadSeconds.toFixed(0)} s | ${gib(l.bytes)} |`);
  const others = layouts.slice(1);
  console.log(
    `\n| call | ${layouts.map((l) => `${l.label} p50 ms`).join(" | ")} | ${others.map((l) => `${l.label} ÷ default`).join(" | ")} | ${layouts.map((l) => `${l.label} p99`).join(" | ")} |`,
  );
  console.log(`|---|${"---|".repeat(layouts.length * 2 + others.length)}`);
  for (const r of rows) {
    const base = r.stats[0]!.p50;
    const ratios = r.stats.slice(1).map((st) => `${fmt(st.p50 / base, 2)}×`);
    console.log(
      `| ${r.call} | ${r.stats.map((st) => fmt(st.p50)).join(" | ")} | ${ratios.join(" | ")} | ${r.stats.map((st) => fmt(st.p99)).join(" | ")} |`,
    );
  }
}

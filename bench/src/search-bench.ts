import { loadavg } from "node:os";
import type { Message, MessageStore, SearchQueryInput } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import { PostgresMessageStore } from "@message-store/postgres";
import { postgresForTests, startPgliteServer } from "@message-store/test-servers";
import pg from "pg";
import { sampleSearches } from "./search-previous.js";
import { fmt, type Stat, timed } from "./stats.js";

/**
 * `node bench/dist/index.js search [--messages 50000] [--dims 1536] [--users 100]
 * [--iterations 20] [--filters user,none] [--none-iterations 3] [--shared-buffers 2GB|none]
 * [--warm] [--targets json,postgres,pglite]`: issue #15's search scenario. Top-10 of `messages` embedded
 * messages, with a user filter and (`none`) without, on the JSON adapter, PostgreSQL with float8[]
 * (embedded 18 or MESSAGE_STORE_POSTGRES_URL) and PostgreSQL with pgvector (PGlite); the
 * PostgreSQL rows also time the float8[] statement the adapter sent before #15 on the same tables,
 * interleaved call by call, and give the ratio to it. The embedded server is measured at its
 * default `shared_buffers` (128MB, far below the table), then restarted with `--shared-buffers`
 * (a server sized for its working set, read once to warm it) and measured again. Prints a table.
 */

interface Options {
  messages: number;
  dims: number;
  users: number;
  iterations: number;
  noneIterations: number;
  filters: ("user" | "none")[];
  sharedBuffers: string | null;
  /** Read the table once before the first measurement (an external server sized to hold it). */
  warm: boolean;
  targets: string[];
}

function parse(argv: string[]): Options {
  const o: Options = {
    messages: 50_000,
    dims: 1536,
    users: 100,
    iterations: 20,
    noneIterations: 3,
    filters: ["user"],
    sharedBuffers: "2GB",
    warm: false,
    targets: ["json", "postgres", "pglite"],
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1] ?? ""];
    if (key === "--warm") {
      o.warm = true;
      i--;
    } else if (key === "--targets") o.targets = value.split(",");
    else if (key === "--messages") o.messages = Number(value);
    else if (key === "--dims") o.dims = Number(value);
    else if (key === "--users") o.users = Number(value);
    else if (key === "--iterations") o.iterations = Number(value);
    else if (key === "--none-iterations") o.noneIterations = Number(value);
    else if (key === "--filters") o.filters = value.split(",") as Options["filters"];
    else if (key === "--shared-buffers") o.sharedBuffers = value === "none" ? null : value;
    else throw new Error(`unknown option ${key}`);
  }
  return o;
}

/** Deterministic pseudo-random vectors (xorshift32), 4 decimals so that loading stays cheap. */
function vectors(seed: number, dims: number): () => number[] {
  let x = seed | 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return ((x >>> 0) / 2 ** 32) * 2 - 1;
  };
  return () => Array.from({ length: dims }, () => Math.round(next() * 1e4) / 1e4);
}

async function load(store: MessageStore, o: Options, log: (s: string) => void): Promise<void> {
  for (let u = 0; u < o.users; u++) {
    await store.storeConversation({ id: `c${u}`, userId: `u${u}`, createdAt: 1 });
  }
  const next = vectors(42, o.dims);
  const batch = 250;
  for (let start = 0; start < o.messages; start += batch) {
    const messages: Message[] = [];
    for (let i = start; i < Math.min(o.messages, start + batch); i++) {
      messages.push({
        id: `m${String(i).padStart(6, "0")}`,
        conversationId: `c${i % o.users}`,
        userId: `u${i % o.users}`,
        role: "user",
        originalContent: `message ${i}`,
        timestamp: i,
        embedding: next(),
      } as Message);
    }
    await store.storeMessages(messages);
    if ((start / batch) % 40 === 0) log(`  loaded ${start + messages.length}`);
  }
}

interface Row {
  target: string;
  filter: string;
  ours: Stat;
  previous?: Stat;
  sameIds: number;
  load: number;
  loadAvg: number;
}

/**
 * Loads through the store with the schema's HNSW indexes dropped, then recreates them from their
 * own definitions (`pg_get_indexdef`), as pgvector's docs advise for bulk loads: the rows are
 * exactly what the store writes, and the index is built once instead of maintained per insert
 * (~80 ms a message on PGlite). The index build is part of the load time.
 */
async function loadWithoutHnsw(
  store: MessageStore,
  o: Options,
  client: pg.Client,
  schema: string,
  log: (s: string) => void,
): Promise<void> {
  const { rows } = await client.query<{ name: string; def: string }>(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = $1 AND indexdef ILIKE '%USING hnsw%'`,
    [schema],
  );
  for (const r of rows) await client.query(`DROP INDEX "${schema}"."${r.name}"`);
  await load(store, o, log);
  for (const r of rows) {
    log(`  building ${r.name}`);
    await client.query(r.def);
  }
  await client.query(`ANALYZE "${schema}".messages`);
}

/** One row per filter: probes differ per search, and so does the user (37 is prime to 100). */
async function measure(
  target: string,
  store: MessageStore,
  o: Options,
  loadMs: number,
  previous: { client: pg.Client; schema: string } | null,
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const filter of o.filters) {
    const probes = vectors(7, o.dims);
    const query = (i: number): SearchQueryInput => ({
      embedding: probes(),
      ...(filter === "user" ? { userId: `u${(i * 37) % o.users}` } : {}),
      limit: 10,
    });
    const n = filter === "user" ? o.iterations : o.noneIterations;
    const r = await sampleSearches(store, query, n, previous);
    const scope = filter === "user" ? `user (${o.messages / o.users} rows)` : "none";
    rows.push({ target, filter: scope, ...r, load: loadMs, loadAvg: loadavg()[0]! });
  }
  return rows;
}

async function openStore(url: string, schema: string, pglite: boolean) {
  return PostgresMessageStore.open({
    dsn: url,
    schema,
    pool_min: 0,
    pool_max: pglite ? 1 : 4,
    // PGlite shares one backend session between connections: no named statements there.
    prepared_statements: !pglite,
  });
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Reads every embedding (and its cubes, where migration 4 added them) once. */
async function warm(client: pg.Client, schema: string): Promise<void> {
  const { rows } = await client.query(
    `SELECT 1 FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding_cubes'`,
    [`"${schema}".messages`],
  );
  const cubes = rows.length > 0 ? " + coalesce(cardinality(embedding_cubes), 0)" : "";
  await client.query(`SELECT sum(cardinality(embedding)${cubes}) FROM "${schema}".messages`);
}

/**
 * Loads once, measures at the server's `shared_buffers`, then (embedded server only) restarts it
 * with `o.sharedBuffers`, warms it and measures again.
 */
async function onPostgres(
  target: string,
  server: { url: string; restart: (() => Promise<void>) | null },
  o: Options,
  log: (s: string) => void,
): Promise<Row[]> {
  const schema = `bench_search_${Date.now().toString(36)}`;
  const pglite = target.includes("PGlite");
  let store = await openStore(server.url, schema, pglite);
  let client = await connect(server.url);
  const rows: Row[] = [];
  const label = async () => {
    const { rows: r } = await client.query("SHOW shared_buffers");
    return `${target}, shared_buffers ${r[0].shared_buffers}`;
  };
  try {
    log(`${target}: pgvector ${store.driver.usesPgvector ? "on" : "off"}`);
    const loadMs = await timed(() => loadWithoutHnsw(store, o, client, schema, log));
    if (o.warm) await warm(client, schema);
    const first = `${await label()}${o.warm ? ", warm" : ""}`;
    rows.push(...(await measure(first, store, o, loadMs, { client, schema })));
    if (server.restart && o.sharedBuffers) {
      await store.close();
      await client.query(`ALTER SYSTEM SET shared_buffers = '${o.sharedBuffers}'`);
      await client.end();
      log(`  restarting with shared_buffers ${o.sharedBuffers}`);
      await server.restart();
      store = await openStore(server.url, schema, pglite);
      client = await connect(server.url);
      await warm(client, schema);
      rows.push(...(await measure(`${await label()}, warm`, store, o, loadMs, { client, schema })));
    }
    return rows;
  } finally {
    await store.close();
    await client.query(`DROP SCHEMA "${schema}" CASCADE`).catch(() => {});
    await client.end();
  }
}

async function run(target: string, o: Options, log: (s: string) => void): Promise<Row[]> {
  if (target === "json") {
    const store = await JsonMessageStore.open({ path: ":memory:" });
    try {
      const loadMs = await timed(() => load(store, o, log));
      return await measure("JSON (in memory)", store, o, loadMs, null);
    } finally {
      await store.close();
    }
  }
  if (target === "postgres") {
    const pgServer = await postgresForTests();
    const embedded = pgServer.server;
    const restart = embedded
      ? async () => {
          await embedded.stop({ keepData: true });
          await embedded.start();
        }
      : null;
    const name = embedded ? "PostgreSQL float8[] (embedded 18)" : "PostgreSQL float8[]";
    try {
      return await onPostgres(name, { url: pgServer.url, restart }, o, log);
    } finally {
      await pgServer.stop();
    }
  }
  if (target === "pglite") {
    const server = await startPgliteServer();
    try {
      return await onPostgres(
        "PostgreSQL pgvector (PGlite, HNSW)",
        { url: server.url, restart: null },
        o,
        log,
      );
    } finally {
      await server.stop();
    }
  }
  throw new Error(`unknown target ${target}`);
}

/** Runs the scenario and prints the table. */
export async function searchBench(argv: string[]): Promise<void> {
  const o = parse(argv);
  const log = (s: string) => console.log(s);
  const rows: Row[] = [];
  for (const target of o.targets) {
    log(`${target}: ${o.messages} messages × ${o.dims} dims, ${o.users} users`);
    rows.push(...(await run(target, o, log)));
  }
  console.log(
    `\n${o.messages} messages × ${o.dims} dims, ${o.users} users (${o.messages / o.users} each), top-10, ${o.iterations} searches per row with a user filter, ${o.noneIterations} without, ${new Date().toISOString().slice(0, 10)}\n`,
  );
  console.log(
    "| target | filter | load (s) | search p50 (ms) | p99 | previous float8[] query p50 | previous ÷ ours | same hits | load avg |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const ratio = r.previous ? `${(r.previous.p50 / r.ours.p50).toFixed(1)}×` : "–";
    const same = r.previous ? `${r.sameIds}/${r.ours.n}` : "–";
    console.log(
      `| ${r.target} | ${r.filter} | ${fmt(r.load / 1000)} | ${fmt(r.ours.p50)} | ${fmt(r.ours.p99)} | ${fmt(r.previous?.p50)} | ${ratio} | ${same} | ${r.loadAvg.toFixed(1)} |`,
    );
  }
}

import type { Message, MessageStore, SearchQueryInput } from "@message-store/core";
import { JsonMessageStore } from "@message-store/json";
import { PostgresMessageStore } from "@message-store/postgres";
import { postgresForTests, startPgliteServer } from "@message-store/test-servers";
import pg from "pg";
import { fmt, type Stat, sampleInterleaved, summarize, timed } from "./stats.js";

/**
 * `node bench/dist/index.js search [--messages 50000] [--dims 1536] [--users 100]
 * [--iterations 20] [--targets json,postgres,pglite]`: issue #15's search scenario. Top-10 of
 * `messages` embedded messages with a user filter, on the JSON adapter, PostgreSQL with float8[]
 * (embedded 18 or MESSAGE_STORE_POSTGRES_URL) and PostgreSQL with pgvector (PGlite); the
 * PostgreSQL rows also time the float8[] query the adapter sent before (kept below, verbatim but
 * for the column list) on the same tables, and give the ratio to it. Prints a markdown table.
 */

/** The search statement of @message-store/postgres before #15 (user filter), for the ratio. */
function previousQuery(schema: string): string {
  return `(SELECT m.*, sim.score FROM "${schema}".messages m
 CROSS JOIN LATERAL (
   SELECT CASE WHEN sum(a * a) = 0 OR sum(b * b) = 0 THEN 0::float8
               ELSE sum(a * b) / sqrt(sum(a * a) * sum(b * b)) END AS score
     FROM unnest(embedding, $3::float8[]) AS u(a, b)
 ) sim
 WHERE NOT is_flagged AND cardinality(embedding) = $1 AND user_id = $2
   AND (SELECT bool_and(x = 0 OR abs(x) BETWEEN 1e-75 AND 1e70) FROM unnest(embedding) AS x)
 ORDER BY floor(sim.score * 1e9::float8 + 0.5) DESC, id LIMIT $4)
UNION ALL
SELECT m.*, NULL::float8 AS score FROM "${schema}".messages m
 WHERE NOT is_flagged AND cardinality(embedding) = $1 AND user_id = $2
   AND NOT (SELECT bool_and(x = 0 OR abs(x) BETWEEN 1e-75 AND 1e70) FROM unnest(embedding) AS x)`;
}

interface Options {
  messages: number;
  dims: number;
  users: number;
  iterations: number;
  targets: string[];
}

function parse(argv: string[]): Options {
  const o: Options = {
    messages: 50_000,
    dims: 1536,
    users: 100,
    iterations: 20,
    targets: ["json", "postgres", "pglite"],
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [key, value] = [argv[i], argv[i + 1] ?? ""];
    if (key === "--targets") o.targets = value.split(",");
    else if (key === "--messages") o.messages = Number(value);
    else if (key === "--dims") o.dims = Number(value);
    else if (key === "--users") o.users = Number(value);
    else if (key === "--iterations") o.iterations = Number(value);
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
  ours: Stat;
  previous?: Stat;
  load: number;
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

async function measure(
  target: string,
  store: MessageStore,
  o: Options,
  previous: { client: pg.Client; schema: string } | null,
  log: (s: string) => void,
): Promise<Row> {
  const loadMs = await timed(() =>
    previous
      ? loadWithoutHnsw(store, o, previous.client, previous.schema, log)
      : load(store, o, log),
  );
  const probes = vectors(7, o.dims);
  const query = (i: number): SearchQueryInput => ({
    embedding: probes(),
    userId: `u${(i * 37) % o.users}`,
    limit: 10,
  });
  await store.searchMessages(query(0)); // warm-up
  if (!previous) {
    const samples: number[] = [];
    for (let i = 0; i < o.iterations; i++) {
      const q = query(i);
      samples.push(await timed(() => store.searchMessages(q)));
    }
    return { target, ours: summarize(samples), load: loadMs };
  }
  const text = previousQuery(previous.schema);
  const { ours, raw } = await sampleInterleaved(o.iterations, (i) => {
    const q = query(i);
    return {
      ours: () => store.searchMessages(q),
      raw: () => previous.client.query(text, [o.dims, q.userId, q.embedding, 10]),
    };
  });
  return { target, ours: summarize(ours), previous: summarize(raw), load: loadMs };
}

async function onPostgres(
  target: string,
  url: string,
  o: Options,
  log: (s: string) => void,
): Promise<Row> {
  const schema = `bench_search_${Date.now().toString(36)}`;
  const store = await PostgresMessageStore.open({
    dsn: url,
    schema,
    pool_min: 0,
    pool_max: target === "pglite" ? 1 : 4,
    // PGlite shares one backend session between connections: no named statements there.
    prepared_statements: target !== "pglite",
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    log(`${target}: pgvector ${store.usesPgvector ? "on" : "off"}`);
    return await measure(target, store, o, { client, schema }, log);
  } finally {
    await store.close();
    await client.query(`DROP SCHEMA "${schema}" CASCADE`).catch(() => {});
    await client.end();
  }
}

/** Runs the scenario and prints the table. */
export async function searchBench(argv: string[]): Promise<void> {
  const o = parse(argv);
  const log = (s: string) => console.log(s);
  const rows: Row[] = [];
  for (const target of o.targets) {
    log(`${target}: ${o.messages} messages × ${o.dims} dims, ${o.users} users`);
    if (target === "json") {
      const store = await JsonMessageStore.open({ path: ":memory:" });
      try {
        rows.push(await measure("JSON (in memory)", store, o, null, log));
      } finally {
        await store.close();
      }
    } else if (target === "postgres") {
      const server = await postgresForTests();
      try {
        rows.push(await onPostgres("PostgreSQL float8[]", server.url, o, log));
      } finally {
        await server.stop();
      }
    } else if (target === "pglite") {
      const server = await startPgliteServer();
      try {
        rows.push(await onPostgres("pglite", server.url, o, log));
        rows.at(-1)!.target = "PostgreSQL pgvector (PGlite, HNSW)";
      } finally {
        await server.stop();
      }
    } else {
      throw new Error(`unknown target ${target}`);
    }
  }
  console.log(
    `\n${o.messages} messages × ${o.dims} dims, ${o.users} users (${o.messages / o.users} each), top-10 with a user filter, ${o.iterations} searches each\n`,
  );
  console.log(
    "| target | load (s) | search p50 (ms) | p99 | previous float8[] query p50 | previous ÷ ours |",
  );
  console.log("|---|---|---|---|---|---|");
  for (const r of rows) {
    const ratio = r.previous ? `${(r.previous.p50 / r.ours.p50).toFixed(1)}×` : "–";
    console.log(
      `| ${r.target} | ${fmt(r.load / 1000)} | ${fmt(r.ours.p50)} | ${fmt(r.ours.p99)} | ${fmt(r.previous?.p50)} | ${ratio} |`,
    );
  }
}

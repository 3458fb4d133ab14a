import { loadavg } from "node:os";
import type { Message } from "@message-store/core";
import { PostgresMessageStore } from "@message-store/postgres";
import { BASE_TIME, makeMessage, rng } from "../data.js";
import { ourTableFloor } from "../peers/floor-peer.js";
import { openLangChainPostgres } from "../peers/langchain-peer.js";
import { openMastra } from "../peers/mastra-peer.js";
import { oursAsPeer } from "../peers/ours-peer.js";
import { type PeerSystem, peerRow } from "../peers/peer-system.js";
import type { PeerMeasurement, Scenario } from "../scenario.js";
import { sampleRotating } from "../stats.js";

const BATCH = 100;
const HISTORY = 200;
const BIG_CONVERSATION = 1000;
const N = 20;

/** The messages of one conversation of a system, converted before the clock starts. */
export function messagesOf(
  system: PeerSystem,
  conversation: string,
  count: number,
  from = 0,
): unknown[] {
  const random = rng(from + 17);
  return Array.from({ length: count }, (_, k) => {
    const n = from + k;
    const id = `${conversation}-m-${String(n).padStart(7, "0")}`;
    const m: Message = makeMessage(id, conversation, "user-peers", n, BASE_TIME + n * 1000, random);
    return system.convert(m);
  });
}

/** Conversation id of system `s` (each system has its own tables, the ids only need to differ). */
export const conv = (s: PeerSystem, tag: string) =>
  `${s.name.toLowerCase().replace(/[^a-z]+/g, "-")}-${tag}`;

/** Per-row size of the tables each system wrote, after the big store was loaded. */
async function bytesPerMessage(pool: import("pg").Pool): Promise<string> {
  const tables = [
    ["ours", "messages"],
    ["Mastra", "mastra_messages"],
    ["LangChain", "langchain_chat_histories"],
  ];
  const parts: string[] = [];
  for (const [name, table] of tables) {
    const { rows } = await pool.query(
      `SELECT count(*)::float8 AS n, pg_total_relation_size('${table}')::float8 AS total,
              pg_relation_size('${table}')::float8 AS heap FROM ${table}`,
    );
    const { n, total, heap } = rows[0] as { n: number; total: number; heap: number };
    parts.push(
      `${name} ${Math.round(total / n)} B per message with indexes (heap ${Math.round(heap / n)} B)`,
    );
  }
  return parts.join("; ");
}

export const peersPostgres: Scenario = {
  id: "peers",
  title: "7. PostgreSQL vs peers (Mastra, LangChain)",
  description: `Our PostgreSQL adapter against \`@mastra/pg\` (\`PostgresStore\`, memory domain) and \`@langchain/community\` (\`PostgresChatMessageHistory\`) on the same server and database, each on its own pool of the run's size, used as their docs show (see \`bench/src/peers/\`). Calls are interleaved call by call, the system that goes first rotating. Ingest: ${BATCH} messages of one conversation per call through each batch API (ours \`storeMessages\`, Mastra \`saveMessages\`, LangChain \`addMessages\`). Append: one message (\`storeMessage\`, \`saveMessages([m])\`, \`addMessage\`). Read: the newest ${N} messages oldest first (\`getImmediateContext(${N})\`; Mastra \`listMessages({ perPage: ${N}, orderBy: createdAt DESC, includeTotal: false })\` reversed; LangChain \`getMessages()\` sliced, its only read). Big store: conversations of ${BIG_CONVERSATION.toLocaleString("en-US")} messages loaded into each system (setup: ours and LangChain by one INSERT per conversation, Mastra by its own \`saveMessages\`), then \`VACUUM ANALYZE\`. Every system gets the same text, role, time and ids; ours also stores the rest of our record (entities, tool calls, metadata…), which the peers have no columns for. Whole turn: append the user's message, read the last ${N}, append the answer, in a conversation of 200 messages per system. The next column is our same store opened with \`prepared_statements: false\` (what a transaction-mode pooler gets), reading ours' conversations; then our own tables written and read by plain hand-written SQL with none of the store's rules (the floor of our schema, see \`bench/src/peers/floor-peer.ts\`); with \`BENCH_POSTGRES_PREVIOUS\` set, the last is a build of an earlier commit on the same tables.`,
  adapters: ["postgres"],
  async run({ target, progress, limits, scale }) {
    if (!target.dsn || !target.poolSize || !target.pool)
      throw new Error("the peers scenario needs a PostgreSQL target");
    await target.reset();
    const pool = target.pool;
    const load = [loadavg()[0]!];
    const ours = oursAsPeer(
      () => target.store,
      "24 columns (our record: ids, role, text, JSONB entities/tool calls/metadata…, seq) through `ms_write_message(s)` (one message as typed parameters; a batch as one set-based statement over its JSON): locks the conversation, checks every rule, advances its last_message_at; one statement, one round trip (the server commits at the Sync sent with it: see the adapter README, Timeouts)",
      (records) => target.raw.storeMessages(records),
    );
    // A build of an earlier commit of the adapter, on the same tables, for before/after rows in
    // one interleaved run (`BENCH_POSTGRES_PREVIOUS=<its dist/index.js>`).
    const previousModule = process.env.BENCH_POSTGRES_PREVIOUS;
    const previous = previousModule
      ? await (
          (await import(previousModule)) as { PostgresMessageStore: typeof PostgresMessageStore }
        ).PostgresMessageStore.open({
          storage: "postgres",
          dsn: target.dsn,
          pool_min: 0,
          pool_max: target.poolSize,
        })
      : null;
    const oursPrevious =
      previous &&
      oursAsPeer(
        () => previous,
        `the same as ours, by the build at ${process.env.BENCH_POSTGRES_PREVIOUS_LABEL ?? previousModule}`,
        (records) => target.raw.storeMessages(records),
        "ours, previous build",
      );
    // The same store with unnamed statements: what a transaction-mode pooler gets.
    const unprepared = await PostgresMessageStore.open({
      storage: "postgres",
      dsn: target.dsn,
      pool_min: 0,
      pool_max: target.poolSize,
      prepared_statements: false,
    });
    const oursUnprepared = oursAsPeer(
      () => unprepared,
      "the same as ours",
      (records) => target.raw.storeMessages(records),
      "ours, prepared_statements: false",
    );
    const floor = ourTableFloor(pool, target.raw);
    const mastra = await openMastra(target.dsn, target.poolSize);
    const langchain = await openLangChainPostgres(target.dsn, target.poolSize);
    const systems: PeerSystem[] = [
      ours as PeerSystem,
      mastra as PeerSystem,
      langchain as PeerSystem,
      oursUnprepared as PeerSystem,
      floor as PeerSystem,
      ...(oursPrevious ? [oursPrevious as PeerSystem] : []),
    ];
    const rows: PeerMeasurement[] = [];
    const notes: string[] = [];
    const record = (label: string, samples: number[][]) =>
      rows.push(peerRow("postgres", label, systems, samples));
    try {
      // Ingest: batches of 100 into conversations made beforehand.
      const batches = Math.max(20, Math.round(100 * scale));
      for (const s of systems)
        for (let b = -2; b < batches; b++)
          await s.createConversation(conv(s, `ingest-${b}`), "user-peers");
      for (let b = -2; b < 0; b++)
        for (const s of systems) await s.storeBatch(messagesOf(s, conv(s, `ingest-${b}`), BATCH));
      const ingestTask = progress.task("postgres: peers ingest", batches);
      const ingest = await sampleRotating(
        batches,
        (b) =>
          systems.map((s) => {
            const records = messagesOf(s, conv(s, `ingest-${b}`), BATCH);
            return () => s.storeBatch(records);
          }),
        () => ingestTask.tick(),
      );
      ingestTask.done();
      record(`ingest, batches of ${BATCH} messages (${batches} batches)`, ingest);

      // The turn loop's calls: one conversation of 200 messages per system.
      const appends = Math.max(50, Math.round(500 * scale));
      // The other systems on our tables read ours' conversations instead of loading their own.
      const sharesOurs = (s: PeerSystem) =>
        s === oursUnprepared || s === oursPrevious || s === floor;
      const dataOf = (s: PeerSystem) => (sharesOurs(s) ? ours : s) as PeerSystem;
      const loaded = systems.filter((s) => !sharesOurs(s));
      for (const s of systems) await s.createConversation(conv(s, "append"), "user-peers");
      for (const s of loaded) {
        await s.createConversation(conv(s, "turns"), "user-peers");
        await s.load(messagesOf(s, conv(s, "turns"), HISTORY));
      }
      // As autovacuum would have by the time a table is in use (the plans depend on it).
      await pool.query("VACUUM ANALYZE");
      const appendTask = progress.task("postgres: peers append", appends);
      const append = await sampleRotating(
        appends,
        (i) =>
          systems.map((s) => {
            const [m] = messagesOf(s, conv(s, "append"), 1, i);
            return () => s.append(m);
          }),
        () => appendTask.tick(),
      );
      appendTask.done();
      // Appends went to a conversation of their own, so the read conversation stays at 200.
      record("agent turn: append one message", append);
      const reads = Math.max(50, Math.round(500 * scale));
      const read = await sampleRotating(reads, () =>
        systems.map((s) => () => s.lastN(conv(dataOf(s), "turns"), N)),
      );
      record(`agent turn: read the last ${N} (${HISTORY}-message conversation)`, read);

      // A whole turn: the user's message, the last 20 for the prompt, the answer; each system in
      // a conversation of its own that starts at 200 messages.
      for (const s of systems) {
        await s.createConversation(conv(s, "whole"), "user-peers");
        await s.load(messagesOf(s, conv(s, "whole"), HISTORY));
      }
      await pool.query("VACUUM ANALYZE");
      const turns = Math.max(50, Math.round(300 * scale));
      const turnTask = progress.task("postgres: peers whole turn", turns);
      const whole = await sampleRotating(
        turns,
        (i) =>
          systems.map((s) => {
            const [question, answer] = messagesOf(s, conv(s, "whole"), 2, HISTORY + 2 * i);
            return async () => {
              await s.append(question);
              await s.lastN(conv(s, "whole"), N);
              await s.append(answer);
            };
          }),
        () => turnTask.tick(),
      );
      turnTask.done();
      record(`whole turn: append, read the last ${N}, append`, whole);

      // Big stores.
      const sizes = limits.peerStores;
      let conversationsLoaded = 0;
      for (const size of sizes) {
        const conversations = Math.max(1, Math.round(size / BIG_CONVERSATION));
        const task = progress.task(
          `postgres: peers load ${size.toLocaleString("en-US")}`,
          conversations - conversationsLoaded,
        );
        for (let c = conversationsLoaded; c < conversations; c++) {
          for (const s of loaded) {
            const id = conv(s, `big-${c}`);
            await s.createConversation(id, "user-peers");
            await s.load(messagesOf(s, id, BIG_CONVERSATION));
          }
          task.tick();
        }
        task.done();
        conversationsLoaded = conversations;
        await pool.query("VACUUM ANALYZE");
        const random = rng(size);
        const bigReads = Math.max(30, Math.round(200 * scale));
        const pick = Array.from({ length: bigReads }, () => Math.floor(random() * conversations));
        const big = await sampleRotating(bigReads, (i) =>
          systems.map((s) => () => s.lastN(conv(dataOf(s), `big-${pick[i]}`), N)),
        );
        const total = (conversations * BIG_CONVERSATION).toLocaleString("en-US");
        record(
          `last ${N} of a ${BIG_CONVERSATION.toLocaleString("en-US")}-message conversation, ${total}-message store`,
          big,
        );
        notes.push(`postgres: stored size at ${total} messages: ${await bytesPerMessage(pool)}.`);
      }
      // LangChain creates no index on session_id; what its read costs once one is added by hand.
      await langchain.addIndex();
      const indexed = await sampleRotating(Math.max(30, Math.round(200 * scale)), (i) =>
        systems.map((s) => () => s.lastN(conv(dataOf(s), `big-${i % conversationsLoaded}`), N)),
      );
      const total = (conversationsLoaded * BIG_CONVERSATION).toLocaleString("en-US");
      record(
        `same, ${total}-message store, LangChain with an index on (session_id, id) added by hand`,
        indexed,
      );
    } finally {
      load.push(loadavg()[0]!);
      await mastra.close().catch(() => {});
      await unprepared.close().catch(() => {});
      await previous?.close().catch(() => {});
      await langchain.close().catch(() => {});
      await target.reset();
    }
    notes.push(
      `postgres: load average (1 min) at the start / end of the peers scenario: ${load[0]!.toFixed(2)} / ${load[1]!.toFixed(2)}.`,
      ...systems.map((s) => `postgres: ${s.name} writes per message: ${s.writes}.`),
    );
    return { measurements: [], peers: rows, targets: peerTargets(rows), notes };
  },
};

/** Issue #26's targets against the peers, from this run (rows found by their labels). */
function peerTargets(rows: PeerMeasurement[]) {
  const ratio = (row: PeerMeasurement | undefined, peer: string) => {
    const p = row?.peers.find((x) => x.name === peer);
    return row && p ? p.stat.p50 / row.ours.p50 : Number.NaN;
  };
  const find = (prefix: string) => rows.find((r) => r.label.startsWith(prefix));
  const checks: [string, PeerMeasurement | undefined, string, number][] = [
    ["ingest ≥ 2× Mastra", find("ingest"), "Mastra", 2],
    ["single append ≥ 1.0× LangChain", find("agent turn: append"), "LangChain", 1],
    ["single append ≥ 1.5× Mastra", find("agent turn: append"), "Mastra", 1.5],
    ["last-20 read ≥ 2× Mastra (turn loop)", find("agent turn: read"), "Mastra", 2],
    ...rows
      .filter((r) => r.label.startsWith("last "))
      .map((r): [string, PeerMeasurement, string, number] => [
        `last-20 read ≥ 2× Mastra (${r.label.replace(/.*, /, "")})`,
        r,
        "Mastra",
        2,
      ]),
    ["whole turn ≥ 1.5× Mastra", find("whole turn"), "Mastra", 1.5],
    ["whole turn ≥ 1.5× LangChain", find("whole turn"), "LangChain", 1.5],
  ];
  return checks.map(([name, row, peer, min]) => {
    const r = ratio(row, peer);
    return {
      adapter: "postgres" as const,
      target: name,
      value: `${r.toFixed(2)}×`,
      pass: r >= min,
    };
  });
}

import { MessageSchema, TurnTraceSchema } from "@message-store/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { batchParam, traceParams } from "../src/row-mapping.js";
import { createQueries } from "../src/sql/queries.js";
import { message, openStore, trace, useDatabase } from "./helpers.js";

/**
 * Which partitions each call touches in the partitioned layout (16 partitions), on 20k
 * conversations, one of 40k messages among 40k others, 20k traces, and their id lookups
 * (`id-lookups.ts`). Two views: the plan of the statement the store sends (`EXPLAIN`, with the
 * generic plan a named prepared statement gets after five runs), and the partitions the call
 * read or wrote, counted by PostgreSQL's own per-transaction statistics
 * (`pg_stat_xact_user_tables`), which also see inside the functions. A new message, a trace
 * write and every call keyed by a message id alone touch at most two partitions of a table and
 * its lookup; the context window and a transcript page one.
 */

const PARTITIONS = 16;
/** The owner of conv-7 (conversation i belongs to user-(i % 30)). */
const USER_7 = { userId: "user-7" };
const db = useDatabase("ms_pg_partitioned_plans");
const q = createQueries("public", true);
/** The scope parameters of an unscoped call (see `scopeParams`). */
const ALL = [null, null];
/** The statement of `storeTurnTraces` for a batch. */
const putTraces = (traces: unknown[]) => ({
  text: q.putTraces,
  values: [batchParam(traces.map((t) => TurnTraceSchema.parse(t)))],
});
let store: PostgresMessageStore;
let client: pg.Client;

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Subplans Removed"?: number;
  Plans?: PlanNode[];
}

const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** The partitions of `table` that a plan scans. */
function scanned(plan: PlanNode, table: string): string[] {
  return nodes(plan)
    .map((n) => n["Relation Name"])
    .filter((r): r is string => r?.startsWith(`${table}_p`) === true);
}

/** The plan of `text` as a prepared statement's generic plan: pruning happens at run time. */
async function genericPlan(text: string, values: unknown[]): Promise<PlanNode> {
  await client.query("SET plan_cache_mode = force_generic_plan");
  try {
    await client.query(`PREPARE probe AS ${text}`);
    const literals = values.map((v) => (typeof v === "string" ? `'${v}'` : String(v)));
    const { rows } = await client.query(
      `EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) EXECUTE probe(${literals.join(", ")})`,
    );
    return rows[0]["QUERY PLAN"][0].Plan;
  } finally {
    await client.query("DEALLOCATE ALL; RESET plan_cache_mode");
  }
}

interface Touched {
  /** Partitions read (by any scan) or written, per table. */
  read: Record<string, number>;
  written: Record<string, number>;
  /** Partitions read by a sequential scan, per table (only when asked for). */
  seqScanned?: Record<string, number>;
}

/** Per partition: scans and rows changed so far, as the backend counts them (not yet flushed). */
const COUNTS = `SELECT relname, seq_scan + coalesce(idx_scan, 0) AS scans, seq_scan,
       n_tup_ins + n_tup_upd + n_tup_del AS changes
  FROM pg_stat_xact_user_tables WHERE relname ~ '_p[0-9]+$'`;

/**
 * The partitions a statement read and wrote, rolled back afterwards: the difference of the
 * backend's counts before and after it, within one transaction (the counts may still hold
 * earlier transactions' until they are flushed, which never happens inside a transaction).
 */
async function touched(text: string, values: unknown[], seq = false): Promise<Touched> {
  await client.query("BEGIN");
  try {
    const before = new Map((await client.query(COUNTS)).rows.map((r) => [r.relname, r]));
    await client.query(text, values);
    const result: Touched = { read: {}, written: {}, ...(seq ? { seqScanned: {} } : {}) };
    for (const r of (await client.query(COUNTS)).rows) {
      const was = before.get(r.relname) ?? { scans: 0, changes: 0, seq_scan: 0 };
      const table = r.relname.replace(/_p[0-9]+$/, "");
      if (seq && Number(r.seq_scan) > Number(was.seq_scan)) {
        result.seqScanned![table] = (result.seqScanned![table] ?? 0) + 1;
      }
      if (Number(r.scans) > Number(was.scans)) result.read[table] = (result.read[table] ?? 0) + 1;
      if (Number(r.changes) > Number(was.changes))
        result.written[table] = (result.written[table] ?? 0) + 1;
    }
    return result;
  } finally {
    await client.query("ROLLBACK");
  }
}

beforeAll(async () => {
  store = await openStore(db.url(), { partitions: PARTITIONS });
  client = new pg.Client({ connectionString: db.url() });
  await client.connect();
  await client.query(`INSERT INTO conversations (id, user_id, created_at, updated_at)
    SELECT 'conv-' || i, 'user-' || (i % 30), i, i FROM generate_series(1, 20000) AS i`);
  await client.query(`INSERT INTO conversations (id, user_id, created_at, updated_at)
    VALUES ('big', 'user-big', 0, 0)`);
  await client.query(`INSERT INTO messages (id, conversation_id, user_id, role, original_content,
      "timestamp", is_flagged)
    SELECT 'big-' || i, 'big', 'user-big', 'user', 'message ' || i, i / 3, i % 50 = 0
      FROM generate_series(1, 40000) AS i ORDER BY i`);
  await client.query(`INSERT INTO messages (id, conversation_id, user_id, role, original_content,
      "timestamp")
    SELECT 'msg-' || i, 'conv-' || (i % 20000 + 1), 'user-' || ((i % 20000 + 1) % 30),
           'assistant', 'x', i
      FROM generate_series(1, 40000) AS i`);
  await client.query(`INSERT INTO turn_traces (id, message_id, conversation_id, agent_id,
      "timestamp", total_tokens, total_latency_ms)
    SELECT 'trace-' || i, 'msg-' || i, 'conv-' || (i % 20000 + 1), 'agent-' || (i % 40), i, 10, 1
      FROM generate_series(1, 20000) AS i`);
  // Rows written here bypass the functions: their id lookups as the migration backfills them.
  await client.query(`INSERT INTO message_ids (id, conversation_id)
    SELECT id, conversation_id FROM messages`);
  await client.query(`INSERT INTO trace_ids (id, conversation_id)
    SELECT id, conversation_id FROM turn_traces`);
  await client.query("VACUUM ANALYZE");
}, 300_000);

afterAll(async () => {
  await client?.end();
  await store?.close();
});

describe("hot calls touch one partition", () => {
  it("getImmediateContext: one partition, also with the generic plan of a prepared statement", async () => {
    const generic = await genericPlan(q.immediateContext, ["big", 50, ...ALL]);
    expect(scanned(generic, "messages")).toHaveLength(1);
    expect(nodes(generic).find((n) => n["Subplans Removed"])?.["Subplans Removed"]).toBe(
      PARTITIONS - 1,
    );
    const custom = await client.query(`EXPLAIN (COSTS OFF, FORMAT JSON) ${q.immediateContext}`, [
      "big",
      50,
      ...ALL,
    ]);
    expect(scanned(custom.rows[0]["QUERY PLAN"][0].Plan, "messages")).toHaveLength(1);
    expect(await touched(q.immediateContext, ["big", 50, ...ALL])).toEqual({
      read: { messages: 1 },
      written: {},
    });
    expect((await store.getImmediateContext("big", 50)).at(-1)?.id).toBe("big-39999");
  });

  it("a transcript page: one partition", async () => {
    const page = q.listMessages({}, "big", { timestamp: 6_000, sequence: 18_000 }, 101, false);
    expect(scanned(await genericPlan(page.text, page.values), "messages")).toHaveLength(1);
    expect(await touched(page.text, page.values)).toEqual({ read: { messages: 1 }, written: {} });
  });

  it("storeMessage of a new id: one partition of messages, one of its lookup", async () => {
    const fresh = [
      batchParam([MessageSchema.parse(message("new-1", "conv-7", 1, USER_7))]),
      null,
      null,
    ];
    expect(await touched(q.writeMessages, fresh)).toEqual({
      // The conversation (locked, last_message_at moved), the id claimed in its lookup (the
      // conflict check reads that partition's key).
      read: { conversations: 1, messages: 1, message_ids: 1 },
      written: { conversations: 1, messages: 1, message_ids: 1 },
    });
    // An upsert of a message already in its conversation locks its lookup row, unchanged.
    const existing = [
      batchParam([MessageSchema.parse(message("msg-6", "conv-7", 6, USER_7))]),
      null,
      null,
    ];
    expect(await touched(q.writeMessages, existing)).toEqual({
      read: { conversations: 1, messages: 1, message_ids: 1 },
      written: { conversations: 1, messages: 1 },
    });
  });

  it("storeMessages of one conversation writes one partition of messages; each id claims its lookup row", async () => {
    const batch = JSON.stringify(
      Array.from({ length: 20 }, (_, i) =>
        MessageSchema.parse(message(`batch-${i}`, "conv-9", 50 + i, { userId: "user-9" })),
      ),
    );
    const { read, written } = await touched(q.writeMessages, [batch, null, null]);
    expect(read.conversations).toBe(1);
    expect(read.messages).toBe(1);
    expect(written.conversations).toBe(1);
    expect(written.messages).toBe(1);
    // 20 ids hash over the lookup's partitions; each id reads and writes its own.
    expect(written.message_ids).toBeLessThanOrEqual(PARTITIONS);
    expect(read.message_ids).toBe(written.message_ids);
  });

  it("storeTurnTrace of a new trace id: one partition of each table and of its lookup", async () => {
    const values = traceParams(
      TurnTraceSchema.parse(trace("trace-new", "msg-30000", "conv-10001")),
    );
    expect(await touched(q.upsertTrace, values)).toEqual({
      read: { conversations: 1, messages: 1, turn_traces: 1, trace_ids: 1 },
      written: { turn_traces: 1, trace_ids: 1 },
    });
    // An upsert of the trace stored for msg-7 (trace-7, in conv-8).
    const again = traceParams(TurnTraceSchema.parse(trace("trace-7", "msg-7", "conv-8")));
    expect(await touched(q.upsertTrace, again)).toEqual({
      read: { conversations: 1, messages: 1, turn_traces: 1, trace_ids: 1 },
      written: { turn_traces: 1 },
    });
  });

  it("storeTurnTraces of one conversation writes one partition of traces", async () => {
    const batch = putTraces(
      [30001, 30002, 30003].map((i) => trace(`traces-${i}`, `msg-${i}`, `conv-${(i % 20000) + 1}`)),
    );
    // msg-30001 … 30003 are in conv-10002 … 10004: three conversations, three partitions at most.
    const { read, written } = await touched(batch.text, batch.values);
    expect(written.turn_traces).toBeLessThanOrEqual(3);
    expect(read.messages).toBeLessThanOrEqual(3);
    expect(read.turn_traces).toBeLessThanOrEqual(3);
    const one = putTraces([
      trace("traces-one", "msg-30020", "conv-10021"),
      trace("traces-two", "msg-50020", "conv-10021"),
    ]);
    await client.query(`INSERT INTO messages (id, conversation_id, user_id, role, original_content,
        "timestamp") VALUES ('msg-50020', 'conv-10021', 'user-${10021 % 30}', 'user', 'x', 1)`);
    const single = await touched(one.text, one.values);
    expect(single.written.turn_traces).toBe(1);
    expect(single.read.messages).toBe(1);
    expect(single.read.turn_traces).toBe(1);
    await client.query("DELETE FROM messages WHERE id = 'msg-50020'");
  });

  it("getConversation and deleteConversation: one partition of each table", async () => {
    expect(await touched(q.readConversation, ["conv-3", false, ...ALL])).toEqual({
      read: { conversations: 1 },
      written: {},
    });
    const { written } = await touched(q.deleteConversation, ["conv-3", ...ALL]);
    expect(written).toEqual({ conversations: 1, messages: 1, turn_traces: 1 });
  });
});

describe("calls keyed only by a message id read its lookup, then one partition", () => {
  const embedding = JSON.stringify([{ id: "msg-5", originalContent: "x", embedding: [1, 2] }]);
  it.each([
    ["getMessage", () => [q.readMessage, ["msg-5", false, ...ALL]] as const, "messages"],
    ["flagMessage", () => [q.flagMessage, ["msg-5", true, ...ALL]] as const, "messages"],
    [
      "getTurnTraceByMessageId",
      () => [q.readTraceByMessage, ["msg-5", false, ...ALL]] as const,
      "turn_traces",
    ],
    ["deleteMessage", () => [q.deleteMessage, ["msg-5", ...ALL]] as const, "messages"],
    ["softDeleteMessage", () => [q.softDeleteMessage, ["msg-5", 1, ...ALL]] as const, "messages"],
    ["restoreMessage", () => [q.restoreMessage, ["msg-5", ...ALL]] as const, "messages"],
    ["setEmbeddings", () => [q.setEmbeddings, [embedding, ...ALL]] as const, "messages"],
    [
      "a user's getMessage",
      () => [q.readMessage, ["msg-5", false, "user-6", null]] as const,
      "messages",
    ],
  ])("%s", async (_, statement, table) => {
    const [text, values] = statement();
    const { read, written, seqScanned } = await touched(text, [...values], true);
    expect(read.message_ids).toBe(1);
    expect(read[table]).toBe(1);
    // No other partition of the keyed tables is read, and none by a sequential scan.
    for (const other of ["messages", "turn_traces"])
      expect(read[other] ?? 0).toBeLessThanOrEqual(1);
    expect(seqScanned).toEqual({});
    expect(Object.values(written).every((n) => n <= 1)).toBe(true);
  });
});

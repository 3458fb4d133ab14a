import { type Message, MessageSchema } from "@message-store/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { messageParams } from "../src/message-params.js";
import { batchParam } from "../src/row-mapping.js";
import { createQueries } from "../src/sql/queries.js";
import { message, openStore, useDatabase } from "./helpers.js";

/**
 * EXPLAIN of the hot statements, exactly as the store sends them, on realistic volumes: one
 * conversation of 200k messages among others, 60k conversations, 40k traces.
 */

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Scan Direction"?: string;
  "Index Cond"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  Plans?: PlanNode[];
}

const db = useDatabase("ms_pg_plans");
const q = createQueries("public");
/** The scope of a store (every record) and of a user's view. */
const ALL = {};
const USER_BIG = { userId: "user-big" };
let store: PostgresMessageStore;
let client: pg.Client;

async function explain(statement: { text: string; values: unknown[] }): Promise<PlanNode> {
  const { rows } = await client.query(
    `EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) ${statement.text}`,
    statement.values,
  );
  return rows[0]["QUERY PLAN"][0].Plan;
}

/** The plan of `text` as a prepared statement's generic plan (what a named statement may get). */
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

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

function usesIndex(plan: PlanNode, index: string): boolean {
  return nodes(plan).some((n) => n["Index Name"] === index);
}

beforeAll(async () => {
  store = await openStore(db.url());
  client = new pg.Client({ connectionString: db.url() });
  await client.connect();
  // Tenants: one per five users, so a tenant holds 6 users' data.
  await client.query(`INSERT INTO conversations (id, user_id, tenant_id, created_at, updated_at)
    SELECT 'conv-' || i, 'user-' || (i % 30), 'tenant-' || (i % 30 % 5), i, i
      FROM generate_series(1, 60000) AS i`);
  await client.query(`INSERT INTO conversations (id, user_id, created_at, updated_at)
    VALUES ('big', 'user-big', 0, 0)`);
  // 200k messages in one conversation, 1 in 50 flagged, many timestamp ties.
  await client.query(`INSERT INTO messages (id, conversation_id, user_id, role, original_content,
      "timestamp", is_flagged)
    SELECT 'big-' || i, 'big', 'user-big', 'user', 'message ' || i, i / 3, i % 50 = 0
      FROM generate_series(1, 200000) AS i ORDER BY i`);
  // Every message but 1 in 100 embedded (3 dimensions: plans, not speed, are under test).
  await client.query(`INSERT INTO messages (id, conversation_id, user_id, tenant_id, role,
      original_content, "timestamp", embedding)
    SELECT 'msg-' || i, 'conv-' || (i % 60000 + 1), 'user-' || ((i + 1) % 30),
           'tenant-' || ((i + 1) % 30 % 5), 'assistant', 'x', i,
           CASE WHEN i % 100 <> 0 THEN ARRAY[i % 7, i % 11, 1]::float8[] END
      FROM generate_series(1, 40000) AS i`);
  await client.query(`INSERT INTO turn_traces (id, message_id, conversation_id, agent_id, user_id,
      tenant_id, "timestamp", total_tokens, total_latency_ms, llm_calls, tool_traces, errors)
    SELECT 'trace-' || i, 'msg-' || i, 'conv-' || (i % 60000 + 1), 'agent-' || (i % 40),
           'user-' || ((i + 1) % 30), 'tenant-' || ((i + 1) % 30 % 5), i, i % 5000, 10,
           jsonb_build_array(jsonb_build_object('model', CASE WHEN i % 4000 = 0 THEN 'rare-model' ELSE 'common' END,
             'purpose', 'agent_loop', 'promptTokens', 1, 'completionTokens', 1, 'latencyMs', 1)),
           jsonb_build_array(jsonb_build_object('toolName', CASE WHEN i % 3000 = 0 THEN 'rare_tool' ELSE 'search' END)),
           '[]'
      FROM generate_series(1, 40000) AS i`);
  // VACUUM also flushes the GIN pending lists a bulk load leaves, as autovacuum would.
  await client.query("VACUUM ANALYZE");
}, 300_000);

afterAll(async () => {
  await client?.end();
  await store?.close();
});

describe("EXPLAIN of the hot queries", () => {
  it("getImmediateContext reads the newest n rows backwards through idx_msg_conv and sorts only those", async () => {
    const plan = await explain({ text: q.immediateContext, values: ["big", 50, null, null] });
    expect(plan["Node Type"]).toBe("Sort");
    // PostgreSQL 18 keeps the projection that drops `seq` as a Subquery Scan (over the 50 rows
    // only); 15 folds it into the sort.
    let limit = plan.Plans![0]!;
    if (limit["Node Type"] === "Subquery Scan") {
      expect(limit["Actual Rows"]).toBe(50);
      limit = limit.Plans![0]!;
    }
    expect(limit["Node Type"]).toBe("Limit");
    expect(limit["Actual Rows"]).toBe(50);
    const scan = limit.Plans![0]!;
    expect(scan["Node Type"]).toBe("Index Scan");
    expect(scan["Index Name"]).toBe("idx_msg_conv");
    expect(scan["Scan Direction"]).toBe("Backward");
    // The scan stopped after the 50 rows (plus the few flagged ones it skipped), far from 200k.
    expect(scan["Actual Rows"]).toBe(50);
    expect(nodes(limit).filter((n) => n["Node Type"] === "Sort")).toHaveLength(0);
    const rows = await store.getImmediateContext("big", 50);
    expect(rows.map((m) => m.id).at(-1)).toBe("big-199999");
  });

  it("a view's context window and transcript page keep that plan, also as a generic plan", async () => {
    // A user's own index (idx_msg_user) matches a plain `user_id = $n` as well as the
    // conversation: a generic plan then walks and sorts the user's whole history. The scope's
    // `($n IS NULL OR user_id = $n)` only filters what idx_msg_conv finds.
    const page = q.listMessages(USER_BIG, "big", null, 101, false);
    for (const [text, values] of [
      [q.immediateContext, ["big", 50, "user-big", null]],
      [q.immediateContext, ["big", 50, null, null]],
      [page.text, page.values],
    ] as const) {
      for (const plan of [
        await genericPlan(text, [...values]),
        await explain({ text, values: [...values] }),
      ]) {
        const scan = nodes(plan).find((n) => n["Index Name"])!;
        expect(scan["Index Name"]).toBe("idx_msg_conv");
        expect(scan["Actual Rows"]).toBeLessThanOrEqual(101);
        expect(nodes(plan).filter((n) => n["Node Type"] === "Sort").length).toBeLessThanOrEqual(1);
      }
    }
    const other = await explain({ text: q.immediateContext, values: ["big", 50, "user-7", null] });
    expect(nodes(other).find((n) => n["Index Name"])!["Index Name"]).toBe("idx_msg_conv");
  });

  it("a view's read by id is the primary key probe of the unscoped read", async () => {
    for (const [text, id, key] of [
      [q.readMessage, "msg-5", "messages_pkey"],
      [q.readConversation, "conv-5", "conversations_pkey"],
      [q.readTraceByMessage, "msg-5", "turn_traces_message_id_key"],
    ] as const) {
      for (const scope of [
        [null, null],
        ["user-6", null],
        ["user-6", "tenant-1"],
      ]) {
        const plan = await genericPlan(text, [id, false, ...scope]);
        expect(plan["Node Type"]).toBe("Index Scan");
        expect(plan["Index Name"]).toBe(key);
      }
    }
  });

  it("a transcript page seeks into idx_msg_conv with the (timestamp, seq) row comparison", async () => {
    const plan = await explain(
      q.listMessages(ALL, "big", { timestamp: 60_000, sequence: 180_000 }, 101, false),
    );
    expect(plan["Node Type"]).toBe("Limit");
    const scan = plan.Plans![0]!;
    expect(scan["Index Name"]).toBe("idx_msg_conv");
    expect(scan["Index Cond"]).toMatch(/ROW\("timestamp", seq\) > ROW/);
    expect(scan["Actual Rows"]).toBe(101);
    expect(nodes(plan).some((n) => n["Node Type"] === "Sort")).toBe(false);
  });

  it("a user's conversations come from idx_conv_user_activity without a sort", async () => {
    const user = { userId: "user-7" };
    const first = await explain(q.listConversations(user, null, 21, false));
    const next = await explain(
      q.listConversations(user, { lastActivityAt: 50_000, id: "conv-49987" }, 21, false),
    );
    for (const plan of [first, next]) {
      expect(usesIndex(plan, "idx_conv_user_activity")).toBe(true);
      expect(nodes(plan).some((n) => n["Node Type"] === "Sort")).toBe(false);
    }
    expect(nodes(next).find((n) => n["Index Name"])!["Index Cond"]).toMatch(/last_activity_at <=/);
  });

  it("an agent's traces come from idx_tt_agent_time, newest first, without a sort", async () => {
    const plan = await explain(
      q.listTraces(
        ALL,
        { agentId: "agent-3", includeDeleted: false },
        { timestamp: 30_000, id: "trace-30000" },
        21,
      ),
    );
    expect(usesIndex(plan, "idx_tt_agent_time")).toBe(true);
    expect(nodes(plan).some((n) => n["Node Type"] === "Sort")).toBe(false);
    const windowed = await explain(
      q.listTraces(
        ALL,
        { agentId: "agent-3", since: 100, until: 20_000, includeDeleted: false },
        null,
        21,
      ),
    );
    expect(usesIndex(windowed, "idx_tt_agent_time")).toBe(true);
  });

  it("queryTurnTraces by tool or model uses the GIN indexes (containment)", async () => {
    const byTool = await explain(
      q.listTraces(ALL, { toolName: "rare_tool", includeDeleted: false }, null, 21),
    );
    expect(usesIndex(byTool, "idx_tt_tool_gin")).toBe(true);
    const byModel = await explain(
      q.listTraces(ALL, { model: "rare-model", includeDeleted: false }, null, 21),
    );
    expect(usesIndex(byModel, "idx_tt_llm_gin")).toBe(true);
    const hits = await store.queryTurnTraces({ toolName: "rare_tool" });
    expect(hits.items).toHaveLength(13);
  });

  it.each([
    ["every row scored exactly", false],
    ["the cube prefilter", true],
  ])(
    "a user's or tenant's search reads only their rows, through idx_msg_user / idx_msg_tenant (%s)",
    async (_, cubes) => {
      const search = { embedding: [1, 2, 3], includeDeleted: false, limit: 10 };
      const byUser = await explain(q.search({ userId: "user-7" }, search, cubes));
      expect(usesIndex(byUser, "idx_msg_user")).toBe(true);
      expect(nodes(byUser).some((n) => n["Node Type"] === "Seq Scan")).toBe(false);
      const byTenant = await explain(q.search({ tenantId: "tenant-2" }, search, cubes));
      expect(usesIndex(byTenant, "idx_msg_tenant")).toBe(true);
      const both = await explain(
        q.search({ tenantId: "tenant-2", userId: "user-7" }, search, cubes),
      );
      expect(nodes(both).some((n) => n["Node Type"] === "Seq Scan")).toBe(false);
      const hits = await store.searchMessages({ embedding: [1, 2, 3], userId: "user-7" });
      expect(hits.map((h) => h.message.userId)).toEqual(Array(10).fill("user-7"));
    },
  );

  it("tenant-scoped lists and trace queries are index scans without a sort", async () => {
    const conversations = await explain(
      q.listConversationsById({ tenantId: "tenant-3" }, "conv-100", 21, false),
    );
    expect(usesIndex(conversations, "idx_conv_tenant")).toBe(true);
    expect(nodes(conversations).some((n) => n["Node Type"] === "Sort")).toBe(false);
    const byUser = await explain(
      q.listTraces({ userId: "user-4" }, { includeDeleted: false }, null, 21),
    );
    expect(usesIndex(byUser, "idx_tt_user")).toBe(true);
    expect(nodes(byUser).some((n) => n["Node Type"] === "Sort")).toBe(false);
    const byTenant = await explain(
      q.listTraces({ tenantId: "tenant-1" }, { includeDeleted: false }, null, 21),
    );
    // A fifth of all traces: walking idx_tt_time (newest first) and filtering is as good a plan.
    expect(usesIndex(byTenant, "idx_tt_tenant") || usesIndex(byTenant, "idx_tt_time")).toBe(true);
    expect(nodes(byTenant).some((n) => /Sort|Seq Scan/.test(n["Node Type"]))).toBe(false);
  });

  it("the embedding queue pages through idx_msg_pending", async () => {
    const pending = { roles: ["user" as const, "assistant" as const], includeFlagged: false };
    const plan = await explain(q.listPending(ALL, pending, "msg-1", 50));
    expect(usesIndex(plan, "idx_msg_pending")).toBe(true);
    expect(nodes(plan).some((n) => n["Node Type"] === "Sort")).toBe(false);
  });

  it("a trace by message id uses the unique index", async () => {
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${q.readTraceByMessage}`, [
      "msg-5",
      false,
      null,
      null,
    ]);
    expect(usesIndex(rows[0]["QUERY PLAN"][0].Plan, "turn_traces_message_id_key")).toBe(true);
  });

  it("the message writes read no table sequentially, one message or a batch of 100", async () => {
    // Inside the write functions EXPLAIN cannot look: the backend's own scan counts of this
    // transaction can (they count inside functions too); rolled back after.
    const seqScans = `SELECT coalesce(sum(seq_scan), 0)::int AS n FROM pg_stat_xact_user_tables
       WHERE relname IN ('conversations', 'messages')`;
    // conv-n belongs to user-(n % 30) and tenant-(n % 30 % 5).
    const record = (id: string, n: number): Message =>
      MessageSchema.parse(
        message(id, `conv-${n}`, n, {
          userId: `user-${n % 30}`,
          tenantId: `tenant-${(n % 30) % 5}`,
        }),
      );
    const batch = Array.from({ length: 100 }, (_, i) => record(`plan-batch-${i}`, (i % 3) + 10));
    for (const [text, values] of [
      [q.writeMessage!, messageParams(record("plan-one", 7))],
      [q.writeMessages!, [batchParam(batch), null, null]],
    ] as const) {
      await client.query("BEGIN");
      try {
        const before = (await client.query(seqScans)).rows[0].n;
        const { rows } = await client.query(text, [...values]);
        expect(rows.length).toBeGreaterThan(0);
        expect((await client.query(seqScans)).rows[0].n).toBe(before);
      } finally {
        await client.query("ROLLBACK");
      }
    }
  });
});

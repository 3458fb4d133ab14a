import { type MessageInput, MessageStore } from "@message-store/core";
import {
  createTestDatabase,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversation, message } from "./support/messages.js";
import { codeOf } from "./support/workload.js";

const BATCH = 20_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: PostgresServer;
let url: string;
let admin: pg.Client;

beforeAll(async () => {
  server = await startEmbeddedPostgres({ fsync: true });
  url = await createTestDatabase(server.url, "terminate");
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end().catch(() => {});
  await server?.stop();
});

/** Polls pg_stat_activity for the backend running the batch upsert; terminates it after `delayMs`. */
async function terminateBatch(delayMs: number, deadline: number): Promise<number | null> {
  while (Date.now() < deadline) {
    const { rows } = await admin.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity
        WHERE application_name = 'message-store' AND state = 'active'
          AND query LIKE '%ms_write_messages%' AND pid <> pg_backend_pid()`,
    );
    if (rows[0]) {
      await sleep(delayMs);
      const { rows: done } = await admin.query<{ ok: boolean }>(
        "SELECT pg_terminate_backend($1) AS ok",
        [rows[0].pid],
      );
      return done[0]?.ok ? rows[0].pid : null;
    }
    await sleep(2);
  }
  return null;
}

async function countIn(conversationId: string): Promise<number> {
  const { rows } = await admin.query<{ n: string }>(
    "SELECT count(*) AS n FROM messages WHERE conversation_id = $1",
    [conversationId],
  );
  return Number(rows[0]!.n);
}

describe("postgres terminate backend", () => {
  it(`pg_terminate_backend during a ${BATCH}-message storeMessages leaves the batch wholly present or wholly absent`, async () => {
    const store = await MessageStore.initialize({ storage: "postgres", dsn: url, pool_max: 4 });
    const outcomes: string[] = [];
    try {
      // Terminate right away, and later into the statement.
      for (const [round, delayMs] of [0, 0, 50, 150, 400].entries()) {
        const c = `tb-c${round}`;
        const created = await store.storeConversation(conversation(c));
        // Far-future timestamps: if any of the batch landed, lastActivityAt would show it.
        const batch: MessageInput[] = Array.from({ length: BATCH }, (_, i) =>
          message(`tb-${round}-${i}`, c, 9_000_000_000_000 + i, 0, {
            originalContent: `tb-${round}-${i}|v0|${"y".repeat(100)}`,
          }),
        );
        const write = store.storeMessages(batch).then(
          () => "resolved",
          (e: unknown) => codeOf(e),
        );
        const killed = await terminateBatch(delayMs, Date.now() + 30_000);
        const outcome = await write;
        const present = await countIn(c);
        const where = `round ${round} (delay ${delayMs} ms): write ${outcome}, backend ${killed ?? "not found"}, ${present} of ${BATCH} rows`;
        outcomes.push(where);
        expect(killed, `${where}: the batch's backend was not found running`).not.toBeNull();
        expect([0, BATCH], `${where}: the batch is partly present`).toContain(present);
        if (outcome === "resolved") expect(present, where).toBe(BATCH);
        else expect(outcome, where).toBe("CONNECTION");
        const after = await store.getConversation(c);
        if (present === 0) {
          expect(after?.lastActivityAt, `${where}: lastActivityAt moved`).toBe(
            created.lastActivityAt,
          );
          // A retry of the whole batch on the same store instance stores all of it.
          await store.storeMessages(batch);
          expect(await countIn(c), `${where}: retry`).toBe(BATCH);
        }
      }
      console.info(`postgres terminate backend:\n  ${outcomes.join("\n  ")}`);
      expect(
        outcomes.filter((o) => o.includes("write CONNECTION")).length,
        "no termination landed while the batch was in flight",
      ).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});

import { MessageStore } from "@message-store/core";
import {
  createTestDatabase,
  type PostgresServer,
  startEmbeddedPostgres,
} from "@message-store/test-servers";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conversation, message, versionOf } from "./support/messages.js";
import { codeOf } from "./support/workload.js";

const CALLS = 2_000;
const CONVERSATIONS = 20;

let server: PostgresServer;
let url: string;

beforeAll(async () => {
  server = await startEmbeddedPostgres({ fsync: true });
  url = await createTestDatabase(server.url, "load");
});
afterAll(async () => {
  await server?.stop();
});

describe("postgres load", () => {
  it(`${CALLS} concurrent calls with pool_max 4 all complete, with correct results`, async () => {
    // Default connect_timeout_ms (10 s), which also bounds the wait for a free pooled connection.
    const store = await MessageStore.initialize({ storage: "postgres", dsn: url, pool_max: 4 });
    try {
      const convs = Array.from({ length: CONVERSATIONS }, (_, i) => `load-c${i}`);
      for (const c of convs) await store.storeConversation(conversation(c));
      const seeded = Array.from({ length: 200 }, (_, i) =>
        message(`seed-${i}`, convs[i % CONVERSATIONS]!, 1_000 + i),
      );
      await store.storeMessages(seeded);

      let written = seeded.length;
      const started = Date.now();
      const latencies: number[] = [];
      const calls = Array.from({ length: CALLS }, async (_, i): Promise<void> => {
        const t0 = Date.now();
        const c = convs[i % CONVERSATIONS]!;
        try {
          switch (i % 10) {
            case 0:
            case 1:
            case 2:
            case 3:
            case 4: {
              const m = await store.storeMessage(message(`load-${i}`, c, 5_000 + i, 1));
              expect([m.id, versionOf(m)]).toEqual([`load-${i}`, 1]);
              written++;
              return;
            }
            case 5: {
              const batch = Array.from({ length: 5 }, (_, k) =>
                message(`load-${i}-${k}`, c, 5_000 + i),
              );
              const stored = await store.storeMessages(batch);
              expect(stored.map((m) => m.id)).toEqual(batch.map((m) => m.id));
              written += 5;
              return;
            }
            case 6: {
              const m = await store.getMessage(`seed-${i % 200}`);
              expect(m?.originalContent).toBe(`seed-${i % 200}|v0`);
              return;
            }
            case 7: {
              const page = await store.getMessagesByConversationId(c, { limit: 50 });
              // The seeded messages have the oldest timestamps: they come first, in order.
              const seededHere = seeded.filter((m) => m.conversationId === c).map((m) => m.id);
              expect(page.items.slice(0, seededHere.length).map((m) => m.id)).toEqual(seededHere);
              return;
            }
            case 8: {
              expect((await store.getConversation(c))?.userId).toBe("u1");
              return;
            }
            default: {
              const ctx = await store.getImmediateContext(c, 3);
              expect(ctx.length).toBe(3);
              return;
            }
          }
        } finally {
          latencies.push(Date.now() - t0);
        }
      });
      const results = await Promise.allSettled(calls);
      const elapsed = Date.now() - started;
      const failures = results.flatMap((r, i) =>
        r.status === "rejected" ? [`call ${i}: ${codeOf(r.reason)} ${String(r.reason)}`] : [],
      );
      expect(failures.slice(0, 10), `${failures.length} of ${CALLS} calls failed`).toEqual([]);

      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM messages");
      await client.end();
      expect(Number(rows[0]!.n)).toBe(written);
      latencies.sort((a, b) => a - b);
      console.info(
        `postgres load: ${CALLS} concurrent calls, pool_max 4, all ok in ${elapsed} ms ` +
          `(latency p50 ${latencies[CALLS / 2]} ms, max ${latencies.at(-1)} ms), ${written} messages`,
      );
    } finally {
      await store.close();
    }
  });
});

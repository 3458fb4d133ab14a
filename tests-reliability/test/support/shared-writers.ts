import type { MessageStore } from "@message-store/core";
import { expect } from "vitest";
import { conversation, message, versionOf } from "./messages.js";

const WRITERS = 8;
const CONVERSATIONS = 4;

interface Sent {
  sentAt: number;
  ackedAt: number;
}

/**
 * Two store instances on one database; 8 writers (alternating instances) × `perWriter` (default 500) messages into 4
 * shared conversations, with same-timestamp collisions across writers, upserts of earlier
 * messages and concurrent conversation upserts. Then checks, through both instances: no message
 * or update lost, no duplicate, one total order that both read identically, consistent with
 * (timestamp, order of receipt), and `lastActivityAt` not rolled back by a concurrent upsert.
 */
export async function sharedWriters(
  a: MessageStore,
  b: MessageStore,
  label: string,
  perWriter = 500,
): Promise<string> {
  if (perWriter % CONVERSATIONS !== 0)
    throw new Error(`perWriter must be a multiple of ${CONVERSATIONS}`);
  const t0 = Date.now() + 10 * 365 * 86_400_000; // message time dominates conversation updatedAt
  const convs = Array.from({ length: CONVERSATIONS }, (_, i) => `${label}-c${i}`);
  for (const c of convs) await a.storeConversation(conversation(c));
  const sent = new Map<string, Sent>();
  const latest = new Map<string, number>(); // id -> version acknowledged last
  const started = Date.now();

  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const store = w % 2 ? b : a;
      for (let k = 0; k < perWriter; k++) {
        const id = `${label}-w${w}-${k}`;
        const c = convs[k % CONVERSATIONS]!;
        const sentAt = performance.now();
        await store.storeMessage(message(id, c, t0 + Math.floor(k / CONVERSATIONS)));
        sent.set(id, { sentAt, ackedAt: performance.now() });
        latest.set(id, 0);
        if (k % 50 === 49) {
          // Upsert an earlier message: new content, same place in the order.
          const j = k - 24;
          await store.storeMessage(
            message(
              `${label}-w${w}-${j}`,
              convs[j % CONVERSATIONS]!,
              t0 + Math.floor(j / CONVERSATIONS),
              1,
            ),
          );
          latest.set(`${label}-w${w}-${j}`, 1);
        }
        if (k % 100 === 0)
          await store.storeConversation({ ...conversation(c), title: `${id} was here` });
      }
    }),
  );
  const writeMs = Date.now() - started;

  let total = 0;
  for (const c of convs) {
    const viaA = (await a.getMessagesByConversationId(c)).items;
    const viaB = (await b.getMessagesByConversationId(c)).items;
    const paged: string[] = [];
    for (let cursor: string | undefined, i = 0; i < 100; i++) {
      const page = await b.getMessagesByConversationId(c, { limit: 137, cursor });
      paged.push(...page.items.map((m) => m.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    const ids = viaA.map((m) => m.id);
    expect(
      viaB.map((m) => m.id),
      `${c}: the two instances disagree on the order`,
    ).toEqual(ids);
    expect(paged, `${c}: paging through instance B disagrees`).toEqual(ids);
    expect(new Set(ids).size, `${c}: duplicates`).toBe(ids.length);
    expect(ids.length, `${c}: messages lost or invented`).toBe(
      (WRITERS * perWriter) / CONVERSATIONS,
    );
    total += ids.length;

    const outOfTime = viaA.findIndex((m, i) => i > 0 && m.timestamp < viaA[i - 1]!.timestamp);
    expect(outOfTime, `${c}: not sorted by timestamp`).toBe(-1);
    // Same timestamp: a message acknowledged before another was sent must come first.
    const position = new Map(ids.map((id, i) => [id, i]));
    const byTime = new Map<number, typeof viaA>();
    for (const m of viaA) byTime.set(m.timestamp, [...(byTime.get(m.timestamp) ?? []), m]);
    for (const group of byTime.values()) {
      for (const x of group) {
        for (const y of group) {
          if (sent.get(x.id)!.ackedAt < sent.get(y.id)!.sentAt) {
            expect(
              position.get(x.id)! < position.get(y.id)!,
              `${c}: ${x.id} was stored before ${y.id} was sent`,
            ).toBe(true);
          }
        }
      }
    }
    const lostUpdates = viaB.filter((m) => versionOf(m) !== latest.get(m.id)).map((m) => m.id);
    expect(lostUpdates, `${c}: upserts lost`).toEqual([]);
    const newest = Math.max(...viaA.map((m) => m.timestamp));
    for (const s of [a, b]) {
      expect((await s.getConversation(c))?.lastActivityAt, `${c}: lastActivityAt rolled back`).toBe(
        newest,
      );
    }
  }
  expect(total).toBe(WRITERS * perWriter);
  return `${WRITERS} writers × ${perWriter} messages (+${WRITERS * Math.floor(perWriter / 50)} upserts, ${WRITERS * Math.ceil(perWriter / 100)} conversation upserts) on 2 instances in ${writeMs} ms`;
}

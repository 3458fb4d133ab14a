import { setImmediate as nextTurn } from "node:timers/promises";
import type { MessageStoreApi } from "@message-store/core";
import { conversation, message, T0, trace } from "../fixtures.js";
import { assertRule } from "../rule-check.js";
import type { CaseContext, ContractCase } from "./contract-case.js";

const READERS = 3;

/**
 * The stores the polling readers use: other instances (other connections) when the adapter can
 * open several on one storage, else the case's own store, polled by several loops.
 */
async function readers(ctx: CaseContext): Promise<MessageStoreApi[]> {
  if (!ctx.openAnother) return Array.from({ length: READERS }, () => ctx.store);
  const out: MessageStoreApi[] = [];
  for (let i = 0; i < READERS; i++) out.push(await ctx.openAnother());
  return out;
}

/**
 * Runs `observe` in a loop on every reader, each poll on a new turn of the event loop, until
 * `work` settles (and once more after it), so reads truly overlap the work. Returns the polls.
 */
async function pollWhile(
  stores: MessageStoreApi[],
  work: Promise<unknown>,
  observe: (store: MessageStoreApi) => Promise<void>,
): Promise<number> {
  let done = false;
  let polls = 0;
  const finished = work.finally(() => {
    done = true;
  });
  await Promise.all(
    stores.map(async (store) => {
      do {
        await nextTurn();
        await observe(store);
        polls++;
      } while (!done);
    }),
  );
  await finished;
  return polls;
}

const ATOMIC_LIST =
  "a list page is one consistent read: a concurrent batch is in it entirely or not at all";

/** Violation 5 of issue #13: a page assembled from several reads while writes ran. */
export const atomicListPages: ContractCase = {
  id: "atomic-list-pages",
  rule: ATOMIC_LIST,
  title: "transcript reads polled from several instances while batches land see whole batches only",
  async run(ctx) {
    const { store } = ctx;
    const c = await store.storeConversation(conversation({ id: "al-conv" }));
    // Each batch puts 5 messages before everything stored so far and 5 after: a read assembled
    // from several keyset reads while a batch lands sees half of it.
    const batch = (b: number) => [
      ...[0, 1, 2, 3, 4].map((i) =>
        message(c, { id: `al-${b}-early-${i}`, timestamp: T0 - b * 10 + i }),
      ),
      ...[0, 1, 2, 3, 4].map((i) =>
        message(c, { id: `al-${b}-late-${i}`, timestamp: T0 + 100_000 + b * 10 + i }),
      ),
    ];
    await store.storeMessages(batch(0));
    const stores = await readers(ctx);
    const writes = (async () => {
      for (let b = 1; b <= 20; b++) {
        await nextTurn();
        await store.storeMessages(batch(b));
      }
    })();
    const seen = new Set<number>();
    await pollWhile(stores, writes, async (reader) => {
      const { items, nextCursor } = await reader.getMessagesByConversationId(c.id);
      seen.add(items.length);
      const perBatch = new Map<string, number>();
      for (const m of items) {
        const b = m.id.split("-")[1]!;
        perBatch.set(b, (perBatch.get(b) ?? 0) + 1);
      }
      const partial = [...perBatch].filter(([, n]) => n !== 10);
      assertRule(
        ATOMIC_LIST,
        partial.length === 0 && nextCursor === null,
        `getMessagesByConversationId(al-conv): ${items.length} items, batches seen in part: ${partial.map(([b, n]) => `batch ${b} ${n}/10`).join(", ")}`,
      );
    });
    const final = await store.getMessagesByConversationId(c.id);
    assertRule(
      ATOMIC_LIST,
      final.items.length === 210,
      `final read: ${final.items.length} items, expected 210`,
    );
  },
};

const ATOMIC_CASCADE =
  "deleteConversation is atomic as seen through the API: concurrent readers see the whole conversation or none of it";

/** Violation 6 of issue #13: a cascade done as several commands, raced by truly concurrent readers. */
export const atomicCascade: ContractCase = {
  id: "atomic-cascade",
  rule: ATOMIC_CASCADE,
  title: "readers polling from several instances during deleteConversation see all of it or none",
  async run(ctx) {
    const { store } = ctx;
    const c = await store.storeConversation(conversation({ id: "ac-conv" }));
    const ms = await store.storeMessages(
      Array.from({ length: 120 }, (_, i) =>
        message(c, {
          id: `ac-m${String(i).padStart(3, "0")}`,
          timestamp: T0 + i,
          role: "assistant",
        }),
      ),
    );
    await store.storeTurnTrace(trace(ms[0]!, { id: "ac-t-first" }));
    await store.storeTurnTrace(trace(ms[119]!, { id: "ac-t-last" }));
    const stores = await readers(ctx);
    const polls = await pollWhile(stores, store.deleteConversation(c.id), async (reader) => {
      // Read in the order a cascade would delete (traces, messages, conversation) and the
      // reverse; once one part is gone every part read later must be gone too.
      const traceLast = await reader.getTurnTraceByMessageId(ms[119]!.id);
      const count = (await reader.getMessagesByConversationId(c.id)).items.length;
      const conv = await reader.getConversation(c.id);
      const traceFirst = await reader.getTurnTraceByMessageId(ms[0]!.id);
      const observed = `trace(last)=${traceLast ? "present" : "gone"}, messages=${count}/120, conversation=${conv ? "present" : "gone"}, trace(first)=${traceFirst ? "present" : "gone"}`;
      assertRule(
        ATOMIC_CASCADE,
        count === 0 || count === 120,
        `a read saw part of the messages: ${observed}`,
      );
      const states = [traceLast !== null, count > 0, conv !== null, traceFirst !== null];
      const firstGone = states.indexOf(false);
      assertRule(
        ATOMIC_CASCADE,
        firstGone === -1 || states.slice(firstGone).every((s) => !s),
        `a later read saw a part that an earlier read saw gone: ${observed}`,
      );
    });
    assertRule(ATOMIC_CASCADE, polls >= READERS, `only ${polls} polls ran`);
    assertRule(
      ATOMIC_CASCADE,
      (await store.getConversation(c.id)) === null,
      "the conversation is still there",
    );
  },
};

const ATOMIC_BATCH =
  "storeMessages is all or nothing as seen through the API: concurrent readers see the whole batch or none of it";

/** The batch counterpart: readers polling while one big batch lands. */
export const atomicBatch: ContractCase = {
  id: "atomic-batch",
  rule: ATOMIC_BATCH,
  title: "readers polling from several instances during a 200-message batch see all of it or none",
  async run(ctx) {
    const { store } = ctx;
    const c = await store.storeConversation(conversation({ id: "ab-conv" }));
    const stores = await readers(ctx);
    const batch = Array.from({ length: 200 }, (_, i) =>
      message(c, { id: `ab-m${String(i).padStart(3, "0")}`, timestamp: T0 + (i % 7) }),
    );
    await pollWhile(stores, store.storeMessages(batch), async (reader) => {
      const count = (await reader.getMessagesByConversationId(c.id)).items.length;
      const last = await reader.getMessage("ab-m199");
      const first = await reader.getMessage("ab-m000");
      const observed = `messages=${count}/200, ab-m199=${last ? "present" : "missing"}, ab-m000=${first ? "present" : "missing"}`;
      assertRule(
        ATOMIC_BATCH,
        count === 0 || count === 200,
        `a read saw part of the batch: ${observed}`,
      );
      assertRule(
        ATOMIC_BATCH,
        count === 0 || (last !== null && first !== null),
        `messages listed, then missing by id: ${observed}`,
      );
    });
    assertRule(
      ATOMIC_BATCH,
      (await store.getMessagesByConversationId(c.id)).items.length === 200,
      "the batch did not land",
    );
  },
};

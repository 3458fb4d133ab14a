import { setImmediate as nextTurn } from "node:timers/promises";
import type { Message } from "@message-store/core";
import { conversation, message, T0, trace } from "../fixtures.js";
import { assertRule } from "../rule-check.js";
import { pollWhile, READERS, readers } from "./concurrent-readers.js";
import type { ContractCase } from "./contract-case.js";

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

const MUTATIONS_ATOMIC =
  "a list page is one consistent read: concurrent deletes, re-creates, flags and soft deletes are in it entirely or not at all";

const GENERATION_SIZE = 24;
const distinct = (values: unknown[]) => [...new Set(values.map((v) => JSON.stringify(v)))];

/**
 * What a read shows of the conversation that the writer below keeps rewriting: every state the
 * writer leaves has all `GENERATION_SIZE` messages (or none), of one generation, all flagged or
 * none, all with one `deletedAt`, in id order. Fails naming what was mixed.
 */
function checkWhole(label: string, items: Message[], size: number): void {
  const generations = distinct(items.map((m) => m.originalContent));
  const flags = distinct(items.map((m) => m.isFlagged));
  const stamps = distinct(items.map((m) => m.deletedAt));
  const ids = items.map((m) => m.id);
  const ordered = ids.every((id, i) => i === 0 || ids[i - 1]! < id);
  assertRule(
    MUTATIONS_ATOMIC,
    (items.length === 0 || items.length === size) &&
      generations.length <= 1 &&
      flags.length <= 1 &&
      stamps.length <= 1 &&
      ordered,
    `${label}: ${items.length} items (expected 0 or ${size}), contents ${generations.join(" + ")}, isFlagged ${flags.join(" + ")}, deletedAt ${stamps.join(" + ")}${ordered ? "" : ", out of order"}`,
  );
}

/**
 * Violation 5 again, under writes that change or remove rows instead of adding them: a page
 * assembled from several reads while another connection deletes and re-creates the
 * conversation, flags or unflags every message in one batch, and soft-deletes and restores it.
 */
export const atomicListPagesMutations: ContractCase = {
  id: "atomic-list-pages-mutations",
  rule: MUTATIONS_ATOMIC,
  title:
    "transcript and context reads polled while the conversation is deleted, re-created, flagged and soft-deleted see one state",
  async run(ctx) {
    const { store } = ctx;
    const softDelete = store.capabilities.softDelete === true;
    const c = conversation({ id: "am-conv", userId: "am-user" });
    // Every message of a generation carries its number; timestamps and ids never change.
    const generation = (g: number, isFlagged: boolean) =>
      Array.from({ length: GENERATION_SIZE }, (_, i) =>
        message(c, {
          id: `am-m${String(i).padStart(2, "0")}`,
          timestamp: T0 + i,
          originalContent: `generation ${g}`,
          isFlagged,
        }),
      );
    await store.storeConversation(c);
    await store.storeMessages(generation(0, false));
    const stores = await readers(ctx);
    const ROUNDS = 12;
    const writes = (async () => {
      let flagged = false;
      for (let g = 1; g <= ROUNDS; g++) {
        await nextTurn();
        flagged = !flagged;
        await store.storeMessages(generation(g - 1, flagged)); // flag or unflag all at once
        if (softDelete) {
          await nextTurn();
          await store.softDeleteConversation(c.id);
          await nextTurn();
          await store.restoreConversation(c.id);
        }
        await nextTurn();
        await store.deleteConversation(c.id);
        await store.storeConversation(c);
        await store.storeMessages(generation(g, flagged));
      }
    })();
    const half = GENERATION_SIZE / 2;
    const polls = await pollWhile(stores, writes, async (reader) => {
      const page = await reader.getMessagesByConversationId(c.id);
      assertRule(MUTATIONS_ATOMIC, page.nextCursor === null, "an unlimited page has a nextCursor");
      checkWhole("getMessagesByConversationId(am-conv)", page.items, GENERATION_SIZE);
      const first = await reader.getMessagesByConversationId(c.id, { limit: half });
      checkWhole(`getMessagesByConversationId(am-conv, { limit: ${half} })`, first.items, half);
      const window = await reader.getImmediateContext(c.id, GENERATION_SIZE);
      checkWhole(`getImmediateContext(am-conv, ${GENERATION_SIZE})`, window, GENERATION_SIZE);
      if (softDelete) {
        const all = await reader.getMessagesByConversationId(c.id, { includeDeleted: true });
        checkWhole(
          "getMessagesByConversationId(am-conv, { includeDeleted })",
          all.items,
          GENERATION_SIZE,
        );
      }
    });
    assertRule(MUTATIONS_ATOMIC, polls >= READERS, `only ${polls} polls ran`);
    const final = (await store.getMessagesByConversationId(c.id)).items;
    assertRule(
      MUTATIONS_ATOMIC,
      final.length === GENERATION_SIZE &&
        final.every((m) => m.originalContent === `generation ${ROUNDS}`),
      `final read: ${final.length} items of ${distinct(final.map((m) => m.originalContent)).join(" + ")}`,
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

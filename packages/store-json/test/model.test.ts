import { join } from "node:path";
import type { Message, TurnTrace } from "@message-store/core";
import { compareIds } from "@message-store/core/adapter";
import { expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { message, prng, tempDir, trace } from "./helpers.js";

/**
 * Random operations against the store and a naive model (sort everything on every read). Few
 * timestamps and ids, so ties, moves, re-creations and out-of-order inserts are frequent; the
 * store's incremental indexes must agree with the model, also after a reopen.
 */
it("keeps its indexes equal to a naive model under random operations", async () => {
  const random = prng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const path = join(tempDir(), "db.json");
  let store = await JsonMessageStore.open({ path, compact_threshold_bytes: 20_000 });

  const conversations = new Set<string>();
  const messages = new Map<string, { m: Message; seq: number }>();
  const traces = new Map<string, TurnTrace>();
  let seq = 0;
  const convIds = ["c1", "c2", "c3"];

  const expectAgreement = async () => {
    for (const c of convIds) {
      const expected = [...messages.values()]
        .filter((e) => e.m.conversationId === c)
        .sort((a, b) => a.m.timestamp - b.m.timestamp || a.seq - b.seq)
        .map((e) => e.m.id);
      const pages: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await store.getMessagesByConversationId(c, { limit: 3, cursor });
        pages.push(...page.items.map((m) => m.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages).toEqual(expected);
      const unflagged = expected.filter((id) => !messages.get(id)!.m.isFlagged);
      expect((await store.getImmediateContext(c, 4)).map((m) => m.id)).toEqual(unflagged.slice(-4));
    }
    for (const agent of ["a1", "a2"]) {
      const expected = [...traces.values()]
        .filter((t) => t.agentId === agent)
        .sort((a, b) => b.timestamp - a.timestamp || compareIds(b.id, a.id))
        .map((t) => t.id);
      expect((await store.getTurnTracesByAgentId(agent)).items.map((t) => t.id)).toEqual(expected);
    }
    const all = [...traces.values()].sort(
      (a, b) => b.timestamp - a.timestamp || compareIds(b.id, a.id),
    );
    expect((await store.queryTurnTraces({})).items.map((t) => t.id)).toEqual(all.map((t) => t.id));
  };

  for (let step = 0; step < 1500; step++) {
    const r = random();
    const c = pick(convIds);
    if (r < 0.08) {
      await store.storeConversation({ id: c, userId: "u1", createdAt: 1 });
      conversations.add(c);
    } else if (r < 0.12) {
      await store.deleteConversation(c);
      conversations.delete(c);
      for (const [id, e] of messages) {
        if (e.m.conversationId !== c) continue;
        messages.delete(id);
        for (const [tid, t] of traces) if (t.messageId === id) traces.delete(tid);
      }
    } else if (r < 0.7) {
      const id = `m${Math.floor(random() * 40)}`;
      const existing = messages.get(id);
      const input = message(id, existing?.m.conversationId ?? c, Math.floor(random() * 6));
      if (!conversations.has(input.conversationId)) continue;
      const stored = await store.storeMessage(input);
      messages.set(id, { m: stored, seq: existing?.seq ?? seq++ });
    } else if (r < 0.8) {
      const e = pick([...messages.values()]);
      if (!e) continue;
      e.m = await store.flagMessage(e.m.id, random() < 0.6);
    } else {
      const e = pick([...messages.values()]);
      if (!e) continue;
      const id = `t${Math.floor(random() * 15)}`;
      const holder = [...traces.values()].find((t) => t.messageId === e.m.id);
      if (holder && holder.id !== id) continue;
      const old = traces.get(id);
      if (old && old.messageId !== e.m.id) traces.delete(id);
      const t = trace(id, e.m.id, e.m.conversationId, Math.floor(random() * 4), {
        agentId: pick(["a1", "a2"]),
      });
      traces.set(id, await store.storeTurnTrace(t));
    }
    if (step % 100 === 0) await expectAgreement();
    if (step % 500 === 499) {
      await store.close();
      store = await JsonMessageStore.open({ path, compact_threshold_bytes: 20_000 });
      // Sequences are renumbered densely on reopen; only their order matters to the model.
      const order = [...messages.values()].sort((a, b) => a.seq - b.seq);
      order.forEach((e, i) => {
        e.seq = i;
      });
      seq = order.length;
      await expectAgreement();
    }
  }
  await expectAgreement();
  await store.close();
});

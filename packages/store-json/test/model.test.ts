import { join } from "node:path";
import type { Message, TurnTrace } from "@message-store/core";
import { compareIds } from "@message-store/core/adapter";
import { expect, it } from "vitest";
import { JsonMessageStore } from "../src/index.js";
import { message, prng, tempDir, trace } from "./helpers.js";

/**
 * Random operations against the store and a naive model (sort everything on every read). Few
 * timestamps and ids, so ties, moves, re-creations, out-of-order inserts, soft deletes and
 * restores are frequent; the store's incremental indexes (transcripts, traces by agent, user and
 * tenant, the pending-embedding index) must agree with the model, also after a reopen.
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
  const OWNERS: Record<string, { userId: string; tenantId: string | null }> = {
    c1: { userId: "u1", tenantId: "t1" },
    c2: { userId: "u2", tenantId: "t1" },
    c3: { userId: "u1", tenantId: null },
  };
  const live = (x: { deletedAt: number | null }) => x.deletedAt === null;
  const byTraceOrder = (a: TurnTrace, b: TurnTrace) =>
    b.timestamp - a.timestamp || compareIds(b.id, a.id);
  const refresh = async (id: string) => {
    const e = messages.get(id)!;
    e.m = (await store.getMessage(id, { includeDeleted: true }))!;
    const t = await store.getTurnTraceByMessageId(id, { includeDeleted: true });
    if (t) traces.set(t.id, t);
  };

  const expectAgreement = async () => {
    for (const c of convIds) {
      const expected = [...messages.values()]
        .filter((e) => e.m.conversationId === c && live(e.m))
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
    const filters = [
      {},
      { agentId: "a1" },
      { agentId: "a2" },
      { userId: "u1" },
      { userId: "u2" },
      { tenantId: "t1" },
      { agentId: "a1", userId: "u2" },
    ];
    for (const filter of filters) {
      const matches = (t: TurnTrace) =>
        Object.entries(filter).every(([k, v]) => t[k as keyof TurnTrace] === v);
      const expected = [...traces.values()].filter((t) => live(t) && matches(t)).sort(byTraceOrder);
      const got = await store.queryTurnTraces({ ...filter, limit: 4 });
      expect(
        got.items.map((t) => t.id),
        JSON.stringify(filter),
      ).toEqual(expected.slice(0, 4).map((t) => t.id));
      const withDeleted = [...traces.values()].filter(matches).sort(byTraceOrder);
      const all = await store.queryTurnTraces({ ...filter, includeDeleted: true });
      expect(all.items.map((t) => t.id)).toEqual(withDeleted.map((t) => t.id));
    }
    const pending = [...messages.values()]
      .map((e) => e.m)
      .filter((m) => live(m) && !m.isFlagged && m.embedding === null)
      .map((m) => m.id)
      .sort(compareIds);
    const listed: string[] = [];
    let next: string | null = null;
    do {
      const page = await store.listPendingEmbeddings({ limit: 3, cursor: next });
      listed.push(...page.items.map((m) => m.id));
      next = page.nextCursor;
    } while (next);
    expect(listed).toEqual(pending);
  };

  for (let step = 0; step < 1500; step++) {
    const r = random();
    const c = pick(convIds);
    if (r < 0.08) {
      await store.storeConversation({ id: c, ...OWNERS[c]!, createdAt: 1 });
      conversations.add(c);
    } else if (r < 0.12) {
      await store.deleteConversation(c);
      conversations.delete(c);
      for (const [id, e] of messages) {
        if (e.m.conversationId !== c) continue;
        messages.delete(id);
        for (const [tid, t] of traces) if (t.messageId === id) traces.delete(tid);
      }
    } else if (r < 0.6) {
      const id = `m${Math.floor(random() * 40)}`;
      const existing = messages.get(id);
      const conversationId = existing?.m.conversationId ?? c;
      if (!conversations.has(conversationId) || (existing && !live(existing.m))) continue;
      const input = message(id, conversationId, Math.floor(random() * 6), {
        userId: OWNERS[conversationId]!.userId,
        embedding: random() < 0.3 ? [random(), 1] : null,
      });
      const stored = await store.storeMessage(input);
      messages.set(id, { m: stored, seq: existing?.seq ?? seq++ });
    } else if (r < 0.66) {
      const e = pick([...messages.values()]);
      if (!e || !live(e.m)) continue;
      e.m = await store.flagMessage(e.m.id, random() < 0.6);
    } else if (r < 0.72) {
      const e = pick([...messages.values()]);
      if (!e) continue;
      const changed = live(e.m)
        ? await store.softDeleteMessage(e.m.id)
        : await store.restoreMessage(e.m.id);
      expect(changed).toBe(true);
      await refresh(e.m.id);
    } else if (r < 0.75) {
      const e = pick([...messages.values()]);
      if (!e) continue;
      expect(await store.deleteMessage(e.m.id)).toBe(true);
      messages.delete(e.m.id);
      for (const [tid, t] of traces) if (t.messageId === e.m.id) traces.delete(tid);
    } else if (r < 0.8) {
      const chosen = [...messages.values()].filter(() => random() < 0.3).map((e) => e.m);
      const set = await store.setEmbeddings(
        chosen.map((m) => ({
          id: m.id,
          embedding: [random(), 2],
          originalContent: m.originalContent,
        })),
      );
      expect(set).toBe(chosen.filter(live).length);
      for (const m of chosen) await refresh(m.id);
    } else {
      const e = pick([...messages.values()]);
      if (!e || !live(e.m)) continue;
      const id = `t${Math.floor(random() * 15)}`;
      const holder = [...traces.values()].find((t) => t.messageId === e.m.id);
      if (holder && holder.id !== id) continue;
      const old = traces.get(id);
      if (old && old.messageId !== e.m.id) continue; // a trace cannot move
      const t = trace(id, e.m.id, e.m.conversationId, Math.floor(random() * 4), {
        agentId: pick(["a1", "a2"]),
      });
      const stored = await store.storeTurnTrace(t);
      expect(stored.userId).toBe(e.m.userId);
      expect(stored.tenantId).toBe(OWNERS[e.m.conversationId]!.tenantId);
      traces.set(id, stored);
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

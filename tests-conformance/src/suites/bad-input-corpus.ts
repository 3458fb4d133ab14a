import type { MessageStoreApi } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { BAD_INPUT_CORPUS } from "../corpus/bad-input-cases.js";
import type { CorpusSeed, RoundTripRecords } from "../corpus/corpus-case.js";
import {
  allAgentTraces,
  allConversations,
  allMessages,
  type DumpScope,
  dumpStore,
} from "../dump.js";
import { expectRejection } from "../expect-error.js";
import { expectFieldsKept, expectSame } from "../first-difference.js";
import { T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

async function storeSeed(store: MessageStoreApi): Promise<CorpusSeed> {
  const userId = "corpus-user";
  const agentId = "corpus-agent";
  const id = "corpus-conv";
  await store.storeConversation({
    id,
    userId,
    agentId,
    title: "seed",
    createdAt: T0,
    updatedAt: T0,
    tags: ["seed"],
    metadata: { seed: true },
  });
  const [userMessage, assistantMessage] = await store.storeMessages([
    {
      id: "corpus-m1",
      conversationId: id,
      userId,
      role: "user",
      originalContent: "question",
      timestamp: T0 + 1,
      metadata: { n: 1 },
    },
    {
      id: "corpus-m2",
      conversationId: id,
      userId,
      role: "assistant",
      originalContent: "answer",
      timestamp: T0 + 2,
      embedding: [1, 0],
    },
  ]);
  const trace = await store.storeTurnTrace({
    id: "corpus-t2",
    messageId: "corpus-m2",
    conversationId: id,
    agentId,
    userId,
    timestamp: T0 + 2,
    totalTokens: 5,
    totalLatencyMs: 10,
    llmCalls: [
      { purpose: "agent_loop", model: "m", promptTokens: 3, completionTokens: 2, latencyMs: 9 },
    ],
  });
  return {
    userId,
    agentId,
    conversation: (await store.getConversation(id))!,
    userMessage: userMessage!,
    assistantMessage: assistantMessage!,
    trace,
    probe: {
      userId: "probe-user",
      conversationId: "probe-conv",
      messageId: "probe-msg",
      traceId: "probe-trace",
    },
  };
}

function scopeOf(seed: CorpusSeed): DumpScope {
  return {
    userIds: [seed.userId, seed.probe.userId],
    conversationIds: [seed.probe.conversationId],
    messageIds: [seed.probe.messageId],
  };
}

/** What a round-trip case may not change: everything reachable from the seed. */
async function seedSnapshot(store: MessageStoreApi, seed: CorpusSeed) {
  return {
    conversations: await allConversations(store, seed.userId),
    transcript: await allMessages(store, seed.conversation.id),
    context: await store.getImmediateContext(seed.conversation.id, 100),
    trace: await store.getTurnTraceByMessageId(seed.assistantMessage.id),
    agentTraces: await allAgentTraces(store, seed.agentId),
  };
}

async function checkRoundTrip(store: MessageStoreApi, records: RoundTripRecords): Promise<void> {
  const stored = await store.storeConversation(records.conversation);
  expectFieldsKept(stored, records.conversation, "storeConversation()");
  const messages = records.messages ? await store.storeMessages(records.messages) : [];
  for (const [i, m] of messages.entries()) {
    expectFieldsKept(m, records.messages![i]!, `storeMessages()[${i}]`);
    expectSame(await store.getMessage(m.id), m, `getMessage(#${i})`);
  }
  const byTime = messages
    .map((m, i) => ({ m, i }))
    .sort((a, b) => a.m.timestamp - b.m.timestamp || a.i - b.i);
  expectSame(
    await allMessages(store, stored.id),
    byTime.map((x) => x.m),
    "transcript",
  );
  const lastActivityAt = Math.max(stored.updatedAt, ...messages.map((m) => m.timestamp));
  const conversation = { ...stored, lastActivityAt };
  expectSame(await store.getConversation(stored.id), conversation, "getConversation()");
  const listed = (await allConversations(store, stored.userId)).filter((c) => c.id === stored.id);
  expectSame(listed, [conversation], "getConversationsByUserId()");
  if (records.trace) {
    const t = await store.storeTurnTrace(records.trace);
    expectFieldsKept(t, records.trace, "storeTurnTrace()");
    expectSame(await store.getTurnTraceByMessageId(t.messageId), t, "getTurnTraceByMessageId()");
    expectSame(await allAgentTraces(store, t.agentId), [t], "getTurnTracesByAgentId()");
    expectSame(
      (await store.queryTurnTraces({ conversationId: stored.id })).items,
      [t],
      "queryTurnTraces()",
    );
  }
}

/** After any case the store must still accept and return ordinary data. */
async function expectStoreWorks(store: MessageStoreApi, seed: CorpusSeed): Promise<void> {
  const m = await store.storeMessage({
    id: "corpus-after",
    conversationId: seed.conversation.id,
    userId: seed.userId,
    role: "user",
    originalContent: "still works",
    timestamp: T0 + 3,
  });
  expect(await store.getMessage(m.id)).toEqual(m);
  const transcript = await allMessages(store, seed.conversation.id);
  expect(transcript.map((x) => x.id)).toEqual(["corpus-m1", "corpus-m2", "corpus-after"]);
  expect(await store.getTurnTraceByMessageId(seed.assistantMessage.id)).toEqual(seed.trace);
}

/** The data-driven bad-input corpus: typed rejection with nothing stored, or a faithful round trip. */
export function badInputCorpusSuite(h: Harness): void {
  describe("bad-input corpus", () => {
    for (const c of BAD_INPUT_CORPUS) {
      const title = c.expect === "ValidationError" ? `rejects ${c.name}` : `round-trips ${c.name}`;
      it(title, async () => {
        const seed = await storeSeed(h.store);
        if (c.expect === "ValidationError") {
          const before = await dumpStore(h.store, scopeOf(seed));
          await expectRejection(() => c.call(h.store, seed), "VALIDATION", c.name);
          expect(
            await dumpStore(h.store, scopeOf(seed)),
            "a rejected call changed the store",
          ).toEqual(before);
        } else {
          const before = await seedSnapshot(h.store, seed);
          await checkRoundTrip(h.store, c.records(seed));
          expect(await seedSnapshot(h.store, seed), "a round trip changed other records").toEqual(
            before,
          );
        }
        await expectStoreWorks(h.store, seed);
      });
    }
  });
}

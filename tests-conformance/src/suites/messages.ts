import { describe, expect, it } from "vitest";
import { allMessages } from "../dump.js";
import { conversation, fullMessage, message, T0 } from "../fixtures.js";
import type { Harness } from "../harness.js";

const MESSAGE_KEYS = [
  "conversationId",
  "deletedAt",
  "embedding",
  "enhancedMessage",
  "entities",
  "episodeId",
  "explicitContext",
  "id",
  "intent",
  "invokedFlows",
  "invokedTools",
  "isContinuation",
  "isFlagged",
  "metadata",
  "originalContent",
  "reasoningSteps",
  "role",
  "sentiment",
  "sentimentScore",
  "spanId",
  "tags",
  "tenantId",
  "timestamp",
  "toolArguments",
  "toolCallId",
  "toolCalls",
  "toolName",
  "traceId",
  "userId",
].sort();

/** Messages: upsert, defaults, read-back, batches, flags. */
export function messagesSuite(h: Harness): void {
  describe("messages", () => {
    it("fills every default and resolves to exactly what every read returns", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const input = {
        id: "m-1",
        conversationId: c.id,
        userId: c.userId,
        role: "user" as const,
        originalContent: "hi",
        timestamp: T0,
      };
      const stored = await h.store.storeMessage(input);
      const expected = {
        ...input,
        tenantId: null,
        enhancedMessage: null,
        explicitContext: null,
        episodeId: null,
        isFlagged: false,
        isContinuation: false,
        invokedFlows: [],
        invokedTools: [],
        reasoningSteps: [],
        entities: [],
        intent: null,
        sentiment: null,
        sentimentScore: 0,
        toolCalls: [],
        toolCallId: null,
        toolName: null,
        toolArguments: null,
        tags: [],
        metadata: {},
        traceId: null,
        spanId: null,
        embedding: null,
        deletedAt: null,
      };
      expect(stored).toEqual(expected);
      const read = await h.store.getMessage("m-1");
      expect(read).toEqual(expected);
      expect(Object.keys(read!).sort()).toEqual(MESSAGE_KEYS);
      expect((await h.store.getMessagesByConversationId(c.id)).items).toEqual([expected]);
      expect(await h.store.getImmediateContext(c.id, 5)).toEqual([expected]);
    });

    it("fills the defaults of nested tool calls and entities", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const stored = await h.store.storeMessage(
        message(c, {
          role: "assistant",
          toolCalls: [{ toolCallId: "call-1", toolName: "t" }],
          entities: [{ name: "e" }],
        }),
      );
      const expectedCalls = [{ toolCallId: "call-1", toolName: "t", arguments: {}, result: null }];
      expect(stored.toolCalls).toEqual(expectedCalls);
      expect(stored.entities).toEqual([{ name: "e", attributes: [] }]);
      expect(await h.store.getMessage(stored.id)).toEqual(stored);
    });

    it("round-trips every field of a fully populated message", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const input = fullMessage(c);
      const stored = await h.store.storeMessage(input);
      const expected = { tenantId: null, deletedAt: null, ...input };
      expect(stored).toEqual(expected);
      expect(await h.store.getMessage(input.id)).toEqual(expected);
      expect(await allMessages(h.store, c.id)).toEqual([expected]);
    });

    it("round-trips embeddings exactly as float64", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const embedding = [
        0.1 + 0.2,
        1 / 3,
        Number.MIN_VALUE,
        -Number.MAX_VALUE,
        2 ** 53 + 2,
        -0.5,
        0,
      ];
      const stored = await h.store.storeMessage(message(c, { embedding }));
      const read = await h.store.getMessage(stored.id);
      expect(read!.embedding).toEqual(embedding);
      expect(read!.embedding![0]).toBe(0.30000000000000004);
      expect(stored.embedding).toEqual(embedding);
    });

    it("an upsert replaces the whole record (omitted fields go back to their defaults)", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const full = fullMessage(c, { metadata: { a: 1, b: 2 } });
      await h.store.storeMessage(full);
      const minimal = message(c, { id: full.id, metadata: { a: 1 }, timestamp: full.timestamp });
      const replaced = await h.store.storeMessage(minimal);
      const read = await h.store.getMessage(full.id);
      expect(read).toEqual(replaced);
      expect(read).toMatchObject({
        role: "user",
        originalContent: "hello",
        enhancedMessage: null,
        isFlagged: false,
        isContinuation: false,
        entities: [],
        toolCalls: [],
        sentimentScore: 0,
        embedding: null,
        metadata: { a: 1 },
      });
      expect(Object.keys(read!.metadata)).toEqual(["a"]);
      expect(await allMessages(h.store, c.id)).toEqual([read]);
    });

    it("storeMessages resolves in input order to exactly what the reads return", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const batch = [
        fullMessage(c, { id: "b-3", timestamp: T0 + 30 }),
        message(c, { id: "b-1", timestamp: T0 + 10 }),
        message(c, { id: "b-2", timestamp: T0 + 20, role: "tool", toolCallId: "x", toolName: "y" }),
      ];
      const stored = await h.store.storeMessages(batch);
      expect(stored.map((m) => m.id)).toEqual(["b-3", "b-1", "b-2"]);
      for (const m of stored) expect(await h.store.getMessage(m.id)).toEqual(m);
      expect((await allMessages(h.store, c.id)).map((m) => m.id)).toEqual(["b-1", "b-2", "b-3"]);
    });

    it("storeMessages of an empty array resolves to []", async () => {
      expect(await h.store.storeMessages([])).toEqual([]);
    });

    it("stores a batch of 1000 messages in one call, in order", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const batch = Array.from({ length: 1000 }, (_, i) =>
        message(c, { id: `bulk-${String(999 - i).padStart(4, "0")}`, timestamp: T0 + (i % 7) }),
      );
      await h.store.storeMessages(batch);
      const expected = [...batch]
        .map((m, i) => ({ id: m.id, ts: m.timestamp, i }))
        .sort((a, b) => a.ts - b.ts || a.i - b.i)
        .map((x) => x.id);
      expect((await allMessages(h.store, c.id)).map((m) => m.id)).toEqual(expected);
      expect((await allMessages(h.store, c.id, 97)).map((m) => m.id)).toEqual(expected);
    });

    it("getMessage of an unknown id resolves to null", async () => {
      expect(await h.store.getMessage("no-such-message")).toBeNull();
    });

    it("the transcript of an unknown conversation is an empty page", async () => {
      expect(await h.store.getMessagesByConversationId("no-such-conversation")).toEqual({
        items: [],
        nextCursor: null,
      });
      expect(await h.store.getImmediateContext("no-such-conversation", 10)).toEqual([]);
    });

    it("flagMessage flags (default true) and unflags, changing nothing else", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const original = await h.store.storeMessage(fullMessage(c, { isFlagged: false }));
      const flagged = await h.store.flagMessage(original.id);
      expect(flagged).toEqual({ ...original, isFlagged: true });
      expect(await h.store.getMessage(original.id)).toEqual(flagged);
      const unflagged = await h.store.flagMessage(original.id, false);
      expect(unflagged).toEqual(original);
      expect(await h.store.getMessage(original.id)).toEqual(original);
      expect(await h.store.flagMessage(original.id, true)).toEqual(flagged);
      expect(await h.store.flagMessage(original.id, true)).toEqual(flagged);
    });

    it("flagged messages stay in the transcript, in place", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const ms = [1, 2, 3].map((i) => message(c, { id: `f-${i}`, timestamp: T0 }));
      await h.store.storeMessages(ms);
      await h.store.flagMessage("f-2");
      const transcript = await allMessages(h.store, c.id);
      expect(transcript.map((m) => [m.id, m.isFlagged])).toEqual([
        ["f-1", false],
        ["f-2", true],
        ["f-3", false],
      ]);
    });

    it("records are copies: mutating inputs or results afterwards changes nothing stored", async () => {
      const c = conversation();
      await h.store.storeConversation(c);
      const input = fullMessage(c, { isFlagged: false });
      const stored = await h.store.storeMessage(input);
      const snapshot = structuredClone(stored);
      (input.toolCalls as any)[0].arguments.orderId = -1;
      (input.entities as any)[0].attributes.push("mutated");
      (input.embedding as number[])[0] = 99;
      stored.metadata.source = "mutated";
      stored.invokedTools.push("mutated");
      const read = await h.store.getMessage(input.id);
      expect(read).toEqual(snapshot);
      read!.entities[0]!.attributes.push("mutated");
      (read!.metadata as any).scores.push(1);
      const [listed] = await allMessages(h.store, c.id);
      (listed!.toolCalls[0]!.result as any).status = "mutated";
      const [context] = await h.store.getImmediateContext(c.id, 1);
      context!.reasoningSteps.length = 0;
      expect(await h.store.getMessage(input.id)).toEqual(snapshot);
      expect(await allMessages(h.store, c.id)).toEqual([snapshot]);
    });
  });
}

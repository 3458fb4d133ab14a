import { IntegrityError } from "@message-store/core";
import { PostgresMessageStore } from "@message-store/postgres";
import { messageInput, traceInput } from "@message-store/test-servers";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { BatchWriter, WriteError } from "../src/batch-writer.js";
import { freshPostgres } from "./support/cli.js";

/**
 * The writer keeps several writes in flight (issue #17); what a transcript needs must still
 * hold: a conversation's messages in order (same timestamps, many small batches, several
 * conversations interleaved), and the first failure reported with nothing written after it.
 */

let store: PostgresMessageStore;
beforeAll(async () => {
  store = await PostgresMessageStore.open({ dsn: await freshPostgres("ms_cli_writer") });
});
afterAll(async () => {
  await store?.close();
});

const conversation = (id: string) => ({ id, userId: "u1", createdAt: 1_000 });

describe("BatchWriter", () => {
  it("stores interleaved conversations' same-timestamp messages in their order", async () => {
    const writer = new BatchWriter(store, 3);
    const ids: Record<string, string[]> = { a: [], b: [], c: [] };
    for (const c of Object.keys(ids)) await writer.conversation(conversation(c), c);
    for (let k = 0; k < 40; k++) {
      for (const c of Object.keys(ids)) {
        const id = `${c}-${String(k).padStart(2, "0")}`;
        ids[c]!.push(id);
        await writer.messages([{ ...messageInput(id, c, 5_000) }], () => id);
      }
    }
    await writer.flush();
    expect(writer.written).toEqual({
      conversations: 3,
      messages: 120,
      turnTraces: 0,
      checkpoints: 0,
    });
    for (const [c, expected] of Object.entries(ids)) {
      const page = await store.getMessagesByConversationId(c, { limit: 100 });
      expect(page.items.map((m) => m.id)).toEqual(expected);
    }
  });

  it("stores traces in batches after their messages, even those still queued", async () => {
    const calls: number[] = [];
    const original = store.storeTurnTraces.bind(store);
    store.storeTurnTraces = (traces) => {
      calls.push(traces.length);
      return original(traces);
    };
    onTestFinished(() => {
      delete (store as Partial<PostgresMessageStore>).storeTurnTraces;
    });
    const writer = new BatchWriter(store, 4);
    const traced: string[] = [];
    for (const c of ["t-a", "t-b"]) {
      await writer.conversation(conversation(c), c);
      for (let k = 0; k < 7; k++) {
        const id = `${c}-${k}`;
        await writer.messages([{ ...messageInput(id, c, 5_000 + k), role: "assistant" }], () => id);
        // Each trace right after its message: the message may still wait in the queue.
        await writer.trace(traceInput(`${id}-t`, id, c, 6_000 + k), `trace ${id}`);
        traced.push(id);
      }
    }
    await writer.flush();
    expect(writer.written).toEqual({
      conversations: 2,
      messages: 14,
      turnTraces: 14,
      checkpoints: 0,
    });
    expect(calls).toEqual([4, 4, 4, 2]);
    for (const id of traced) expect((await store.getTurnTraceByMessageId(id))?.id).toBe(`${id}-t`);
  });

  it("reports the first failed write and writes nothing after it", async () => {
    const LATE = 400;
    const writer = new BatchWriter(store, 2);
    await writer.conversation(conversation("ok"), "ok");
    const attempt = async () => {
      await writer.messages(
        [messageInput("ok-1", "ok", 1), messageInput("ok-2", "ok", 2)],
        (i) => `ok ${i}`,
      );
      // No such conversation: this batch fails.
      await writer.messages(
        [messageInput("bad-1", "missing", 1), messageInput("bad-2", "missing", 2)],
        (i) => `line ${i + 1}`,
      );
      // Many later writes, one round trip each after the other: the failing batch (one round
      // trip, though its first call on a connection also plans the write) is reported long
      // before they are all dispatched, however slow the machine.
      for (let k = 0; k < LATE; k++)
        await writer.messages([messageInput(`late-${k}`, "ok", 10 + k)], () => `late ${k}`);
      await writer.flush();
    };
    const error = await attempt().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WriteError);
    expect((error as WriteError).message).toMatch(/could not store line 1 … line 2/);
    expect((error as WriteError).cause).toBeInstanceOf(IntegrityError);
    const stored = await store.getMessagesByConversationId("ok", { limit: LATE + 2 });
    // The batches started before the failure may be stored (batches run concurrently, so the
    // failing one may also finish first); none after it, and a conversation's batches stay in
    // order: what is stored is a prefix of what was sent.
    const sent = ["ok-1", "ok-2", ...Array.from({ length: LATE }, (_, k) => `late-${k}`)];
    const ids = stored.items.map((m) => m.id);
    expect(ids).toEqual(sent.slice(0, ids.length));
    expect(ids.length).toBeLessThan(sent.length);
    await expect(writer.flush()).rejects.toBe(error);
  });
});

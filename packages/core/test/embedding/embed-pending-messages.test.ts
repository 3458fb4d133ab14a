import { describe, expect, it } from "vitest";
import { embedPendingMessages, type MessageInput, ValidationError } from "../../src/index.js";
import { msg, seeded } from "../support/store-fixtures.js";

/** A deterministic embedder: [length, vowels, 1]. */
const embed = async (texts: string[]) =>
  texts.map((t) => [t.length, (t.match(/[aeiou]/g) ?? []).length, 1]);

async function withMessages(messages: MessageInput[]) {
  const store = await seeded();
  await store.storeMessages(messages);
  return store;
}

describe("embedPendingMessages", () => {
  it("embeds pending user and assistant messages in batches, with progress; idempotent", async () => {
    const store = await withMessages([
      msg("a", 1, { originalContent: "hello" }),
      msg("b", 2, { role: "assistant", originalContent: "answer" }),
      msg("c", 3, { role: "tool", originalContent: "{}", toolCallId: "k", toolName: "t" }),
      msg("d", 4, { isFlagged: true }),
      msg("e", 5, { embedding: [9, 9, 9] }),
      msg("f", 6, { role: "system", originalContent: "sys" }),
      msg("g", 7, { originalContent: "go" }),
    ]);
    const progress: unknown[] = [];
    const result = await embedPendingMessages(store, {
      embed,
      batchSize: 2,
      onProgress: (p) => progress.push(p),
    });
    expect(result).toEqual({ embedded: 3, skipped: 0, batches: 2 });
    expect(progress).toEqual([
      { embedded: 2, skipped: 0, batches: 1 },
      { embedded: 3, skipped: 0, batches: 2 },
    ]);
    expect((await store.getMessage("a"))!.embedding).toEqual([5, 2, 1]);
    expect((await store.getMessage("c"))!.embedding).toBeNull();
    expect((await store.getMessage("d"))!.embedding).toBeNull();
    expect((await store.getMessage("e"))!.embedding).toEqual([9, 9, 9]);
    expect(await embedPendingMessages(store, { embed })).toEqual({
      embedded: 0,
      skipped: 0,
      batches: 0,
    });
    const more = await embedPendingMessages(store, {
      embed,
      roles: ["tool", "system"],
      includeFlagged: true,
    });
    expect(more.embedded).toBe(2);
  });

  it("a text that changes while it is being embedded stays pending", async () => {
    const store = await withMessages([msg("a", 1, { originalContent: "old" })]);
    const result = await embedPendingMessages(store, {
      embed: async (texts) => {
        await store.storeMessage(msg("a", 1, { originalContent: "new text" }));
        return embed(texts);
      },
    });
    expect(result).toEqual({ embedded: 0, skipped: 1, batches: 1 });
    expect((await store.listPendingEmbeddings()).items.map((m) => m.id)).toEqual(["a"]);
  });

  it("rejects a wrong number of vectors or a bad vector, storing nothing of the batch", async () => {
    const store = await withMessages([msg("a", 1), msg("b", 2)]);
    for (const bad of [async () => [[1]], async () => [[1], [Number.NaN]], async () => "x"]) {
      await expect(embedPendingMessages(store, { embed: bad as never })).rejects.toBeInstanceOf(
        ValidationError,
      );
    }
    expect((await store.listPendingEmbeddings()).items).toHaveLength(2);
    await expect(embedPendingMessages(store, { embed, batchSize: 0 })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it("stops at an aborted signal with its reason; a rerun finishes the job", async () => {
    const store = await withMessages([msg("a", 1), msg("b", 2), msg("c", 3)]);
    const controller = new AbortController();
    const reason = new Error("stop");
    await expect(
      embedPendingMessages(store, {
        embed,
        batchSize: 1,
        onProgress: () => controller.abort(reason),
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    expect((await store.listPendingEmbeddings()).items).toHaveLength(2);
    expect((await embedPendingMessages(store, { embed })).embedded).toBe(2);
  });
});

import { isMessageStoreError, type Json } from "@message-store/core";
import { describe, expect, it } from "vitest";
import { decodeKey, encodeKey, JSON_TEXT_KEY, KEY_ESCAPE, MAX_STORED_DEPTH } from "../src/index.js";
import { decodeJson, encodeJson } from "../src/key-codec.js";
import { conv, msg, openFixture, traceOf } from "./helpers.js";

const E = KEY_ESCAPE;

/** Keys MongoDB or BSON restrict, and the escape character itself. */
const nasty: Record<string, Json> = {
  $set: 1,
  $: 2,
  "a.b": 3,
  ".": 4,
  "a\u0000b": "v\u0000alue",
  "": 5,
  [E]: 6,
  [`${E}d`]: 7,
  [`${E}j`]: 8,
  "$where.x": { $in: [{ "k.k": null, "\u0000": [] }] },
  plain: { nested: { "x.y": true } },
};

function deep(levels: number): Json {
  let value: Json = { "leaf.$": "bottom" };
  for (let i = 0; i < levels; i++) value = { [`level.${i}`]: [value] };
  return value;
}

/** Every key in a stored document, at any depth. */
function allKeys(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) allKeys(v, out);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      allKeys(v, out);
    }
  }
  return out;
}

describe("key codec", () => {
  it("escapes $, ., NUL, the escape character and the empty key, and reverses it", () => {
    expect(encodeKey("plain")).toBe("plain");
    expect(encodeKey("$a.b")).toBe(`${E}da${E}pb`);
    expect(encodeKey("\u0000")).toBe(`${E}0`);
    expect(encodeKey(E)).toBe(`${E}e`);
    expect(encodeKey("")).toBe(E);
    for (const key of Object.keys(nasty)) {
      const stored = encodeKey(key);
      expect(stored).not.toMatch(/[$.\u0000]/);
      expect(decodeKey(stored)).toBe(key);
    }
  });

  it("rejects stored keys it cannot have written", () => {
    expect(() => decodeKey(`a${E}`)).toThrow(/invalid escape/);
    expect(() => decodeKey(`${E}x`)).toThrow(/invalid escape/);
  });

  it("keeps __proto__ an own key both ways", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Json;
    const stored = encodeJson(value, 2) as Record<string, unknown>;
    expect(Object.hasOwn(stored, "__proto__")).toBe(true);
    const back = decodeJson(stored) as Record<string, unknown>;
    expect(Object.hasOwn(back, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("stores containers deeper than the limit as JSON text, and reads them back", () => {
    const value = deep(60);
    const stored = encodeJson(value, 2);
    const keys = allKeys(stored);
    expect(keys).toContain(JSON_TEXT_KEY);
    expect(decodeJson(stored)).toEqual(value);
    expect(allKeys(encodeJson(deep(10), 2))).not.toContain(JSON_TEXT_KEY);
    expect(MAX_STORED_DEPTH).toBeLessThan(100);
  });
});

describe("keys with $, . and NUL round-trip through the store", () => {
  it("in conversation, message and tool call JSON; escaped in the raw documents", async () => {
    const f = await openFixture();
    const c = await f.store.storeConversation(conv("c-keys", { metadata: nasty }));
    expect(c.metadata).toEqual(nasty);
    const m = msg("m-keys", "c-keys", 1, {
      metadata: nasty,
      toolCalls: [{ toolCallId: "call.1", toolName: "search", arguments: nasty, result: nasty }],
    });
    const stored = await f.store.storeMessage(m);
    expect(await f.store.getConversation("c-keys")).toEqual({
      ...c,
      lastActivityAt: c.lastActivityAt + 1,
    });
    expect(await f.store.getMessage("m-keys")).toEqual(stored);
    expect(stored.metadata).toEqual(nasty);
    expect(stored.toolCalls[0]!.arguments).toEqual(nasty);
    expect(stored.toolCalls[0]!.result).toEqual(nasty);

    const rawConversation = await f.db
      .collection("conversations")
      .findOne({ _id: "c-keys" as never });
    const rawMessage = await f.db.collection("messages").findOne({ _id: "m-keys" as never });
    for (const raw of [rawConversation?.metadata, rawMessage?.metadata, rawMessage?.toolCalls]) {
      const keys = allKeys(raw);
      expect(keys.length).toBeGreaterThan(0);
      for (const k of keys) expect(k).not.toMatch(/[$.\u0000]|^$/);
    }
    expect(rawMessage?.metadata[`${E}dset`]).toBe(1);
  });

  it("in every JSON field of a trace", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c-t"));
    await f.store.storeMessage(msg("m-t", "c-t", 1, { role: "assistant" }));
    const t = traceOf("t-keys", "m-t", "c-t", {
      toolTraces: [{ toolName: "sql", finalData: nasty }],
      slotEvents: [nasty],
      flowEvents: [nasty, { "a.b": 1 }],
      errors: [nasty],
      metadata: nasty,
    });
    const stored = await f.store.storeTurnTrace(t);
    expect(await f.store.getTurnTraceByMessageId("m-t")).toEqual(stored);
    expect(stored.toolTraces[0]!.finalData).toEqual(nasty);
    expect(stored.errors).toEqual([nasty]);
    const raw = await f.db.collection("turn_traces").findOne({ _id: "t-keys" as never });
    const keys = allKeys({
      f: raw?.toolTraces,
      s: raw?.slotEvents,
      l: raw?.flowEvents,
      e: raw?.errors,
      m: raw?.metadata,
    });
    for (const k of keys) expect(k).not.toMatch(/[$.\u0000]|^$/);
    // The escaped keys are what a query on the raw documents must use.
    expect(raw?.metadata[`${E}dwhere${E}px`]).toBeDefined();
  });

  it("the deepest JSON core accepts, NUL in values and float64 embeddings round-trip", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c-deep"));
    const embedding = [0.1, -0, 1e-300, -2.5e300, Number.MIN_VALUE, 3, 2 ** 53 - 1];
    // 64 nested containers in a tool call's arguments, which sit at document level 4.
    const m = msg("m-deep", "c-deep", 1, {
      originalContent: "nul \u0000 inside",
      metadata: { deep: deep(31) },
      toolCalls: [{ toolCallId: "t", toolName: "x", arguments: { deep: deep(31) } }],
      embedding,
    });
    const stored = await f.store.storeMessage(m);
    const read = await f.store.getMessage("m-deep");
    expect(read).toEqual(stored);
    expect(read?.toolCalls[0]?.arguments.deep).toEqual(deep(31));
    // Stored natively, well within MongoDB's 100 levels.
    const raw = await f.db.collection("messages").findOne({ _id: "m-deep" as never });
    expect(allKeys(raw)).not.toContain(JSON_TEXT_KEY);
    expect(read?.originalContent).toBe("nul \u0000 inside");
    // Core normalises -0 in embeddings; every other double comes back bit for bit.
    expect(read?.embedding).toEqual(stored.embedding);
    expect(read?.embedding).toEqual(embedding.map((x) => (x === 0 ? 0 : x)));
  });

  it("a stored key the codec cannot have written is CorruptDataError naming the document", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c-bad"));
    await f.db
      .collection("conversations")
      .updateOne({ _id: "c-bad" as never }, { $set: { metadata: { [`x${E}`]: 1 } } });
    const error = await f.store.getConversation("c-bad").catch((e: unknown) => e);
    expect(isMessageStoreError(error) && error.code).toBe("CORRUPT_DATA");
    expect((error as { location: string }).location).toBe("conversations/c-bad");
  });
});

import { compareIds } from "@message-store/core/adapter";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import {
  decodeJson,
  decodeText,
  encodeJson,
  encodeText,
  parseJsonColumn,
  toJsonParam,
} from "../src/nul-codec.js";
import { conversation, message, openStore, trace, useDatabase, withClient } from "./helpers.js";

const ALPHABET = ["\u0000", "\u0001", "\u0002", "a", "\u007f", "\uE000", "\uFFFF", "\u{1F600}"];

function randomString(random: () => number): string {
  const length = Math.floor(random() * 6);
  let s = "";
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return s;
}

function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe("the codec", () => {
  it("removes every U+0000 and is its own exact inverse", () => {
    const random = seeded(7);
    for (let i = 0; i < 5_000; i++) {
      const s = randomString(random);
      const encoded = encodeText(s);
      expect(encoded).not.toContain("\u0000");
      expect(decodeText(encoded)).toBe(s);
    }
    expect(encodeText("plain")).toBe("plain");
    expect(encodeText("a\u0000b\u0001c")).toBe("a\u0001\u0001b\u0001\u0002c");
  });

  it('keeps code-point order (the order of COLLATE "C" and compareIds)', () => {
    const random = seeded(11);
    for (let i = 0; i < 5_000; i++) {
      const a = randomString(random);
      const b = randomString(random);
      expect(Math.sign(compareIds(encodeText(a), encodeText(b)))).toBe(Math.sign(compareIds(a, b)));
    }
  });

  it("maps JSON keys and values, including a __proto__ key, and serialises cheaply", () => {
    const value = JSON.parse('{"__proto__": {"k\\u0000": ["\\u0000", 1, null, true]}, "a": "b"}');
    const encoded = encodeJson(value) as Record<string, unknown>;
    expect(Object.keys(encoded)).toEqual(["__proto__", "a"]);
    expect(JSON.stringify(encoded)).not.toContain("\\u0000");
    expect(decodeJson(encoded)).toEqual(value);
    expect(parseJsonColumn(toJsonParam(value))).toEqual(value);
    expect(toJsonParam({ a: "plain" })).toBe('{"a":"plain"}');
  });
});

describe("NUL in the database", () => {
  const db = useDatabase("ms_pg_nul");
  let store: PostgresMessageStore;
  beforeAll(async () => {
    store = await openStore(db.url());
  });
  afterAll(async () => {
    await store?.close();
  });

  it("round-trips U+0000 and U+0001 in ids, text, lists and JSON keys and values", async () => {
    const id = "c\u0000\u0001";
    const c = await store.storeConversation(
      conversation(id, "u\u0000", {
        title: "\u0000",
        tags: ["\u0000t"],
        metadata: { "\u0000k": "\u0001" },
      }),
    );
    expect(await store.getConversation(id)).toEqual(c);
    const [m] = await store.storeMessages([
      message("m\u0000", id, 1, {
        userId: "u\u0000",
        originalContent: "tool output:\u0000\u0000 binary \u0001\u0002",
        enhancedMessage: "\u0000",
        invokedTools: ["t\u0000"],
        entities: [{ name: "\u0000", attributes: ["\u0001"] }],
        toolCalls: [
          {
            toolCallId: "tc\u0000",
            toolName: "x\u0000",
            arguments: { "\u0000": "\u0000" },
            result: "\u0000",
          },
        ],
        metadata: { nested: { "$\u0000.": ["\u0000\u0001"] } },
      }),
    ]);
    expect(await store.getMessage("m\u0000")).toEqual(m);
    expect((await store.getMessagesByConversationId(id)).items).toEqual([m]);
    const t = await store.storeTurnTrace(
      trace("t\u0000", "m\u0000", id, {
        toolTraces: [{ toolName: "sh\u0000", stdout: "\u0000\u0000", finalData: { "\u0000": 1 } }],
        errors: [{ "\u0000": "\u0000" }],
      }),
    );
    expect(await store.getTurnTraceByMessageId("m\u0000")).toEqual(t);
    const found = await store.queryTurnTraces({ toolName: "sh\u0000" });
    expect(found.items).toEqual([t]);
    expect((await store.queryTurnTraces({ toolName: "sh" })).items).toEqual([]);
    expect((await store.getConversationsByUserId("u\u0000")).items).toHaveLength(1);
    // Audit queries see the escaped form.
    const raw = await withClient(db.url(), (client) =>
      client.query("SELECT original_content FROM messages WHERE id = $1", ["m\u0001\u0001"]),
    );
    expect(raw.rows[0].original_content).toBe(
      "tool output:\u0001\u0001\u0001\u0001 binary \u0001\u0002\u0002",
    );
  });

  it("sorts ids containing U+0000 by code point like every other adapter", async () => {
    const ids = ["p\u0001", "p", "p\u0000\u0000", "p\u0000", "pa", "p\u0000a"];
    for (const id of ids)
      await store.storeConversation(conversation(id, "sorter", { createdAt: 5 }));
    const listed = (await store.getConversationsByUserId("sorter")).items.map((c) => c.id);
    expect(listed).toEqual([...ids].sort(compareIds));
    const byId = (await store.listConversations({ userId: "sorter", limit: 2 })).items.map(
      (c) => c.id,
    );
    expect(byId).toEqual([...ids].sort(compareIds).slice(0, 2));
  });
});

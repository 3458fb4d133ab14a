import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresMessageStore } from "../src/index.js";
import { jsonbForm } from "../src/jsonb-form.js";
import { conversation, message, openStore, trace, useDatabase } from "./helpers.js";

/**
 * `jsonb` orders object keys its own way (shorter first, then by bytes) and has no `-0`. A write
 * returns the record it was given, so it must hand back that form too: the record a write returns
 * and the one a read returns are the same, key order included (`JSON.stringify` tells), in every
 * JSON field, through every write path.
 */

const db = useDatabase("ms_pg_jsonb_form");
let store: PostgresMessageStore;
beforeAll(async () => {
  store = await openStore(db.url());
});
afterAll(async () => {
  await store?.close();
});

/** Keys in an order jsonb changes (and JavaScript's own index-first rule), `-0` deep inside. */
const json = () => ({
  zeta: -0,
  b: [{ yy: 1, x: -0 }, -0],
  aaa: { "\u0000nul": 1, é: 2, e: 3, "10": 4, "9": 5, __proto__x: 6 },
  a: "text",
  "7": null,
});

describe("jsonb: the record a write returns is the record a read returns", () => {
  it("messages, by storeMessage, storeMessages and storeSessionMessages", async () => {
    await store.storeConversation(conversation("c1", "u1", { metadata: json() }));
    const fields = () => ({
      metadata: json(),
      toolArguments: json(),
      toolCalls: [{ toolCallId: "call", toolName: "t", arguments: json(), result: json() }],
      entities: [{ name: "n", attributes: ["a"] }],
    });
    const written = [
      await store.storeMessage(message("m1", "c1", 1_000, fields())),
      ...(await store.storeMessages([
        message("m2", "c1", 1_001, fields()),
        message("m3", "c1", 1_002, fields()),
      ])),
      ...(await store.storeSessionMessages(
        "c1",
        [{ id: "m4", role: "assistant", content: "x", ...fields() }],
        { userId: "u1" },
      )),
    ];
    for (const w of written) {
      const read = await store.getMessage(w.id);
      expect(JSON.stringify(w)).toBe(JSON.stringify(read));
      expect(w).toEqual(read);
      expect(Object.is((w.metadata as { zeta: number }).zeta, 0)).toBe(true);
      expect(Object.keys(w.metadata)).toEqual(["7", "a", "b", "aaa", "zeta"]);
    }
    const conv = await store.getConversation("c1");
    expect(Object.keys(conv!.metadata)).toEqual(["7", "a", "b", "aaa", "zeta"]);
  });

  it("traces, one and a batch", async () => {
    await store.storeConversation(conversation("c2"));
    await store.storeMessages([
      message("t-m1", "c2", 1),
      message("t-m2", "c2", 2),
      message("t-m3", "c2", 3),
    ]);
    const fields = () => ({
      metadata: json(),
      slotEvents: [json()],
      errors: [json()],
      toolTraces: [{ toolName: "t", finalData: json() }],
    });
    const written = [
      await store.storeTurnTrace(trace("t1", "t-m1", "c2", fields())),
      ...(await store.storeTurnTraces([
        trace("t2", "t-m2", "c2", fields()),
        trace("t3", "t-m3", "c2", fields()),
      ])),
    ];
    for (const w of written) {
      const read = await store.getTurnTraceByMessageId(w.messageId);
      expect(JSON.stringify(w)).toBe(JSON.stringify(read));
    }
  });

  it("jsonbForm leaves a value already in jsonb's form as it is (the same object)", () => {
    const formed = jsonbForm(json()) as object;
    expect(jsonbForm(formed)).toBe(formed);
    const plain = { a: 1, bb: [1, 2, { c: "x" }] };
    expect(jsonbForm(plain)).toBe(plain);
  });
});

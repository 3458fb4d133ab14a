import { isMessageStoreError } from "@message-store/core";
import {
  CONVERSATION_FIELDS,
  CONVERSATION_READ_FIELDS,
  MESSAGE_FIELDS,
  TOOL_CALL_FIELDS,
  TURN_TRACE_FIELDS,
} from "@message-store/core/adapter";
import { describe, expect, it } from "vitest";
import { KEY_ESCAPE } from "../src/index.js";
import {
  decodeFields,
  encodeFields,
  items,
  json,
  storedFields,
  without,
} from "../src/stored-fields.js";
import { conv, msg, openFixture, traceOf } from "./helpers.js";

const fieldsBut = (table: object, ...keys: string[]) =>
  Object.keys(table).filter((k) => !keys.includes(k));

/** A stored document's keys after `_id` (which jongodb puts last in a replaced document). */
function keysOf(doc: object | null): string[] {
  expect(doc).toHaveProperty("_id");
  return Object.keys(doc!).filter((k) => k !== "_id");
}

describe("document layout, derived from core's field tables", () => {
  it("maps id to _id, codes only the fields given, keeps the table's order", () => {
    const layout = storedFields(TOOL_CALL_FIELDS, { arguments: json(2) });
    expect(layout.map((f) => f.key)).toEqual(Object.keys(TOOL_CALL_FIELDS));
    const conversation = storedFields(CONVERSATION_FIELDS);
    expect(conversation.find((f) => f.key === "id")?.name).toBe("_id");
    expect(conversation.filter((f) => f.name !== f.key).map((f) => f.key)).toEqual(["id"]);
    const body = encodeFields(
      { toolCallId: "c", toolName: "t", arguments: { "a.b": 1 }, result: { "x.y": 2 } },
      layout,
    );
    // `result` has no codec here: stored as it is.
    expect(body).toEqual({
      toolCallId: "c",
      toolName: "t",
      arguments: { [`a${KEY_ESCAPE}pb`]: 1 },
      result: { "x.y": 2 },
    });
  });

  it("decodes in table order, leaves missing fields missing and drops adapter fields", () => {
    const layout = storedFields(CONVERSATION_READ_FIELDS, { metadata: json(2) });
    const doc = {
      lastSequence: 3,
      metadata: { [`${KEY_ESCAPE}dref`]: 1 },
      userId: "u",
      _id: "c",
      idKey: "c",
    };
    const model = decodeFields(doc, layout);
    expect(Object.keys(model)).toEqual(["id", "userId", "metadata"]);
    expect(model).toEqual({ id: "c", userId: "u", metadata: { $ref: 1 } });
    expect(without(layout, "id", "metadata").map((f) => f.key)).toEqual(
      fieldsBut(CONVERSATION_READ_FIELDS, "id", "metadata"),
    );
  });

  it("keeps unknown keys of nested objects, so validation still sees them", () => {
    const codec = items(TOOL_CALL_FIELDS, { arguments: json(4) });
    const stored = [{ toolCallId: "c", extra: 1, arguments: { [`${KEY_ESCAPE}dx`]: 1 } }, 7];
    expect(codec.decode(stored)).toEqual([{ toolCallId: "c", extra: 1, arguments: { $x: 1 } }, 7]);
    expect(codec.decode("not a list")).toBe("not a list");
  });

  it("stores every model field under its own name, in schema order", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c"));
    await f.store.storeMessage(msg("m", "c", 1, { role: "assistant" }));
    await f.store.storeTurnTrace(traceOf("t", "m", "c"));
    const conversation = await f.db.collection("conversations").findOne({ _id: "c" as never });
    const message = await f.db.collection("messages").findOne({ _id: "m" as never });
    const trace = await f.db.collection("turn_traces").findOne({ _id: "t" as never });
    // The upsert's filter gives `_id` and what an upsert may not change (owner, `deletedAt`).
    const owner = ["userId", "tenantId", "deletedAt"] as const;
    expect(keysOf(conversation)).toEqual([
      ...owner,
      "idKey",
      ...fieldsBut(CONVERSATION_FIELDS, "id", ...owner),
      "lastActivityAt",
      "lastMessageAt",
      "lastSequence",
      // Which life of the id this document is (checkpoints are bound to it).
      "incarnation",
      // Counts the live writes that confirmed the conversation live after landing.
      "confirmedWrites",
    ]);
    // The upsert's filter gives `_id`, `conversationId` and `deletedAt`; `sequence` is set on
    // insert; `pendingKey` marks a message pending embedding.
    expect(keysOf(message)).toEqual([
      "conversationId",
      "deletedAt",
      ...fieldsBut(MESSAGE_FIELDS, "id", "conversationId", "deletedAt"),
      "pendingKey",
      "sequence",
    ]);
    expect(keysOf(trace)).toEqual(["idKey", ...fieldsBut(TURN_TRACE_FIELDS, "id")]);
    // Reads come back in schema order too.
    expect(Object.keys((await f.store.getMessage("m"))!)).toEqual(Object.keys(MESSAGE_FIELDS));
    expect(Object.keys((await f.store.getTurnTraceByMessageId("m"))!)).toEqual(
      Object.keys(TURN_TRACE_FIELDS),
    );
    expect(Object.keys((await f.store.getConversation("c"))!)).toEqual(
      Object.keys(CONVERSATION_READ_FIELDS),
    );
  });

  it("fills the default of a field an older document lacks; rejects one with an unknown nested key", async () => {
    const f = await openFixture();
    await f.store.storeConversation(conv("c"));
    const stored = await f.store.storeMessage(
      msg("m", "c", 1, { toolCalls: [{ toolCallId: "k", toolName: "t" }] }),
    );
    const messages = f.db.collection("messages");
    await messages.updateOne({ _id: "m" as never }, { $unset: { embedding: "", intent: "" } });
    expect(await f.store.getMessage("m")).toEqual(stored);
    const toolCalls = [{ ...stored.toolCalls[0], extra: 1 }];
    await messages.updateOne({ _id: "m" as never }, { $set: { toolCalls } });
    const error = await f.store.getMessage("m").catch((e: unknown) => e);
    expect(isMessageStoreError(error) && error.code).toBe("CORRUPT_DATA");
    // Raised inside a call: core stamps the adapter's name.
    expect((error as Error).message).toMatch(
      /^\[message-store\] \[mongodb\] stored document messages\/m is unreadable: .*toolCalls\.0/,
    );
  });
});

import { describe, expect, it } from "vitest";
import {
  CONVERSATION_FIELDS,
  type FieldKind,
  kindsOf,
  MESSAGE_FIELDS,
  TURN_TRACE_FIELDS,
} from "../../src/adapter.js";

const kinds = (table: Parameters<typeof kindsOf>[0]) => new Map(kindsOf(table));
const shape = (k: FieldKind | undefined): unknown =>
  k === undefined
    ? undefined
    : k.type === "model"
      ? { model: k.fields.map(([key, f]) => [key, shape(f)]) }
      : "of" in k
        ? { [k.type]: shape(k.of) }
        : k.type;

describe("kindsOf", () => {
  it("lists every field of a table, in order", () => {
    expect(kindsOf(MESSAGE_FIELDS).map(([key]) => key)).toEqual(Object.keys(MESSAGE_FIELDS));
    expect(kindsOf(TURN_TRACE_FIELDS).map(([key]) => key)).toEqual(Object.keys(TURN_TRACE_FIELDS));
  });

  it("tells scalars, nullable values, lists, free-form JSON and nested models apart", () => {
    const message = kinds(MESSAGE_FIELDS);
    expect(shape(message.get("id"))).toBe("scalar");
    expect(shape(message.get("role"))).toBe("scalar");
    expect(shape(message.get("isFlagged"))).toBe("scalar");
    expect(shape(message.get("enhancedMessage"))).toEqual({ nullable: "scalar" });
    expect(shape(message.get("invokedTools"))).toEqual({ list: "scalar" });
    expect(shape(message.get("metadata"))).toBe("json");
    expect(shape(message.get("embedding"))).toEqual({ nullable: { list: "scalar" } });
    expect(shape(message.get("entities"))).toEqual({
      list: {
        model: [
          ["name", "scalar"],
          ["attributes", { list: "scalar" }],
        ],
      },
    });
    expect(shape(message.get("toolCalls"))).toEqual({
      list: {
        model: [
          ["toolCallId", "scalar"],
          ["toolName", "scalar"],
          ["arguments", "json"],
          ["result", { nullable: "json" }],
        ],
      },
    });
    const trace = kinds(TURN_TRACE_FIELDS);
    expect(shape(trace.get("errors"))).toEqual({ list: "json" });
    expect(shape(kinds(CONVERSATION_FIELDS).get("tags"))).toEqual({ list: "scalar" });
  });
});

import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/index.js";
import { cursors } from "../../src/paging/cursor.js";

describe("cursors", () => {
  it("round-trip every kind, including astral, NUL and long ids", () => {
    const m = { timestamp: Number.MAX_SAFE_INTEGER, sequence: 0 };
    expect(cursors.message.decode(cursors.message.encode(m))).toEqual(m);
    for (const id of ["a", "😀\u0000$.", "x".repeat(256)]) {
      const c = { lastActivityAt: 0, id };
      expect(cursors.conversation.decode(cursors.conversation.encode(c))).toEqual(c);
      expect(cursors.conversationId.decode(cursors.conversationId.encode(id))).toBe(id);
      const t = { timestamp: 123, id };
      expect(cursors.trace.decode(cursors.trace.encode(t))).toEqual(t);
    }
  });

  it("are URL-safe strings", () => {
    expect(cursors.trace.encode({ timestamp: 1, id: "?/+=" })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  const conversationCursor = cursors.conversation.encode({ lastActivityAt: 1, id: "c" });
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

  it.each([
    ["a conversation cursor given to messages", () => cursors.message.decode(conversationCursor)],
    [
      "a message cursor given to traces",
      () => cursors.trace.decode(cursors.message.encode({ timestamp: 1, sequence: 1 })),
    ],
    [
      "a conversation-key cursor given to the id walk",
      () => cursors.conversationId.decode(conversationCursor),
    ],
    ["garbage", () => cursors.message.decode("!!!not base64!!!")],
    ["base64 of non-JSON", () => cursors.message.decode(Buffer.from("{").toString("base64url"))],
    ["wrong arity", () => cursors.message.decode(b64(["m", 1]))],
    ["a string where a number belongs", () => cursors.message.decode(b64(["m", "1", 2]))],
    ["a float timestamp", () => cursors.message.decode(b64(["m", 1.5, 2]))],
    ["an unsafe integer", () => cursors.message.decode(b64(["m", 2 ** 53, 2]))],
    ["a number where an id belongs", () => cursors.trace.decode(b64(["t", 1, 2]))],
    ["an object", () => cursors.trace.decode(b64({ 0: "t", 1: 1, 2: "x" }))],
    ["empty", () => cursors.trace.decode("")],
  ])("reject %s with a ValidationError", (_, decode) => {
    expect(decode).toThrow(ValidationError);
    try {
      decode();
    } catch (error) {
      expect((error as ValidationError).code).toBe("VALIDATION");
      expect((error as ValidationError).issues[0]?.path).toEqual(["cursor"]);
    }
  });
});

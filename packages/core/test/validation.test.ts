import { describe, expect, it } from "vitest";
import { parseId, parseInput } from "../src/adapter.js";
import { MessageSchema, ValidationError } from "../src/index.js";

function thrown(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error("expected a ValidationError");
}

describe("parseInput", () => {
  it("returns the parsed value with defaults", () => {
    const m = parseInput(
      MessageSchema,
      {
        id: "m",
        conversationId: "c",
        userId: "u",
        role: "user",
        originalContent: "",
        timestamp: 0,
      },
      "message",
    );
    expect(m.isFlagged).toBe(false);
  });

  it("throws a ValidationError naming what and every issue with its path", () => {
    const error = thrown(() =>
      parseInput(
        MessageSchema,
        {
          id: "m",
          conversationId: "c",
          userId: "u",
          role: "user",
          originalContent: "",
          timestamp: 0,
          toolCalls: [{ toolCallId: "k", toolName: "t", arguments: { a: { b: 1n } } }],
          sentimentScore: 1.5,
        },
        "message",
        "postgres",
      ),
    );
    expect(error.code).toBe("VALIDATION");
    expect(error.name).toBe("ValidationError");
    expect(error.adapter).toBe("postgres");
    expect(error.message).toMatch(/^\[message-store\] \[postgres\] invalid message: /);
    const paths = error.issues.map((i) => i.path.join("."));
    expect(paths).toContain("toolCalls.0.arguments.a.b");
    expect(paths).toContain("sentimentScore");
    for (const issue of error.issues) {
      expect(error.message).toContain(`${issue.path.join(".")}: ${issue.message}`);
    }
    for (const issue of error.issues) {
      expect(typeof issue.message).toBe("string");
      expect(typeof issue.code).toBe("string");
    }
  });

  it("names an unrecognized key beside a bad role (the key used to hide behind the count)", () => {
    const error = thrown(() =>
      parseInput(
        MessageSchema,
        { id: "m", conversationId: "c", userId: "u", role: "robot", content: "x", timestamp: 0 },
        "message",
      ),
    );
    expect(error.message).toMatch(/invalid message: .*role: /);
    expect(error.message).toMatch(/Unrecognized key: "content"/);
  });

  it("spells out the first three issues and counts the rest", () => {
    const error = thrown(() =>
      parseInput(
        MessageSchema,
        { id: 1, conversationId: 2, userId: 3, role: 4, timestamp: "x" },
        "message",
      ),
    );
    expect(error.issues.length).toBeGreaterThan(4);
    const rest = error.issues.length - 3;
    expect(error.message).toContain(`; and ${rest} more issues`);
    expect(error.message.split("; ")).toHaveLength(4);
  });

  it("omits the path for a root-level failure and the prefix without adapter", () => {
    const error = thrown(() => parseInput(MessageSchema, "nope", "message"));
    expect(error.message).toMatch(/^\[message-store\] invalid message: /);
    expect(error.adapter).toBeUndefined();
    expect(error.issues[0]?.path).toEqual([]);
  });
});

describe("parseId", () => {
  it("returns a valid id", () => {
    expect(parseId("abc", "conversation id")).toBe("abc");
  });
  it.each([[""], ["x".repeat(257)], [1], [null], [{ $ne: null }], ["\uD800"]])(
    "rejects %j with a ValidationError naming the argument",
    (id) => {
      const error = thrown(() => parseId(id, "conversation id", "json"));
      expect(error.message).toMatch(/^\[message-store\] \[json\] invalid conversation id: /);
    },
  );
});

import { describe, expect, it } from "vitest";
import {
  compressionHint,
  compressMessages,
  DEFAULT_KEEP_CHARS,
  DEFAULT_MAX_CHARS,
  type Message,
} from "../../src/index.js";
import { message } from "../support/builders.js";

const long = "H".repeat(10) + "x".repeat(980) + "T".repeat(10);
const opts = { maxChars: 500, keepChars: 10 };

describe("compressMessages", () => {
  it("replaces a long assistant message by head + hint + tail", () => {
    const m = message({ id: "msg-1", role: "assistant", originalContent: long });
    const [out] = compressMessages([m], opts);
    expect(out!.originalContent).toBe(
      "H".repeat(10) + compressionHint("msg-1", 980) + "T".repeat(10),
    );
    expect(out!.originalContent).toContain('call the lookup_message tool with id "msg-1"');
    expect(out!.originalContent).toContain("980 characters omitted");
    expect({ ...out, originalContent: long }).toEqual(m); // nothing else changes
  });

  it("compresses colleague_assistant too", () => {
    const [out] = compressMessages(
      [message({ role: "colleague_assistant", originalContent: long })],
      opts,
    );
    expect(out!.originalContent.length).toBeLessThan(long.length);
  });

  it("never touches user, tool or system messages", () => {
    const input = (["user", "tool", "system"] as const).map((role) =>
      message({ role, originalContent: long }),
    );
    const out = compressMessages(input, opts);
    for (const [i, m] of out.entries()) expect(m).toBe(input[i]);
  });

  it("leaves a message at or under maxChars, or one the hint would not shorten", () => {
    const atLimit = message({ role: "assistant", originalContent: "y".repeat(500) });
    const slightlyOver = message({ role: "assistant", originalContent: "y".repeat(120) });
    const keepsAll = message({ role: "assistant", originalContent: long });
    expect(compressMessages([atLimit], opts)[0]).toBe(atLimit);
    expect(compressMessages([slightlyOver], { maxChars: 100, keepChars: 10 })[0]).toBe(
      slightlyOver,
    );
    expect(compressMessages([keepsAll], { maxChars: 1, keepChars: 600 })[0]).toBe(keepsAll);
  });

  it("keeps order, length and does not mutate the input", () => {
    const input = [
      message({ originalContent: "q" }),
      message({ role: "assistant", originalContent: long }),
      message({ originalContent: "r" }),
    ];
    const copy = structuredClone(input);
    const out = compressMessages(input, opts);
    expect(input).toEqual(copy);
    expect(out.map((m) => m.id)).toEqual(input.map((m) => m.id));
    expect(out[0]).toBe(input[0]);
  });

  it("defaults (true or {}): longer than 1000 characters, 200 kept at each end", () => {
    const at = message({ role: "assistant", originalContent: "y".repeat(DEFAULT_MAX_CHARS) });
    const over = message({ id: "o", role: "assistant", originalContent: "z".repeat(1001) });
    for (const options of [true, {}, undefined] as const) {
      expect(compressMessages([at], options)[0]).toBe(at);
      const out = compressMessages([over], options)[0]!.originalContent;
      expect(out).toBe("z".repeat(200) + compressionHint("o", 601) + "z".repeat(200));
    }
    expect(DEFAULT_KEEP_CHARS).toBe(200);
    const custom = compressMessages([over], { keepChars: 5 })[0]!.originalContent;
    expect(custom.startsWith("zzzzz\n")).toBe(true);
    const lower = compressMessages([at], { maxChars: 999 })[0]!.originalContent;
    expect(lower.length).toBeLessThan(DEFAULT_MAX_CHARS);
  });

  it("never splits a surrogate pair (exhaustive over cut positions)", () => {
    const text = "a" + "😀b".repeat(150) + "😀";
    const m: Message = message({ id: "e", role: "assistant", originalContent: text });
    for (let keep = 0; keep <= 200; keep++) {
      const out = compressMessages([m], { maxChars: 1, keepChars: keep })[0]!.originalContent;
      expect(out.isWellFormed(), `keepChars ${keep}`).toBe(true);
      if (out === text) continue;
      const [head, tail] = out.split(
        /\n\n… \[message truncated: \d+ characters omitted — call the lookup_message tool with id "e" to recover the full text\] …\n\n/,
      );
      expect(text.startsWith(head!)).toBe(true);
      expect(text.endsWith(tail!)).toBe(true);
      const omitted = text.length - head!.length - tail!.length;
      expect(out).toContain(`${omitted} characters omitted`);
      expect(head!.length === keep || head!.length === keep - 1).toBe(true);
    }
  });
});

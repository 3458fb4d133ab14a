import { describe, expect, it } from "vitest";
import { stringifyMessage, syntaxErrorOffset } from "../src/json-text.js";
import { prng } from "./helpers.js";

describe("syntaxErrorOffset", () => {
  it("agrees with JSON.parse on what is valid, and points inside the text", () => {
    const random = prng(42);
    const base = JSON.stringify(
      { a: [1, -2.5e3, 'x\u0000"y\\', true, null, {}, []], "b c": { d: false, e: "\u00e9" } },
      null,
      2,
    );
    const chars = [
      '"',
      "{",
      "}",
      "[",
      "]",
      ",",
      ":",
      "\\",
      "1",
      "-",
      "e",
      ".",
      " ",
      "t",
      "\n",
      "u",
    ];
    let invalid = 0;
    for (let n = 0; n < 5000; n++) {
      let text = base;
      for (let k = 0; k <= n % 3; k++) {
        const at = Math.floor(random() * (text.length + 1));
        const r = random();
        if (r < 0.33) text = text.slice(0, at) + text.slice(at + 1);
        else if (r < 0.66)
          text = text.slice(0, at) + chars[Math.floor(random() * chars.length)] + text.slice(at);
        else text = text.slice(0, at);
      }
      let valid = true;
      try {
        JSON.parse(text);
      } catch {
        valid = false;
      }
      const offset = syntaxErrorOffset(text);
      if (valid) {
        expect(offset, text).toBe(text.length);
      } else {
        invalid++;
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThanOrEqual(text.length);
      }
    }
    expect(invalid).toBeGreaterThan(1000);
  });

  it("points at the offending character", () => {
    expect(syntaxErrorOffset('{"a": tru }')).toBe(6);
    expect(syntaxErrorOffset('{"a": 1,}')).toBe(8);
    expect(syntaxErrorOffset('["\\x"]')).toBe(2);
    expect(syntaxErrorOffset("[1] 2")).toBe(4);
    expect(syntaxErrorOffset('{"a": [1, 2')).toBe(11);
  });
});

describe("stringifyMessage", () => {
  it("writes the embedding on one line, exactly, and otherwise like JSON.stringify", () => {
    const message = {
      id: "m",
      metadata: { k: "\ud83d\ude00 \\ud800" },
      embedding: [-0, 0, 1e-300, -1.7976931348623157e308, 0.1 + 0.2],
    } as never;
    const text = stringifyMessage(message, 2);
    expect(text).toContain(
      '"embedding": [-0,0,1e-300,-1.7976931348623157e+308,0.30000000000000004]',
    );
    const back = JSON.parse(text);
    expect(Object.is(back.embedding[0], -0)).toBe(true);
    expect(back).toEqual(message);
    expect(JSON.parse(stringifyMessage({ id: "x", embedding: null } as never))).toEqual({
      id: "x",
      embedding: null,
    });
  });
});

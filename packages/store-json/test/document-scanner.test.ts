import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scanDocument, UnexpectedShape } from "../src/document-scanner.js";
import { tempDir } from "./helpers.js";

async function scan(text: string): Promise<Record<string, unknown>> {
  const path = join(tempDir(), "doc.json");
  writeFileSync(path, text);
  const out: Record<string, unknown> = {};
  await scanDocument(path, (key, value, index) => {
    if (index === null) out[key] = value;
    else {
      if (!(key in out)) out[key] = [];
      const list = out[key] as unknown[];
      expect(index).toBe(list.length);
      list.push(value);
    }
  });
  return out;
}

describe("scanDocument", () => {
  it("reads what JSON.parse reads, with strings full of escapes spanning the 1 MiB chunks", async () => {
    // Runs of backslashes and quotes land on every offset around the chunk boundaries.
    const tricky = `a\\"b\\\\"c]},[{"\u00e9\u{1f600}`.repeat(200_000);
    const doc = {
      format: "message-store",
      version: 2,
      generation: 7,
      conversations: [{ id: "c", title: tricky }, "s", 1, null, [1, [2]]],
      messages: [],
      turnTraces: [{ x: { y: [tricky, tricky.slice(3)] } }, true],
    };
    for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2)]) {
      const scanned = await scan(`\ufeff${text}`);
      expect(scanned).toEqual({ ...doc, messages: undefined });
    }
  });

  it("refuses what it does not read simply, so that the caller parses the file whole", async () => {
    for (const text of [
      '{"a":[,]}',
      '{"a":[1,]}',
      '{"a":[1 2]}',
      '{"a":1 "b":2}',
      '{"a":1,}',
      '{"a":{"b":1}}',
      '{"a":1,"a":2}',
      '{"a":[1]',
      '{"a":[1]} x',
      "[1]",
      '{"a":tru}',
    ]) {
      await expect(scan(text), text).rejects.toBeInstanceOf(UnexpectedShape);
    }
  });
});

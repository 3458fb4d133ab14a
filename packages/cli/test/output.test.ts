import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { OutputClosedError, writeLine } from "../src/output.js";

/** A file-like stream with a small buffer whose writes complete a moment later. */
function slowStream(): Writable & { lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    highWaterMark: 64,
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      setTimeout(done, 1);
    },
  });
  return Object.assign(stream, { lines });
}

describe("writeLine", () => {
  it("waits for drain under backpressure without leaving listeners behind", async () => {
    const stream = slowStream();
    const before = ["close", "error", "drain"].map((e) => stream.listenerCount(e));
    for (let i = 0; i < 40; i++) await writeLine(stream, `line ${i} ${"x".repeat(100)}`);
    expect(stream.lines).toHaveLength(40);
    expect(["close", "error", "drain"].map((e) => stream.listenerCount(e))).toEqual(before);
  });

  it("rejects with OutputClosedError when the stream closes while it waits", async () => {
    const stream = slowStream();
    const pending = writeLine(stream, "x".repeat(100));
    stream.destroy();
    await expect(pending).rejects.toBeInstanceOf(OutputClosedError);
    await expect(writeLine(stream, "after")).rejects.toBeInstanceOf(OutputClosedError);
  });
});

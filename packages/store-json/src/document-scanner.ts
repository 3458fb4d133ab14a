import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";

/** What the scanner hands over: a top-level member's scalar value, or one element of an array member. */
export type MemberVisitor = (key: string, value: unknown, index: number | null) => void;

const CHUNK = 1 << 20;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The structure is not the simple one the scanner reads: the caller parses the whole file instead. */
export class UnexpectedShape extends Error {}

/**
 * Reads a JSON object document `{ "k": scalar, "k": [ element, … ], … }` from `path` in 1 MiB
 * chunks and hands each scalar member and each array element, parsed on its own, to `visit` in
 * file order. So a large main file is never one buffer, one string and one object tree at once:
 * only the records built from it stay. Anything else (nested objects at the top, text that is not
 * UTF-8 or not JSON, a repeated key) throws {@link UnexpectedShape}; the caller then parses the
 * file whole, which reports the exact problem. Throws fs errors as they come.
 */
export async function scanDocument(path: string, visit: MemberVisitor): Promise<void> {
  const handle = await open(path, "r");
  try {
    const scanner = new Scanner(visit);
    const buffer = Buffer.allocUnsafe(CHUNK);
    let first = true;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      let chunk = buffer.subarray(0, bytesRead);
      if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf)
        chunk = chunk.subarray(3);
      first = false;
      scanner.feed(chunk);
    }
    scanner.end();
  } finally {
    await handle.close();
  }
}

class Scanner {
  #depth = 0;
  #inString = false;
  /** Pieces of the value being collected (from earlier chunks), and where it starts in this one. */
  #pieces: Buffer[] = [];
  #start = -1;
  /** What the value being collected is: a key, a member's scalar, an array element. */
  #collecting: "key" | "scalar" | "element" | null = null;
  #elementIsContainer = false;
  #key: string | null = null;
  #afterColon = false;
  #index = 0;
  #done = false;
  /** Separators: whether the last thing at depth 1 / depth 2 was an opening, a comma, or an item. */
  #d1: "open" | "comma" | "item" = "open";
  #d2: "open" | "comma" | "item" = "open";
  readonly #seen = new Set<string>();

  constructor(private readonly visit: MemberVisitor) {}

  feed(chunk: Buffer): void {
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.#inString) {
        const q = chunk.indexOf(QUOTE, i);
        if (q === -1) {
          i = n;
          break;
        }
        // A quote preceded by an odd number of backslashes is escaped. Backslashes at the start
        // of this chunk continue the previous one's run: kept in #pieces, counted there.
        let slashes = 0;
        for (let j = q - 1; j >= 0 && chunk[j] === BACKSLASH; j--) slashes++;
        if (slashes === q) slashes += this.#trailingSlashes();
        i = q + 1;
        if (slashes % 2 === 1) continue;
        this.#inString = false;
        if (this.#collecting === "key") this.#finish(chunk, i);
        continue;
      }
      const c = chunk[i]!;
      if (isSpace(c)) {
        i++;
        continue;
      }
      if (this.#done) throw new UnexpectedShape("data after the document");
      const d = this.#depth;
      if (c === QUOTE) {
        this.#inString = true;
        if (d === 1 && this.#key === null && this.#collecting === null) {
          if (this.#d1 === "item") throw new UnexpectedShape("a missing comma");
          this.#d1 = "item";
          this.#begin("key", i);
        } else if (d === 1 && this.#afterColon && this.#collecting === null)
          this.#begin("scalar", i);
        else if (d === 2 && this.#collecting === null) this.#beginElement(i, false);
        i++;
        continue;
      }
      if (c === 0x7b || c === 0x5b) {
        // { or [
        if (d === 0) {
          if (c !== 0x7b) throw new UnexpectedShape("not an object");
          this.#d1 = "open";
        } else if (d === 1) {
          if (c !== 0x5b || !this.#afterColon || this.#collecting !== null)
            throw new UnexpectedShape("a member that is not a scalar or an array");
          this.#afterColon = false;
          this.#index = 0;
          this.#d2 = "open";
        } else if (d === 2 && this.#collecting === null) {
          const end = c === 0x7b ? this.#fastElement(chunk, i) : -1;
          if (end !== -1) {
            i = end;
            continue;
          }
          this.#beginElement(i, true);
        }
        this.#depth++;
        i++;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        // } or ]
        if (d === 2 && this.#collecting === "element" && !this.#elementIsContainer) {
          this.#finish(chunk, i);
        }
        if (d === 1 && this.#collecting === "scalar") this.#finish(chunk, i);
        if (d === 1 && (c !== 0x7d || this.#d1 === "comma" || this.#key !== null))
          throw new UnexpectedShape("unbalanced");
        if (d === 2 && (c !== 0x5d || this.#d2 === "comma"))
          throw new UnexpectedShape("unbalanced");
        if (d <= 0) throw new UnexpectedShape("unbalanced");
        this.#depth--;
        i++;
        if (this.#depth === 2 && this.#collecting === "element" && this.#elementIsContainer) {
          this.#finish(chunk, i);
        } else if (this.#depth === 1 && d === 2) {
          this.#key = null; // the array member ended
        } else if (this.#depth === 0) {
          if (this.#key !== null || this.#afterColon)
            throw new UnexpectedShape("unfinished member");
          this.#done = true;
        }
        continue;
      }
      if (c === 0x2c) {
        // ,
        if (d === 2 && this.#collecting === "element" && !this.#elementIsContainer) {
          this.#finish(chunk, i);
        } else if (d === 1 && this.#collecting === "scalar") {
          this.#finish(chunk, i);
        }
        if (d === 2 && this.#collecting === null) {
          if (this.#d2 !== "item") throw new UnexpectedShape("a misplaced comma");
          this.#d2 = "comma";
        } else if (d === 1) {
          if (this.#d1 !== "item" || this.#key !== null)
            throw new UnexpectedShape("a misplaced comma");
          this.#d1 = "comma";
        } else if (d < 1) {
          throw new UnexpectedShape("a misplaced comma");
        }
        i++;
        continue;
      }
      if (c === 0x3a && d === 1) {
        if (this.#key === null || this.#afterColon) throw new UnexpectedShape("misplaced colon");
        this.#afterColon = true;
        i++;
        continue;
      }
      if (d === 1 && this.#afterColon && this.#collecting === null) this.#begin("scalar", i);
      else if (d === 2 && this.#collecting === null) this.#beginElement(i, false);
      else if (d < 2 && this.#collecting === null) throw new UnexpectedShape("stray character");
      i++;
    }
    if (this.#collecting !== null) {
      this.#pieces.push(Buffer.from(chunk.subarray(this.#start)));
      this.#start = 0;
    }
  }

  end(): void {
    if (!this.#done || this.#inString) throw new UnexpectedShape("unexpected end of data");
  }

  /**
   * The pretty-printed layout's shortcut for an object element starting at `at`: a raw newline
   * only ever stands between tokens (inside strings it is escaped), so the line that holds just
   * the element's indentation and `}` closes it. Found with `indexOf`, the element is parsed
   * without scanning its bytes here; parsing fails unless it really is the whole element (a
   * prefix of an object that parses is the object). Returns the end, or -1 to scan byte by byte.
   */
  #fastElement(chunk: Buffer, at: number): number {
    if (chunk[at + 1] !== 0x0a || this.#key === null || this.#d2 === "item") return -1;
    let lineStart = at;
    while (lineStart > 0 && chunk[lineStart - 1] === 0x20) lineStart--;
    if (lineStart === 0 || chunk[lineStart - 1] !== 0x0a) return -1;
    const close = this.#closer(at - lineStart);
    const found = chunk.indexOf(close, at);
    if (found === -1) return -1;
    const end = found + close.length;
    const bytes = chunk.subarray(at, end);
    if (!isUtf8(bytes)) return -1;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch {
      return -1;
    }
    this.#d2 = "item";
    this.visit(this.#key, value, this.#index++);
    return end;
  }

  readonly #closers = new Map<number, Buffer>();
  #closer(indent: number): Buffer {
    let close = this.#closers.get(indent);
    if (!close) {
      close = Buffer.from(`\n${" ".repeat(indent)}}`);
      this.#closers.set(indent, close);
    }
    return close;
  }

  /** Backslashes ending the collected pieces (a run split across chunks). */
  #trailingSlashes(): number {
    const last = this.#pieces[this.#pieces.length - 1];
    let count = 0;
    if (last) for (let j = last.length - 1; j >= 0 && last[j] === BACKSLASH; j--) count++;
    return count;
  }

  #begin(kind: "key" | "scalar", at: number): void {
    this.#collecting = kind;
    this.#start = at;
  }

  #beginElement(at: number, container: boolean): void {
    if (this.#key === null) throw new UnexpectedShape("an element outside a member");
    if (this.#d2 === "item") throw new UnexpectedShape("a missing comma");
    this.#d2 = "item";
    this.#collecting = "element";
    this.#elementIsContainer = container;
    this.#start = at;
  }

  /** Ends the value being collected at `end` (exclusive) and hands it on. */
  #finish(chunk: Buffer, end: number): void {
    const tail = chunk.subarray(this.#start, end);
    const bytes = this.#pieces.length === 0 ? tail : Buffer.concat([...this.#pieces, tail]);
    this.#pieces = [];
    const kind = this.#collecting;
    this.#collecting = null;
    if (!isUtf8(bytes)) throw new UnexpectedShape("not UTF-8");
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch {
      throw new UnexpectedShape("not JSON");
    }
    if (kind === "key") {
      const key = value as string;
      if (this.#seen.has(key)) throw new UnexpectedShape("a repeated key");
      this.#seen.add(key);
      this.#key = key;
    } else if (kind === "scalar") {
      this.visit(this.#key!, value, null);
      this.#key = null;
      this.#afterColon = false;
    } else {
      this.visit(this.#key!, value, this.#index++);
    }
  }
}

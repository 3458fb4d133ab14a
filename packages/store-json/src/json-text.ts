import type { Message } from "@message-store/core";

/*
 * Messages are stringified with their embedding on one line: pretty-printing would put each of
 * its (often 1536) numbers on a line of its own. The embedding is swapped for a placeholder, the
 * message stringified, and the placeholder's JSON text replaced by the compact vector. The
 * vector is written by hand because JSON.stringify writes -0 as 0 and an embedding must
 * round-trip as exact float64 (JSON.parse reads `-0` back as -0). The placeholder is a lone
 * surrogate: validated data never holds one and a literal backslash is always escaped, so its
 * JSON text cannot come from a user's string.
 */
const PLACEHOLDER = "\ud800";
const PLACEHOLDER_TEXT = JSON.stringify(PLACEHOLDER);

function numberText(x: number): string {
  return x === 0 && 1 / x < 0 ? "-0" : JSON.stringify(x);
}

/**
 * `JSON.stringify(value, null, 2)` as it reads `depth` levels deep inside a document printed the
 * same way: every line, the first included, indented by `2 × depth` spaces. The engine indents
 * it while stringifying (the value is wrapped in `depth` arrays whose brackets are cut off),
 * which is faster than re-indenting the text afterwards.
 */
export function stringifyNested(value: unknown, depth: number): string {
  let wrapped = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, 2);
  // Cut `depth` opening brackets (each "[\n" plus its indentation) and as many closing ones.
  let head = 0;
  let tail = text.length;
  for (let i = 0; i < depth; i++) {
    head = text.indexOf("\n", head) + 1;
    tail = text.lastIndexOf("\n", tail - 1);
  }
  return text.slice(head, tail);
}

/**
 * `JSON.stringify(message, null, indent)`, but with the embedding compact and exact; with
 * `depth`, indented for that depth as {@link stringifyNested} does.
 */
export function stringifyMessage(message: Message, indent?: number, depth = 0): string {
  const stringify = (value: unknown) =>
    depth > 0 ? stringifyNested(value, depth) : JSON.stringify(value, null, indent);
  if (message.embedding === null) return stringify(message);
  const vector = `[${message.embedding.map(numberText).join(",")}]`;
  const text = stringify({ ...message, embedding: PLACEHOLDER });
  return text.replace(PLACEHOLDER_TEXT, () => vector);
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPABLE = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/** End of the string starting at `i` (a `"`), or `-1 - offset` of the first error. */
function scanString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c < 0x20) return -1 - j;
    if (c !== 0x5c) continue;
    const next = text[j + 1];
    if (next === "u") {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) return -1 - j;
      j += 5;
    } else if (next !== undefined && ESCAPABLE.has(next)) {
      j += 1;
    } else {
      return -1 - j;
    }
  }
  return -1 - text.length;
}

/** End of the scalar starting at `i`, or `-1 - i`. */
function scanScalar(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return scanString(text, i);
  for (const word of ["true", "false", "null"])
    if (text.startsWith(word, i)) return i + word.length;
  NUMBER.lastIndex = i;
  return NUMBER.test(text) ? NUMBER.lastIndex : -1 - i;
}

/**
 * Offset of the first syntax error in `text`, which `JSON.parse` rejected. Only run on that
 * failure path: the engine's message does not always say where the error is.
 */
export function syntaxErrorOffset(text: string): number {
  const stack: string[] = [];
  let i = 0;
  let state: "value" | "firstValue" | "key" | "firstKey" | "after" = "value";
  for (;;) {
    while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
    if (state === "after" && stack.length === 0) return i;
    if (i >= text.length) return i;
    const c = text[i]!;
    if (state === "after") {
      const top = stack[stack.length - 1];
      if (c === ",") state = top === "{" ? "key" : "value";
      else if ((c === "}" && top === "{") || (c === "]" && top === "[")) stack.pop();
      else return i;
      i++;
    } else if (state === "key" || state === "firstKey") {
      if (state === "firstKey" && c === "}") {
        stack.pop();
        i++;
        state = "after";
        continue;
      }
      if (c !== '"') return i;
      const end = scanString(text, i);
      if (end < 0) return -1 - end;
      i = end;
      while (i < text.length && " \t\n\r".includes(text[i]!)) i++;
      if (text[i] !== ":") return i;
      i++;
      state = "value";
    } else if (state === "firstValue" && c === "]") {
      stack.pop();
      i++;
      state = "after";
    } else if (c === "{" || c === "[") {
      stack.push(c);
      i++;
      state = c === "{" ? "firstKey" : "firstValue";
    } else {
      const end = scanScalar(text, i);
      if (end < 0) return -1 - end;
      i = end;
      state = "after";
    }
  }
}

/** 1-based line and column of `offset` in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/** Where and why `JSON.parse` rejected `text`: offset, 1-based line and column, and a short reason. */
export function describeSyntaxError(text: string): {
  offset: number;
  line: number;
  column: number;
  problem: string;
} {
  const offset = syntaxErrorOffset(text);
  const problem =
    offset >= text.length
      ? "unexpected end of data"
      : `unexpected character ${JSON.stringify(text[offset])}`;
  return { offset, ...lineAndColumn(text, offset), problem };
}

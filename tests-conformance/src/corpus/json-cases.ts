import { MAX_JSON_DEPTH } from "@message-store/core";
import {
  existingConversation,
  existingMessage,
  existingTrace,
  newMessage,
  newTrace,
} from "./builders.js";
import { type CorpusCase, rejects } from "./corpus-case.js";
import { nest } from "./round-trip-records.js";

const any = (v: unknown) => v as any;

function cyclic(): Record<string, unknown> {
  const o: Record<string, unknown> = { a: 1 };
  o.self = o;
  return o;
}

class Point {
  constructor(
    readonly x = 1,
    readonly y = 2,
  ) {}
}

/** Values that are not JSON, and strings that are not valid Unicode (lone surrogates). */
export const JSON_CASES: CorpusCase[] = [
  rejects("metadata holding a BigInt", (s, d) =>
    s.storeMessage(any(existingMessage(d, { metadata: { n: 10n } }))),
  ),
  rejects("metadata that is cyclic", (s, d) =>
    s.storeConversation(any(existingConversation(d, { metadata: cyclic() }))),
  ),
  rejects("tool call arguments that are cyclic deep inside", (s, d) =>
    s.storeMessage(
      any(
        newMessage(d, {
          toolCalls: [{ toolCallId: "c", toolName: "t", arguments: { deep: [cyclic()] } }],
        }),
      ),
    ),
  ),
  rejects("metadata holding undefined", (s, d) =>
    s.storeMessage(any(newMessage(d, { metadata: { u: undefined } }))),
  ),
  rejects("metadata holding a function", (s, d) =>
    s.storeMessage(any(newMessage(d, { metadata: { f: () => 1 } }))),
  ),
  rejects("metadata holding a Date", (s, d) =>
    s.storeConversation(any(existingConversation(d, { metadata: { at: new Date(0) } }))),
  ),
  rejects("metadata holding a Map", (s, d) =>
    s.storeMessage(any(newMessage(d, { metadata: { m: new Map([["a", 1]]) } }))),
  ),
  rejects("metadata holding a class instance", (s, d) =>
    s.storeMessage(any(newMessage(d, { metadata: { p: new Point() } }))),
  ),
  rejects("metadata holding a Symbol", (s, d) =>
    s.storeMessage(any(newMessage(d, { metadata: { s: Symbol("s") } }))),
  ),
  rejects("metadata holding NaN", (s, d) =>
    s.storeTurnTrace(any(existingTrace(d, { metadata: { n: Number.NaN } }))),
  ),
  rejects("metadata holding -Infinity in an array", (s, d) =>
    s.storeMessage(any(newMessage(d, { metadata: { a: [1, Number.NEGATIVE_INFINITY] } }))),
  ),
  rejects("finalData holding Infinity", (s, d) =>
    s.storeTurnTrace(
      any(
        newTrace(d, {
          toolTraces: [{ toolName: "t", finalData: { x: Number.POSITIVE_INFINITY } }],
        }),
      ),
    ),
  ),
  rejects("tool call result that is a BigInt", (s, d) =>
    s.storeMessage(
      any(newMessage(d, { toolCalls: [{ toolCallId: "c", toolName: "t", result: 1n }] })),
    ),
  ),
  rejects("errors entry holding a Uint8Array", (s, d) =>
    s.storeTurnTrace(any(newTrace(d, { errors: [{ bytes: new Uint8Array(2) }] }))),
  ),
  rejects("__proto__ as a JSON key (core rejects it: parsers drop it silently)", (s, d) =>
    s.storeConversation(
      existingConversation(d, { metadata: JSON.parse('{"__proto__": {"polluted": true}}') }),
    ),
  ),
  rejects("__proto__ as a nested JSON key", (s, d) =>
    s.storeTurnTrace(newTrace(d, { errors: [{ detail: JSON.parse('{"a": {"__proto__": 1}}') }] })),
  ),
  rejects(`JSON nested ${MAX_JSON_DEPTH + 1} levels deep in metadata`, (s, d) =>
    s.storeConversation(existingConversation(d, { metadata: nest(MAX_JSON_DEPTH + 1) })),
  ),
  rejects(`JSON nested ${MAX_JSON_DEPTH + 1} levels deep in finalData`, (s, d) =>
    s.storeTurnTrace(
      newTrace(d, { toolTraces: [{ toolName: "t", finalData: nest(MAX_JSON_DEPTH + 1) }] }),
    ),
  ),
  rejects("lone high surrogate in content", (s, d) =>
    s.storeMessage(existingMessage(d, { originalContent: "ok \uD800 broken" })),
  ),
  rejects("lone low surrogate in a tag", (s, d) =>
    s.storeConversation(existingConversation(d, { tags: ["fine", "\uDC00"] })),
  ),
  rejects("lone surrogate in a metadata key", (s, d) =>
    s.storeMessage(newMessage(d, { metadata: { "key\uD83D": 1 } })),
  ),
  rejects("lone surrogate in a nested metadata value", (s, d) =>
    s.storeTurnTrace(newTrace(d, { metadata: { a: { b: ["\uDE00"] } } })),
  ),
  rejects("lone surrogate in an id", (s, d) => s.storeMessage(newMessage(d, { id: "id-\uD800" }))),
  rejects("lone surrogate in a tool call result", (s, d) =>
    s.storeMessage(
      newMessage(d, {
        toolCalls: [{ toolCallId: "c", toolName: "t", result: { text: "\uD83D" } }],
      }),
    ),
  ),
  rejects("lone surrogate in a getMessage id", (s) => s.getMessage("\uDFFF")),
  rejects("surrogates in the wrong order", (s, d) =>
    s.storeMessage(newMessage(d, { originalContent: "\uDE00\uD83D" })),
  ),
  rejects("message embedding that is empty", (s, d) =>
    s.storeMessage(any(newMessage(d, { embedding: [] }))),
  ),
  rejects("message embedding holding NaN", (s, d) =>
    s.storeMessage(any(existingMessage(d, { embedding: [0.1, Number.NaN] }))),
  ),
  rejects("message embedding given as a string", (s, d) =>
    s.storeMessage(any(newMessage(d, { embedding: "0.1,0.2" }))),
  ),
];

import {
  EmbeddingUpdateSchema,
  IdSchema,
  MessageSchema,
  type Scope,
  TimestampSchema,
  TurnTraceSchema,
  ValidationError,
} from "@message-store/core";
import {
  canonicalConversationRecord,
  canonicalMessage,
  canonicalTurnTrace,
} from "@message-store/core/adapter";
import {
  type JournalFieldKind,
  type JournalFieldTypes,
  OPERATION_KINDS,
  type Operation,
} from "@message-store/core/memory";
import { checkpointOf, fileCheckpoint, fileWrites, writesOf } from "./checkpoint-codec.js";
import { ADAPTER } from "./config.js";
import { stringifyMessage } from "./json-text.js";
import { ConversationRecordSchema, corruptData, parseStored } from "./record-schemas.js";

/*
 * Journal lines: one JSON object per line, an operation plus `gen`, or a group of operations
 * committed together. Lines written by earlier versions stay readable: an operation only ever
 * gains optional fields, and records are read with the model's defaults for fields they lack.
 */

/** V8's longest string on 64-bit platforms (2^29 − 24 UTF-16 code units). */
const MAX_STRING_LENGTH = 2 ** 29 - 24;

/**
 * A journal line as the texts that make it up, in order. They are written into the journal's
 * buffer one by one (`Journal.append`), never joined into one string: joining, slicing and
 * re-encoding a 500-message line cost ~0.8 ms of CPU per batch (BENCHMARKS.md, "#17"). Gives up
 * with the engine's `RangeError` as soon as the texts add up past the longest string, since
 * replay reads each line back as one string (and rather than after holding all of a 600 MiB
 * batch).
 */
class LineParts {
  readonly parts: string[] = [];
  #length = 0;

  push(text: string): void {
    this.#length += text.length;
    if (this.#length > MAX_STRING_LENGTH) throw new RangeError("Invalid string length");
    this.parts.push(text);
  }
}

/** How one kind of field is written into a line and read back from one. */
interface FieldCodec<T> {
  /** Appends the value's JSON text; default `JSON.stringify`. */
  encode?(line: LineParts, value: T): void;
  decode(value: unknown, key: string, location: string): T;
}

const arrayOf = <T>(
  value: unknown,
  key: string,
  location: string,
  item: (v: unknown, path: string) => T,
): T[] => {
  if (!Array.isArray(value)) throw corruptData(`${key} must be an array`, location);
  return value.map((v, i) => item(v, `${key}[${i}]`));
};

/**
 * Each kind of field an operation declares (see `OPERATION_KINDS` in `@message-store/core/memory`),
 * encoded and decoded once here, whatever operation carries it.
 */
const FIELD_CODECS: { [K in JournalFieldKind]: FieldCodec<JournalFieldTypes[K]> } = {
  id: { decode: (v, key, location) => parseStored(IdSchema, v, key, location) },
  time: { decode: (v, key, location) => parseStored(TimestampSchema, v, key, location) },
  flag: {
    decode(v, key, location) {
      if (typeof v !== "boolean") throw corruptData(`${key} must be a boolean`, location);
      return v;
    },
  },
  conversation: { decode: (v, _key, location) => conversationOf(v, location) },
  messages: {
    // Message by message, never one string of the whole batch (see `LineParts`).
    encode(line, messages) {
      line.push("[");
      for (let i = 0; i < messages.length; i++) {
        if (i > 0) line.push(",");
        line.push(stringifyMessage(messages[i]!));
      }
      line.push("]");
    },
    decode: (v, key, location) =>
      arrayOf(v, key, location, (m, path) =>
        parseStored(MessageSchema, m, path, location, canonicalMessage),
      ),
  },
  trace: {
    decode: (v, key, location) =>
      parseStored(TurnTraceSchema, v, key, location, canonicalTurnTrace),
  },
  updates: {
    decode: (v, key, location) =>
      arrayOf(v, key, location, (u, path) => parseStored(EmbeddingUpdateSchema, u, path, location)),
  },
  scope: { decode: (v, _key, location) => scopeOf(v, location) },
  checkpoint: {
    encode: (line, c) => line.push(JSON.stringify(fileCheckpoint(c))),
    decode: (v, key, location) => checkpointOf(v, key, location),
  },
  writes: {
    encode: (line, w) => line.push(JSON.stringify(fileWrites(w))),
    decode: (v, key, location) => writesOf(v, key, location),
  },
};

type Kind = {
  required: Readonly<Record<string, JournalFieldKind>>;
  optional: Readonly<Record<string, JournalFieldKind>>;
};
const KINDS = OPERATION_KINDS as unknown as Readonly<Record<Operation["op"], Kind>>;
const codecOf = (kind: JournalFieldKind) => FIELD_CODECS[kind] as FieldCodec<unknown>;

/** An operation as JSON text opening with `head` (`{` or `{"gen":N,`), appended to `line`. */
function pushOperation(line: LineParts, op: Operation, head: string): void {
  const { required, optional } = KINDS[op.op];
  const fields = op as unknown as Record<string, unknown>;
  line.push(`${head}"op":${JSON.stringify(op.op)}`);
  for (const [key, kind] of [...Object.entries(required), ...Object.entries(optional)]) {
    const value = fields[key];
    if (value === undefined) continue;
    line.push(`,${JSON.stringify(key)}:`);
    const { encode } = codecOf(kind);
    if (encode) encode(line, value);
    else line.push(JSON.stringify(value));
  }
  line.push("}");
}

/**
 * The journal line of operations committed together (see `group-commit.ts`), as its parts
 * (without the newline): one line, so that a crash keeps all of them or none. A single operation
 * is written as an ordinary line. A line longer than JavaScript's longest string is a
 * `ValidationError` (before anything is written).
 */
export function encodeGroup(ops: readonly Operation[], gen: number): readonly string[] {
  const line = new LineParts();
  try {
    if (ops.length === 1) {
      pushOperation(line, ops[0]!, `{"gen":${gen},`);
    } else {
      line.push(`{"gen":${gen},"op":"group","ops":[`);
      for (let i = 0; i < ops.length; i++) pushOperation(line, ops[i]!, i > 0 ? ",{" : "{");
      line.push("]}");
    }
    return line.parts;
  } catch (error) {
    if (!(error instanceof RangeError && /string length/i.test(error.message))) throw error;
    throw new ValidationError(
      "input too large: its journal line would exceed JavaScript's longest string (about 512 MiB); nothing was stored, split the batch",
      [{ path: [], message: "too large to journal", code: "too_big" }],
      { adapter: ADAPTER, cause: error },
    );
  }
}

/**
 * The line a compaction appends when it starts: the lines after it carry generation `gen`, one
 * more than the lines before it (see `file-persistence.ts`). It holds no operation.
 */
export function encodeGenerationMark(gen: number): string {
  return `{"gen":${gen},"op":"generation"}`;
}

const NOT_AN_OPERATION = "journal line is not a known operation record";

function isGeneration(gen: unknown): gen is number {
  return Number.isSafeInteger(gen) && (gen as number) >= 0;
}

/**
 * Validates a parsed journal line, an operation or a group of them; anything off is a
 * `CorruptDataError` naming `location`.
 */
export function decodeLine(
  value: unknown,
  location: string,
): { gen: number; ops: Operation[]; mark?: true } {
  const line = value as Record<string, unknown>;
  if (typeof value === "object" && value !== null && line.op === "generation") {
    if (!isGeneration(line.gen) || Object.keys(value).length !== 2) {
      throw corruptData(NOT_AN_OPERATION, location);
    }
    return { gen: line.gen, ops: [], mark: true };
  }
  if (typeof value === "object" && value !== null && line.op === "group") {
    const keys = Object.keys(value);
    if (
      !isGeneration(line.gen) ||
      keys.length !== 3 ||
      !keys.includes("ops") ||
      !Array.isArray(line.ops) ||
      line.ops.length === 0
    ) {
      throw corruptData(NOT_AN_OPERATION, location);
    }
    return { gen: line.gen, ops: line.ops.map((entry) => decodeEntry(entry, location, false)) };
  }
  if (!isGeneration(line?.gen)) throw corruptData(NOT_AN_OPERATION, location);
  return { gen: line.gen, ops: [decodeEntry(value, location, true)] };
}

function hasExactly(value: unknown, op: string, withGen: boolean): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  if (!Object.hasOwn(KINDS, op)) return false;
  const kind = KINDS[op as Operation["op"]];
  const required = Object.keys(kind.required);
  const allowed = new Set(["op", ...required, ...Object.keys(kind.optional)]);
  if (withGen) allowed.add("gen");
  const keys = Object.keys(value);
  return required.every((f) => keys.includes(f)) && keys.every((k) => allowed.has(k));
}

/** One operation: a whole line (`withGen`) or an entry of a group line. */
function decodeEntry(value: unknown, location: string, withGen: boolean): Operation {
  const line = value as Record<string, unknown>;
  const op = line?.op;
  if (typeof op !== "string" || !hasExactly(value, op, withGen)) {
    throw corruptData(NOT_AN_OPERATION, location);
  }
  const { required, optional } = KINDS[op as Operation["op"]];
  const decoded: Record<string, unknown> = { op };
  for (const [key, kind] of Object.entries(required))
    decoded[key] = codecOf(kind).decode(line[key], key, location);
  for (const [key, kind] of Object.entries(optional))
    if (line[key] !== undefined) decoded[key] = codecOf(kind).decode(line[key], key, location);
  return decoded as unknown as Operation;
}

function conversationOf(value: unknown, location: string) {
  return parseStored(
    ConversationRecordSchema,
    value,
    "conversation",
    location,
    canonicalConversationRecord,
  );
}

function scopeOf(value: unknown, location: string): Scope {
  const scope = value as Record<string, unknown> | null;
  const keys = typeof scope === "object" && scope !== null ? Object.keys(scope) : null;
  if (!keys?.every((k) => k === "userId" || k === "tenantId"))
    throw corruptData("scope must be an object of userId and tenantId", location);
  const out: { userId?: string; tenantId?: string } = {};
  if (scope!.userId !== undefined)
    out.userId = parseStored(IdSchema, scope!.userId, "scope.userId", location);
  if (scope!.tenantId !== undefined)
    out.tenantId = parseStored(IdSchema, scope!.tenantId, "scope.tenantId", location);
  return out;
}

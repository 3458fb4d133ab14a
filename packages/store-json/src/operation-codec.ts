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
import type { Operation } from "@message-store/core/memory";
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

/** An operation as JSON text opening with `head` (`{` or `{"gen":N,`), appended to `line`. */
function pushOperation(line: LineParts, op: Operation, head: string): void {
  if (op.op === "putCheckpoint" || op.op === "putCheckpointWrites") {
    const encoded =
      op.op === "putCheckpoint"
        ? { ...op, checkpoint: fileCheckpoint(op.checkpoint) }
        : { ...op, writes: fileWrites(op.writes) };
    line.push(`${head}${JSON.stringify(encoded).slice(1)}`);
    return;
  }
  if (op.op !== "putMessages") {
    line.push(`${head}${JSON.stringify(op).slice(1)}`);
    return;
  }
  line.push(`${head}"op":"putMessages","messages":[`);
  for (let i = 0; i < op.messages.length; i++) {
    if (i > 0) line.push(",");
    line.push(stringifyMessage(op.messages[i]!));
  }
  line.push(
    op.ensureConversation
      ? `],"ensureConversation":${JSON.stringify(op.ensureConversation)}}`
      : "]}",
  );
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

/** Each operation's fields: required ones, then optional ones (added by later versions). */
const FIELDS: Record<Operation["op"], [required: string[], optional?: string[]]> = {
  putConversation: [["conversation"]],
  deleteConversation: [["id"]],
  softDeleteConversation: [["id", "deletedAt"]],
  restoreConversation: [["id"]],
  putMessages: [["messages"], ["ensureConversation"]],
  flagMessage: [["id", "flagged"]],
  softDeleteMessage: [["id", "deletedAt"]],
  restoreMessage: [["id"]],
  deleteMessage: [["id"]],
  purgeDeleted: [["before", "scope"]],
  setEmbeddings: [["updates"]],
  putTurnTrace: [["trace"]],
  deleteUserData: [["userId"], ["tenantId"]],
  putCheckpoint: [["checkpoint"], ["ensureConversation"]],
  putCheckpointWrites: [["writes"], ["ensureConversation"]],
  deleteCheckpoints: [["id"]],
};

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
  if (!Object.hasOwn(FIELDS, op)) return false;
  const [required, optional = []] = FIELDS[op as Operation["op"]];
  const allowed = new Set(["op", ...required, ...optional, ...(withGen ? ["gen"] : [])]);
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
  const id = (key: string) => parseStored(IdSchema, line[key], key, location);
  const time = (key: string) => parseStored(TimestampSchema, line[key], key, location);
  switch (op as Operation["op"]) {
    case "putConversation":
      return { op: "putConversation", conversation: conversationOf(line.conversation, location) };
    case "deleteCheckpoints":
    case "deleteConversation":
    case "restoreConversation":
    case "restoreMessage":
    case "deleteMessage":
      return { op: op as "deleteMessage", id: id("id") };
    case "softDeleteConversation":
    case "softDeleteMessage":
      return { op: op as "softDeleteMessage", id: id("id"), deletedAt: time("deletedAt") };
    case "deleteUserData":
      return line.tenantId === undefined
        ? { op: "deleteUserData", userId: id("userId") }
        : { op: "deleteUserData", userId: id("userId"), tenantId: id("tenantId") };
    case "flagMessage":
      if (typeof line.flagged !== "boolean")
        throw corruptData("flagged must be a boolean", location);
      return { op: "flagMessage", id: id("id"), flagged: line.flagged };
    case "purgeDeleted":
      return { op: "purgeDeleted", before: time("before"), scope: scopeOf(line.scope, location) };
    case "setEmbeddings": {
      if (!Array.isArray(line.updates)) throw corruptData("updates must be an array", location);
      const updates = line.updates.map((u, i) =>
        parseStored(EmbeddingUpdateSchema, u, `updates[${i}]`, location),
      );
      return { op: "setEmbeddings", updates };
    }
    case "putMessages": {
      if (!Array.isArray(line.messages)) throw corruptData("messages must be an array", location);
      const messages = line.messages.map((m, i) =>
        parseStored(MessageSchema, m, `messages[${i}]`, location, canonicalMessage),
      );
      if (line.ensureConversation === undefined) return { op: "putMessages", messages };
      const ensureConversation = conversationOf(line.ensureConversation, location);
      return { op: "putMessages", messages, ensureConversation };
    }
    case "putTurnTrace": {
      const trace = parseStored(TurnTraceSchema, line.trace, "trace", location, canonicalTurnTrace);
      return { op: "putTurnTrace", trace };
    }
    case "putCheckpoint": {
      const checkpoint = checkpointOf(line.checkpoint, "checkpoint", location);
      if (line.ensureConversation === undefined) return { op: "putCheckpoint", checkpoint };
      const ensureConversation = conversationOf(line.ensureConversation, location);
      return { op: "putCheckpoint", checkpoint, ensureConversation };
    }
    case "putCheckpointWrites": {
      const writes = writesOf(line.writes, "writes", location);
      if (line.ensureConversation === undefined) return { op: "putCheckpointWrites", writes };
      const ensureConversation = conversationOf(line.ensureConversation, location);
      return { op: "putCheckpointWrites", writes, ensureConversation };
    }
  }
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

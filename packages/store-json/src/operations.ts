import {
  type ConversationRecord,
  type DeletedCounts,
  IdSchema,
  IntegrityError,
  type Message,
  MessageSchema,
  type TurnTrace,
  TurnTraceSchema,
} from "@message-store/core";
import {
  canonicalConversationRecord,
  canonicalMessage,
  canonicalTurnTrace,
} from "@message-store/core/adapter";
import { stringifyMessage } from "./json-text.js";
import { type MemoryState, type StoredConversation, storedConversation } from "./memory-state.js";
import { ConversationRecordSchema, corruptData, parseStored } from "./record-schemas.js";

/**
 * One committed write. The same value is checked and applied for a live call and when a journal
 * line is replayed, and it is what a journal line holds (plus `gen`, see `FilePersistence`).
 */
export type Operation =
  | { op: "putConversation"; conversation: ConversationRecord }
  | { op: "deleteConversation"; id: string }
  | { op: "putMessages"; messages: Message[] }
  | { op: "flagMessage"; id: string; flagged: boolean }
  | { op: "putTurnTrace"; trace: TurnTrace }
  | { op: "deleteUserData"; userId: string };

/** What applying each operation returns: the stored records themselves (callers copy them). */
interface Results {
  putConversation: StoredConversation;
  deleteConversation: boolean;
  putMessages: Message[];
  flagMessage: Message | null;
  putTurnTrace: TurnTrace;
  deleteUserData: DeletedCounts;
}
export type ResultOf<O extends Operation> = Results[O["op"]];

const integrity = (message: string) => new IntegrityError(message);
const q = JSON.stringify;

/**
 * Checks the integrity rules against the current state. Throws `IntegrityError`; returns
 * `false` when the operation would change nothing (it is then not journaled).
 */
export function checkOperation(state: MemoryState, op: Operation): boolean {
  switch (op.op) {
    case "putConversation":
      return true;
    case "deleteConversation":
      return state.conversations.has(op.id);
    case "deleteUserData":
      return state.conversationIdsByUser.has(op.userId);
    case "flagMessage": {
      const entry = state.messages.get(op.id);
      return entry !== undefined && entry.message.isFlagged !== op.flagged;
    }
    case "putMessages":
      for (const m of op.messages) {
        if (!state.conversations.has(m.conversationId)) {
          throw integrity(`message ${q(m.id)}: conversation ${q(m.conversationId)} does not exist`);
        }
        const existing = state.messages.get(m.id)?.message;
        if (existing && existing.conversationId !== m.conversationId) {
          throw integrity(
            `message ${q(m.id)} belongs to conversation ${q(existing.conversationId)} and cannot move to ${q(m.conversationId)}`,
          );
        }
      }
      return true;
    case "putTurnTrace": {
      const t = op.trace;
      const message = state.messages.get(t.messageId)?.message;
      if (!message) {
        throw integrity(`turn trace ${q(t.id)}: message ${q(t.messageId)} does not exist`);
      }
      if (message.conversationId !== t.conversationId) {
        throw integrity(
          `turn trace ${q(t.id)}: message ${q(t.messageId)} belongs to conversation ${q(message.conversationId)}, not ${q(t.conversationId)}`,
        );
      }
      const other = state.traceIdByMessage.get(t.messageId);
      if (other !== undefined && other !== t.id) {
        throw integrity(`message ${q(t.messageId)} already has turn trace ${q(other)}`);
      }
      return true;
    }
  }
}

/** Applies a checked operation. Synchronous and infallible, so it is never seen half done. */
export function applyOperation<O extends Operation>(state: MemoryState, op: O): ResultOf<O> {
  return apply(state, op) as ResultOf<O>;
}

function apply(state: MemoryState, op: Operation): Results[keyof Results] {
  switch (op.op) {
    case "putConversation": {
      const old = state.conversations.get(op.conversation.id);
      const stored = storedConversation(op.conversation, old?.lastMessageAt ?? null);
      state.setConversation(stored);
      return stored;
    }
    case "deleteConversation":
      return state.removeConversation(op.id) !== null;
    case "deleteUserData": {
      const counts = { conversations: 0, messages: 0, turnTraces: 0 };
      for (const id of [...(state.conversationIdsByUser.get(op.userId) ?? [])]) {
        const removed = state.removeConversation(id);
        if (!removed) continue;
        counts.conversations++;
        counts.messages += removed.messages;
        counts.turnTraces += removed.turnTraces;
      }
      return counts;
    }
    case "flagMessage": {
      const entry = state.messages.get(op.id);
      if (!entry) return null;
      entry.message = { ...entry.message, isFlagged: op.flagged };
      return entry.message;
    }
    case "putMessages":
      for (const m of op.messages) state.putMessage(m);
      return op.messages;
    case "putTurnTrace":
      state.putTrace(op.trace);
      return op.trace;
  }
}

/** An operation as JSON text, without `gen`. */
function encodeBody(op: Operation): string {
  if (op.op === "putMessages") {
    const messages = op.messages.map((m) => stringifyMessage(m)).join(",");
    return `{"op":"putMessages","messages":[${messages}]}`;
  }
  return JSON.stringify(op);
}

/** The journal line of an operation (without the newline). */
export function encodeOperation(op: Operation, gen: number): string {
  return `{"gen":${gen},${encodeBody(op).slice(1)}`;
}

/**
 * The journal line of operations committed together (see `group-commit.ts`): one line, so that
 * a crash keeps all of them or none. A single operation is written as an ordinary line.
 */
export function encodeGroup(ops: readonly Operation[], gen: number): string {
  if (ops.length === 1) return encodeOperation(ops[0]!, gen);
  return `{"gen":${gen},"op":"group","ops":[${ops.map(encodeBody).join(",")}]}`;
}

const FIELDS: Record<Operation["op"], string[]> = {
  putConversation: ["conversation"],
  deleteConversation: ["id"],
  putMessages: ["messages"],
  flagMessage: ["id", "flagged"],
  putTurnTrace: ["trace"],
  deleteUserData: ["userId"],
};

const NOT_AN_OPERATION = "journal line is not a known operation record";

function isGeneration(gen: unknown): gen is number {
  return Number.isSafeInteger(gen) && (gen as number) >= 0;
}

/**
 * Validates a parsed journal line, an operation or a group of them; anything off is a
 * `CorruptDataError` naming `location`.
 */
export function decodeLine(value: unknown, location: string): { gen: number; ops: Operation[] } {
  const line = value as Record<string, unknown>;
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

/** One operation: a whole line (`withGen`) or an entry of a group line. */
function decodeEntry(value: unknown, location: string, withGen: boolean): Operation {
  const line = value as Record<string, unknown>;
  const fields = typeof line?.op === "string" ? FIELDS[line.op as Operation["op"]] : undefined;
  const keys = typeof value === "object" && value !== null ? Object.keys(value) : [];
  if (
    Array.isArray(value) ||
    !fields ||
    !Object.hasOwn(FIELDS, line.op as string) ||
    keys.length !== fields.length + (withGen ? 2 : 1) ||
    !fields.every((f) => keys.includes(f))
  ) {
    throw corruptData(NOT_AN_OPERATION, location);
  }
  const id = (key: string) => parseStored(IdSchema, line[key], key, location);
  switch (line.op as Operation["op"]) {
    case "putConversation": {
      const conversation = parseStored(
        ConversationRecordSchema,
        line.conversation,
        "conversation",
        location,
        canonicalConversationRecord,
      );
      return { op: "putConversation", conversation };
    }
    case "deleteConversation":
      return { op: "deleteConversation", id: id("id") };
    case "deleteUserData":
      return { op: "deleteUserData", userId: id("userId") };
    case "flagMessage":
      if (typeof line.flagged !== "boolean")
        throw corruptData("flagged must be a boolean", location);
      return { op: "flagMessage", id: id("id"), flagged: line.flagged };
    case "putMessages": {
      if (!Array.isArray(line.messages)) throw corruptData("messages must be an array", location);
      const messages = line.messages.map((m, i) =>
        parseStored(MessageSchema, m, `messages[${i}]`, location, canonicalMessage),
      );
      return { op: "putMessages", messages };
    }
    case "putTurnTrace": {
      const trace = parseStored(TurnTraceSchema, line.trace, "trace", location, canonicalTurnTrace);
      return { op: "putTurnTrace", trace };
    }
  }
}

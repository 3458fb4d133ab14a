import { MessageSchema, TurnTraceSchema } from "@message-store/core";
import {
  canonicalConversationRecord,
  canonicalMessage,
  canonicalTurnTrace,
} from "@message-store/core/adapter";
import {
  MemoryState,
  putChannelValue,
  type StoredConversation,
  storeCheckpoint,
  storeCheckpointWrites,
  storedConversation,
  storedTrace,
} from "@message-store/core/memory";
import { channelValueRowOf, checkpointRowOf, writeRowOf } from "./checkpoint-codec.js";
import {
  corruptData,
  describeRecord,
  parseStored,
  StoredConversationSchema,
} from "./record-schemas.js";

/*
 * The main file: one pretty-printed JSON document,
 *   { "format": "message-store", "version": 2, "generation": 3,
 *     "conversations": [...], "messages": [...], "turnTraces": [...] }
 * Message sequence is the position in `messages`. `generation` says which journal lines are
 * already folded in (see FilePersistence).
 */

export const FORMAT = "message-store";
/** Written: 2 (records with tenants, soft delete and the new message fields). Read: 1 and 2. */
export const VERSION = 2;
const READABLE = new Set([1, 2]);
/**
 * The file's record arrays, in the order `writeSnapshotTemp` writes them (the streaming read
 * needs it).
 */
export const RECORD_ARRAYS = [
  "conversations",
  "messages",
  "turnTraces",
  "checkpoints",
  "checkpointValues",
  "checkpointWrites",
] as const;
const KEYS = new Set<string>(["format", "version", "generation", ...RECORD_ARRAYS]);

/** Core's fast check of a conversation record, plus the file's `lastMessageAt`. */
function canonicalStoredConversation(c: Record<string, unknown>): StoredConversation | undefined {
  const { lastMessageAt, ...record } = c;
  if (
    lastMessageAt !== null &&
    !(Number.isSafeInteger(lastMessageAt) && (lastMessageAt as number) >= 0)
  ) {
    return undefined;
  }
  const canonical = canonicalConversationRecord(record);
  return canonical && storedConversation(canonical, lastMessageAt as number | null);
}

/** The loaded main file. */
export interface Snapshot {
  state: MemoryState;
  generation: number;
}

/** Checks the document's header and each record against the models and the integrity rules, indexing them. */
export class DocumentLoader {
  readonly #state = new MemoryState();
  #generation = 0;
  constructor(private readonly path: string) {}

  header(d: Record<string, unknown>): void {
    const path = this.path;
    if (d.format !== FORMAT) {
      throw corruptData(
        `main file ${path} is not a ${FORMAT} document ("format" is not "${FORMAT}")`,
        path,
      );
    }
    if (!READABLE.has(d.version as number)) {
      const newer = typeof d.version === "number" && d.version > VERSION;
      throw corruptData(
        newer
          ? `main file ${path} has format version ${d.version}, written by a newer @message-store/json`
          : `main file ${path} has an unsupported "version" (expected 1 or ${VERSION})`,
        path,
      );
    }
    const generation = d.generation ?? 0;
    if (!Number.isSafeInteger(generation) || (generation as number) < 0) {
      throw corruptData(`"generation" must be an integer >= 0`, `${path} generation`);
    }
    const unknown = Object.keys(d).find((k) => !KEYS.has(k));
    if (unknown !== undefined)
      throw corruptData(`unknown key ${JSON.stringify(unknown)}`, `${path} ${unknown}`);
    this.#generation = generation as number;
  }

  conversation(raw: unknown, i: number): void {
    const state = this.#state;
    const where = `conversations[${i}]`;
    const at = `${this.path} ${where}`;
    const c = parseStored(StoredConversationSchema, raw, where, at, canonicalStoredConversation);
    if (state.conversations.has(c.id))
      throw corruptData(`${describeRecord(where, c)} repeats an id`, at);
    state.setConversation(storedConversation(c, c.lastMessageAt), false);
  }

  message(raw: unknown, i: number): void {
    const state = this.#state;
    const where = `messages[${i}]`;
    const at = `${this.path} ${where}`;
    const m = parseStored(MessageSchema, raw, where, at, canonicalMessage);
    const c = state.conversations.get(m.conversationId);
    if (state.messages.has(m.id))
      throw corruptData(`${describeRecord(where, m)} repeats an id`, at);
    if (!c) {
      throw corruptData(
        `${describeRecord(where, m)}: conversation ${JSON.stringify(m.conversationId)} does not exist`,
        at,
      );
    }
    state.addMessage(m, i, false);
    // A hand-written file may omit lastMessageAt, or hold one that is too small.
    if (c.lastMessageAt === null || m.timestamp > c.lastMessageAt) c.lastMessageAt = m.timestamp;
  }

  trace(raw: unknown, i: number): void {
    const state = this.#state;
    const where = `turnTraces[${i}]`;
    const at = `${this.path} ${where}`;
    const t = parseStored(TurnTraceSchema, raw, where, at, canonicalTurnTrace);
    const message = state.messages.get(t.messageId)?.message;
    const what = describeRecord(where, t);
    if (state.traces.has(t.id)) throw corruptData(`${what} repeats an id`, at);
    if (!message || message.conversationId !== t.conversationId) {
      throw corruptData(
        `${what}: message ${JSON.stringify(t.messageId)} does not exist in conversation ${JSON.stringify(t.conversationId)}`,
        at,
      );
    }
    if (state.traceIdByMessage.has(t.messageId)) {
      throw corruptData(`${what}: message ${JSON.stringify(t.messageId)} already has a trace`, at);
    }
    // Files of version 1 may hold traces without a user; the contract gives them the owner's.
    state.putTrace(storedTrace(state, t), false);
  }

  checkpoint(raw: unknown, i: number): void {
    const where = `checkpoints[${i}]`;
    const c = checkpointRowOf(raw, where, `${this.path} ${where}`);
    storeCheckpoint(this.#thread(c.conversationId, where), c);
  }

  checkpointValue(raw: unknown, i: number): void {
    const where = `checkpointValues[${i}]`;
    const row = channelValueRowOf(raw, where, `${this.path} ${where}`);
    putChannelValue(this.#thread(row.conversationId, where), row.namespace, row.value);
  }

  checkpointWrite(raw: unknown, i: number): void {
    const where = `checkpointWrites[${i}]`;
    const w = writeRowOf(raw, where, `${this.path} ${where}`);
    storeCheckpointWrites(this.#thread(w.conversationId, where), w);
  }

  /** The checkpoints of a conversation the file holds (a record of another one is corrupt). */
  #thread(conversationId: string, where: string) {
    if (!this.#state.conversations.has(conversationId)) {
      throw corruptData(
        `${where}: conversation ${JSON.stringify(conversationId)} does not exist`,
        `${this.path} ${where}`,
      );
    }
    return this.#state.threadCheckpoints(conversationId);
  }

  finish(): Snapshot {
    this.#state.sortIndexes();
    return { state: this.#state, generation: this.#generation };
  }
}

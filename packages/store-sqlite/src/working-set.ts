import type { Message, TurnTrace } from "@message-store/core";
import { MemoryState, type StoredConversation } from "@message-store/core/memory";
import type { SqlRow, SqlStatements, SqlValue } from "./connection/sqlite-connection.js";
import { CONVERSATIONS, MESSAGES, TURN_TRACES } from "./sql/columns.js";
import { deleteSql, placeholders, upsertParams, upsertSql } from "./sql/statements.js";

type RecordRow = SqlRow & { record: string };
type ConversationRow = RecordRow & { last_message_at: number | null };
type MessageRow = RecordRow & { sequence: number };

/** A conversation row as the store keeps it in memory: the record plus `lastMessageAt`. */
export function conversationOf(row: ConversationRow): StoredConversation {
  const c = JSON.parse(row.record) as StoredConversation;
  c.lastMessageAt = row.last_message_at;
  return c;
}

export const messageOf = (row: RecordRow): Message => JSON.parse(row.record) as Message;
export const traceOf = (row: RecordRow): TurnTrace => JSON.parse(row.record) as TurnTrace;

const CONVERSATION_SELECT = "SELECT id, record, last_message_at FROM conversations";
const MESSAGE_SELECT = "SELECT id, record, sequence FROM messages";
const TRACE_SELECT = "SELECT id, record FROM turn_traces";

/** Each thread's checkpoint rows go with a deleted conversation, before it (foreign keys). */
const CHECKPOINT_TABLES = ["checkpoint_writes", "checkpoint_values", "checkpoints"] as const;

/**
 * The records one write reads and changes, loaded from the database inside the write's
 * transaction into a `MemoryState` of their own, so core's write resolution (the contract's
 * rules, exactly as the memory and JSON stores apply them) runs on them unchanged; then
 * {@link writeBack} stores what the write changed. The write holds the database's write lock
 * from its first read to its commit, so nothing changes what was loaded meanwhile: the rules
 * are checked inside the write they guard.
 *
 * A write must load every record its resolution consults (the callers in `write-loads.ts` say
 * which); a missing one would look absent to the rules.
 */
export class WorkingSet {
  readonly state = new MemoryState();
  readonly #tx: SqlStatements;
  /** What each loaded record looked like, to store only what changed. */
  readonly #conversations = new Map<string, string>();
  readonly #messages = new Map<string, string>();
  readonly #traces = new Map<string, string>();

  constructor(tx: SqlStatements) {
    this.#tx = tx;
  }

  /** Continues the receipt order after the greatest sequence stored. */
  async loadNextSequence(): Promise<void> {
    const [row] = await this.#tx.all<{ next: number }>(
      "SELECT coalesce(max(sequence), -1) + 1 AS next FROM messages",
    );
    this.state.nextSequence = row!.next;
  }

  async conversations(where: string, params: readonly SqlValue[]): Promise<void> {
    for (const row of await this.#tx.all<ConversationRow>(
      `${CONVERSATION_SELECT} WHERE ${where}`,
      params,
    )) {
      if (this.#conversations.has(row.id as string)) continue;
      const c = conversationOf(row);
      this.#conversations.set(c.id, JSON.stringify(c));
      this.state.setConversation(c);
    }
  }

  /** Messages; load their conversations first. */
  async messages(where: string, params: readonly SqlValue[]): Promise<void> {
    for (const row of await this.#tx.all<MessageRow>(`${MESSAGE_SELECT} WHERE ${where}`, params)) {
      if (this.#messages.has(row.id as string)) continue;
      const message = messageOf(row);
      this.#messages.set(message.id, messageKey(message, row.sequence));
      this.state.addMessage(message, row.sequence, true);
    }
  }

  async traces(where: string, params: readonly SqlValue[]): Promise<void> {
    for (const row of await this.#tx.all<RecordRow>(`${TRACE_SELECT} WHERE ${where}`, params)) {
      if (this.#traces.has(row.id as string)) continue;
      const trace = traceOf(row);
      this.#traces.set(trace.id, JSON.stringify(trace));
      this.state.putTrace(trace);
    }
  }

  /** Conversations by id. */
  conversationsById(ids: readonly string[]): Promise<void> {
    return this.conversations(`id IN (${placeholders(ids.length)})`, ids);
  }

  /**
   * Messages by id with their conversations and traces, and the conversations of the ids in
   * `conversationIds`.
   */
  async messagesById(ids: readonly string[], conversationIds: readonly string[] = []) {
    const list = placeholders(ids.length);
    await this.conversations(
      `id IN (SELECT conversation_id FROM messages WHERE id IN (${list})) OR id IN (${placeholders(conversationIds.length)})`,
      [...ids, ...conversationIds],
    );
    await this.messages(`id IN (${list})`, ids);
    await this.traces(`message_id IN (${list})`, ids);
  }

  /** Whole conversations: each with all its messages and traces. */
  async threads(where: string, params: readonly SqlValue[]): Promise<void> {
    const ids = `SELECT id FROM conversations WHERE ${where}`;
    await this.conversations(where, params);
    await this.messages(`conversation_id IN (${ids})`, params);
    await this.traces(`conversation_id IN (${ids})`, params);
  }

  /**
   * Stores what changed since the load: deletions first (traces, messages, conversations with
   * their checkpoints, so no row is ever left without its parent), then upserts (conversations,
   * messages, traces).
   */
  async writeBack(): Promise<void> {
    const { state } = this;
    for (const id of this.#traces.keys())
      if (!state.traces.has(id)) await this.#tx.run(deleteSql(TURN_TRACES), [id]);
    for (const id of this.#messages.keys())
      if (!state.messages.has(id)) await this.#tx.run(deleteSql(MESSAGES), [id]);
    for (const id of this.#conversations.keys()) {
      if (state.conversations.has(id)) continue;
      for (const table of CHECKPOINT_TABLES)
        await this.#tx.run(`DELETE FROM ${table} WHERE conversation_id = ?`, [id]);
      await this.#tx.run(deleteSql(CONVERSATIONS), [id]);
    }
    for (const c of state.conversations.values())
      if (this.#conversations.get(c.id) !== JSON.stringify(c))
        await this.#tx.run(upsertSql(CONVERSATIONS), upsertParams(CONVERSATIONS, c));
    for (const entry of state.messages.values())
      if (this.#messages.get(entry.message.id) !== messageKey(entry.message, entry.sequence))
        await this.#tx.run(upsertSql(MESSAGES), upsertParams(MESSAGES, entry));
    for (const t of state.traces.values())
      if (this.#traces.get(t.id) !== JSON.stringify(t))
        await this.#tx.run(upsertSql(TURN_TRACES), upsertParams(TURN_TRACES, t));
  }
}

const messageKey = (message: Message, sequence: number): string =>
  `${sequence} ${JSON.stringify(message)}`;

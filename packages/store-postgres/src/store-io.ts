import type {
  Conversation,
  DeletedCounts,
  Message,
  SearchHit,
  TurnTrace,
} from "@message-store/core";
import { cosineSimilarity, type SequencedMessage } from "@message-store/core/adapter";
import type pg from "pg";
import type { StatementRunner } from "./connection/statement-runner.js";
import { decodeFloat8Array } from "./float8-array.js";
import {
  toConversation,
  toDeletedCounts,
  toMessage,
  toSequencedMessage,
  toTurnTrace,
} from "./row-mapping.js";
import type { Statement } from "./sql/params.js";

type Row = Record<string, unknown>;

/** Where reads go: the runner itself, or the replica-aware `LaggingReads`. */
interface Reader {
  read(text: string, values: readonly unknown[]): Promise<pg.QueryResult>;
}

/**
 * The store's statements as models: runs a statement through the runner (reads as reads, writes
 * as writes, whose lost answer is an `OutcomeUnknownError`) and maps its rows, naming the table in `CorruptDataError`s.
 */
export class StoreIo {
  readonly #runner: StatementRunner;
  readonly #reader: Reader;
  readonly #tables: { conversations: string; messages: string; traces: string };

  /** `reader`: where reads run (default: `runner`; a replica for reads that may lag). */
  constructor(runner: StatementRunner, schema: string, reader: Reader = runner) {
    this.#runner = runner;
    this.#reader = reader;
    this.#tables = {
      conversations: `${schema}.conversations`,
      messages: `${schema}.messages`,
      traces: `${schema}.turn_traces`,
    };
  }

  rows(s: Statement): Promise<Row[]> {
    return this.#reader.read(s.text, s.values).then((r) => r.rows);
  }

  written(s: Statement): Promise<Row[]> {
    return this.#runner.write(s.text, s.values).then((r) => r.rows);
  }

  /** A write's affected row count. */
  changed(s: Statement): Promise<number> {
    return this.#runner.write(s.text, s.values).then((r) => r.rowCount ?? 0);
  }

  /** A write that answers `done` (the soft-delete functions). */
  async done(s: Statement): Promise<boolean> {
    const [row] = await this.written(s);
    return row?.done === true;
  }

  /** A bulk delete's counts. */
  async counts(s: Statement): Promise<DeletedCounts> {
    const [row] = await this.written(s);
    return toDeletedCounts(row);
  }

  conversation(row: Row | undefined): Conversation | null {
    return row ? toConversation(row, this.#tables.conversations) : null;
  }

  async conversations(s: Statement): Promise<Conversation[]> {
    return (await this.rows(s)).map((r) => toConversation(r, this.#tables.conversations));
  }

  message(row: Row | undefined): Message | null {
    return row ? toMessage(row, this.#tables.messages) : null;
  }

  async messages(s: Statement): Promise<Message[]> {
    return (await this.rows(s)).map((r) => toMessage(r, this.#tables.messages));
  }

  async sequencedMessages(s: Statement): Promise<SequencedMessage[]> {
    return (await this.rows(s)).map((r) => toSequencedMessage(r, this.#tables.messages));
  }

  trace(row: Row | undefined): TurnTrace | null {
    return row ? toTurnTrace(row, this.#tables.traces) : null;
  }

  async traces(s: Statement): Promise<TurnTrace[]> {
    return (await this.rows(s)).map((r) => toTurnTrace(r, this.#tables.traces));
  }

  /**
   * Search rows as hits, the embedding sent binary (`array_send`); rows PostgreSQL did not score
   * (`score` null) are scored here.
   */
  async hits(s: Statement, embedding: readonly number[]): Promise<SearchHit[]> {
    return (await this.rows(s)).map(({ score, ...row }) => {
      if (row.embedding instanceof Uint8Array) row.embedding = decodeFloat8Array(row.embedding);
      const message = toMessage(row, this.#tables.messages);
      const scored = score ?? cosineSimilarity(embedding, message.embedding ?? []);
      return { message, score: scored as number };
    });
  }
}

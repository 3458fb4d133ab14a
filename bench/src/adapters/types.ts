import type { ConversationRecord, Message, MessageStore, TurnTrace } from "@message-store/core";

/** Which implementation a sample belongs to. */
export type Side = "ours" | "raw";

/** The adapters the harness knows. */
export type AdapterName = "json" | "postgres" | "mongo";
export const ADAPTERS: readonly AdapterName[] = ["json", "postgres", "mongo"];

/**
 * The raw minimum of every timed call: the fewest round trips, with hand-written SQL, plain
 * driver calls or plain file appends, on the same server, database and tables (collections,
 * file system) as the store. No validation, no integrity checks, no bookkeeping beyond what the
 * call itself needs.
 */
export interface RawStore {
  storeConversation(c: ConversationRecord): Promise<void>;
  storeMessages(messages: Message[]): Promise<void>;
  /** The newest `n` messages of a conversation, oldest first. */
  immediateContext(conversationId: string, n: number): Promise<unknown[]>;
  /**
   * The same as a named prepared statement (parsed and planned once per connection), where the
   * driver has them: a reference for what statement preparation would save, not the raw minimum.
   */
  immediateContextPrepared?(conversationId: string, n: number): Promise<unknown[]>;
  storeTrace(trace: TurnTrace): Promise<void>;
  /** Traces of `agentId` in `[since, until)`, newest first. */
  tracesByAgent(agentId: string, since: number, until: number): Promise<unknown[]>;
  deleteConversation(id: string): Promise<void>;
}

/**
 * Setup, not measured: grows the synthetic dataset (see `synthetic.ts`) to `messages` messages
 * (and their conversations) and `traces` traces, with the fastest raw method the backend has.
 * Both the store and the raw path see the result.
 */
export interface BulkLoader {
  /** How the data is made, for the report. */
  readonly method: string;
  grow(target: { messages: number; traces: number }): Promise<void>;
}

/** A store whose round trips are recorded. */
export interface CountedStore {
  readonly store: MessageStore;
  /** What `call` sent to the server, one entry per round trip. */
  roundTrips(call: () => Promise<unknown>): Promise<string[]>;
  close(): Promise<void>;
}

/** One adapter under test: the store, its raw counterpart, and setup helpers. */
export interface BenchTarget {
  readonly name: AdapterName;
  /** What runs underneath, for the report (server and version, or file system). */
  readonly server: string;
  /**
   * Set when the server cannot hold the sizes: why, for the report. The harness then
   * runs this adapter's scenarios at reduced sizes.
   */
  readonly constraint?: string;
  /** The store as an application uses it. Adapters may replace it on `reset` (JSON reopens). */
  readonly store: MessageStore;
  readonly raw: RawStore;
  readonly loader: BulkLoader;
  /**
   * Setup, not measured: one conversation with its messages and traces, quickly, for the store
   * (`"ours"`) or for the raw path. Where both share the tables this is the same bulk insert.
   */
  seed(
    side: Side,
    conversation: ConversationRecord,
    messages: Message[],
    traces: TurnTrace[],
  ): Promise<void>;
  /**
   * A second store on the same server whose every round trip is recorded (statement or command
   * names), for the round-trip count. Absent for JSON (no server).
   */
  openCounted?(): Promise<CountedStore>;
  /** PostgreSQL only: the run's database, its pool size and the raw pool (for the peers). */
  readonly dsn?: string;
  readonly poolSize?: number;
  readonly pool?: import("pg").Pool;
  /** Empties everything (store and raw data). */
  reset(): Promise<void>;
  close(): Promise<void>;
}

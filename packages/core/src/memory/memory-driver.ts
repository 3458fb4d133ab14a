import type { Scope } from "../models/queries.js";
import type { StoreCapabilities } from "../store/capabilities.js";
import type { MessageStoreDriver } from "../store/driver.js";
import type {
  DriverOperation,
  RequestOf,
  ResultOf,
  WriteOperation,
} from "../store/operation-table.js";
import { inScope, type Owned } from "../store/scope.js";
import { getCheckpoint, listCheckpoints } from "./checkpoint-queries.js";
import { cloneMessage, cloneTrace } from "./clone.js";
import {
  immediateContext,
  listConversationsById,
  listConversationsByUser,
  listMessages,
  listTraces,
  pendingEmbeddings,
  searchMessages,
  summarizeUsage,
} from "./memory-queries.js";
import { conversationView, MemoryState } from "./memory-state.js";
import { searchConversations } from "./text-search.js";
import {
  applyResolved,
  resolveWrite,
  WRITE_OPERATIONS,
  type Write,
  type WriteResult,
} from "./write-table.js";

/**
 * How a driver's writes reach its state: resolve (`resolveWrite`), then apply
 * (`applyResolved`), with nothing in between that could change the state. A persistence makes
 * the resolved operations durable in between (the JSON store journals them).
 */
export type WriteCommit = <W extends Write>(write: W) => Promise<WriteResult<W>>;

export interface MemoryDriverOptions {
  /** The adapter name in errors. Default `"memory"`. */
  readonly name?: string;
  /** The records to serve. Default: a new, empty state. */
  readonly state?: MemoryState;
  /** How writes are committed. Default: resolved and applied at once. */
  readonly commit?: WriteCommit;
}

/** Every capability, and trace batches are all or nothing. */
const CAPABILITIES: StoreCapabilities = Object.freeze({
  semanticSearch: true,
  softDelete: true,
  tenants: true,
  embeddingQueue: true,
  textSearch: true,
  atomicTraceBatches: true,
  checkpoints: true,
});

/** Resolves and applies each write at once: nothing runs in between. */
function commitAtOnce(state: MemoryState): WriteCommit {
  return async <W extends Write>(write: W): Promise<WriteResult<W>> =>
    applyResolved(state, resolveWrite(state, write));
}

type Operations = {
  [K in DriverOperation]-?: (request: RequestOf<K>) => Promise<ResultOf<K>>;
};
type Reads = {
  readonly [K in Exclude<DriverOperation, WriteOperation>]: (
    state: MemoryState,
    request: RequestOf<K>,
  ) => ResultOf<K>;
};

const visible = (r: Owned & { deletedAt: number | null }, includeDeleted: boolean, scope: Scope) =>
  (includeDeleted || r.deletedAt === null) && inScope(r, scope);

/** The reads, each over the state's indexes. */
const READS: Reads = {
  getConversation(state, { id, includeDeleted, scope }) {
    const c = state.conversations.get(id);
    return c && visible(c, includeDeleted, scope) ? conversationView(c) : null;
  },
  getConversationsByUserId: listConversationsByUser,
  listConversations: listConversationsById,
  getMessage(state, { id, includeDeleted, scope }) {
    const m = state.messages.get(id)?.message;
    return m && visible(m, includeDeleted, scope) ? cloneMessage(m) : null;
  },
  getMessagesByConversationId: listMessages,
  getImmediateContext: immediateContext,
  getTurnTraceByMessageId(state, { id, includeDeleted, scope }) {
    const t = state.traceOf(id);
    return t && visible(t, includeDeleted, scope) ? cloneTrace(t) : null;
  },
  queryTurnTraces: listTraces,
  summarizeUsage,
  searchMessages,
  searchConversations,
  listPendingEmbeddings: pendingEmbeddings,
  getCheckpoint,
  listCheckpoints,
};

/**
 * The reference driver: every operation of the contract over a {@link MemoryState}, with every
 * capability. Writes are data (`Write`), resolved into operations against the state and applied
 * synchronously, so a reader never sees half of one; reads walk the state's indexes. Nothing
 * outlives the process: `close()` keeps nothing. The JSON store is this driver with a journal.
 */
export interface MemoryDriver extends Operations {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the static block installs every method
export class MemoryDriver implements MessageStoreDriver {
  readonly name: string;
  readonly capabilities: StoreCapabilities = CAPABILITIES;
  readonly #state: MemoryState;
  readonly #commit: WriteCommit;

  constructor(options: MemoryDriverOptions = {}) {
    const state = options.state ?? new MemoryState();
    this.name = options.name ?? "memory";
    this.#state = state;
    this.#commit = options.commit ?? commitAtOnce(state);
  }

  static {
    const install = (name: string, value: (this: MemoryDriver, request: never) => unknown) =>
      Object.defineProperty(MemoryDriver.prototype, name, {
        value,
        writable: true,
        configurable: true,
      });
    // Every write goes through the commit, which the engine's write table carries out.
    for (const method of WRITE_OPERATIONS)
      install(method, function (request) {
        return this.#commit({ method, request } as Write);
      });
    for (const [method, read] of Object.entries(READS))
      install(method, async function (request) {
        return (read as (state: MemoryState, r: unknown) => unknown)(this.#state, request);
      });
  }

  /** Nothing to release: the state stays as it is (a store over it rejects calls after close). */
  async close(): Promise<void> {}
}

import {
  callPricer,
  type MessageStoreApi,
  type ModelPricing,
  newId,
  type SessionTurn,
} from "@message-store/core";
import {
  type AgentInputItem,
  type RunContext,
  type RunContextAwareSession,
  type SessionHistoryRewriteArgs,
  type SessionHistoryRewriteAwareSession,
  type SessionHistoryTransactionArgs,
  type SessionHistoryTransactionAwareSession,
  UserError,
} from "@openai/agents";
import { parseTransaction, sameItems, transactionDigest } from "./history-transaction.js";
import { groupItems } from "./items-to-record.js";
import { markOf, type UsageMark, usageSince } from "./run-usage.js";
import {
  changedTurns,
  dropNewestItems,
  entriesOf,
  type HistoryEntry,
  readTranscript,
  replaceFunctionCall,
} from "./session-history.js";
import {
  forgottenTurn,
  type HiddenReason,
  newTurn,
  type StoredOperation,
  sessionMetadata,
} from "./stored-turns.js";

/** Options of {@link MessageStoreSession}. */
export interface MessageStoreSessionOptions {
  /** A store, or a `store.forUser(userId)` view. */
  store: MessageStoreApi;
  /** Owner of the conversation. A session of another user is refused with `NotFoundError`. */
  userId: string;
  /** The conversation id. Default: a new id. Created on the first write if it does not exist. */
  sessionId?: string;
  /** The conversation's `agentId` when created, and the `agentId` of turn traces (default `"openai-agents"`). */
  agentId?: string;
  /**
   * The model name recorded on turn traces (the SDK does not tell a session which model ran).
   * Default `"unknown"`.
   */
  model?: string;
  /**
   * Per-token prices by model (core's `ModelPricing`): the LLM calls of the turn traces get their
   * `costUsd` from it (for `model`). Without it costs stay unknown (null), never $0. An invalid
   * map is a `ValidationError` in the constructor.
   */
  pricing?: ModelPricing;
}

/** What the session knows about one run (one `RunContext`). */
interface RunTracking {
  /** The run's usage already in a trace. */
  mark: UsageMark;
  /** When that mark was taken: the latency of the next trace runs from here. */
  since: number;
}

/**
 * An OpenAI Agents SDK `Session` on a message store: pass it as `run(agent, input, { session })`.
 * It has the SDK's optional session capabilities (run context, history transactions, history
 * mutations, compaction replacement) with the semantics of the SDK's own `MemorySession`; see the
 * README for how each is stored and where it differs.
 */
export class MessageStoreSession
  implements
    RunContextAwareSession,
    SessionHistoryTransactionAwareSession,
    SessionHistoryRewriteAwareSession
{
  readonly acceptsRunContext = true as const;
  readonly store: MessageStoreApi;
  readonly sessionId: string;
  readonly userId: string;
  readonly agentId: string | undefined;
  readonly model: string;
  readonly pricing: ModelPricing | undefined;
  readonly #view: MessageStoreApi;
  readonly #runs = new WeakMap<RunContext<unknown>, RunTracking>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: MessageStoreSessionOptions) {
    this.store = options.store;
    this.userId = options.userId;
    this.sessionId = options.sessionId ?? newId();
    this.agentId = options.agentId;
    this.model = options.model ?? "unknown";
    callPricer(options.pricing);
    this.pricing = options.pricing;
    this.#view = options.store.forUser(options.userId);
  }

  /** The conversation id. Never throws. */
  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /**
   * The session's items in chronological order: with `limit`, the newest `limit` items (`[]` for
   * 0), read from the newest `limit` messages only. `[]` for a session that does not exist or
   * belongs to another user.
   */
  async getItems(limit?: number, runContext?: RunContext<unknown>): Promise<AgentInputItem[]> {
    this.#run(runContext);
    if (limit !== undefined && limit <= 0) return [];
    const messages =
      limit === undefined
        ? await readTranscript(this.#view, this.sessionId)
        : await this.#view.getImmediateContext(this.sessionId, limit);
    const items = entriesOf(messages).flatMap((e) => e.items);
    return limit === undefined ? items : items.slice(-limit);
  }

  /**
   * Appends items in order, all or nothing, creating the conversation if needed; with the run's
   * context, stores a turn trace of the model requests made since the run's previous write.
   * Rejects with `NotFoundError` when the session belongs to another user, `ValidationError`
   * for items JSON cannot hold, or the store's error; then nothing is stored.
   */
  async addItems(items: AgentInputItem[], runContext?: RunContext<unknown>): Promise<void> {
    const run = this.#run(runContext);
    if (items.length === 0) return;
    const added = groupItems(items).map((group) => newTurn(group));
    await this.#exclusive(() => this.#write([], added, run, runContext));
  }

  /**
   * Removes the newest item and resolves to it, or to undefined for an empty session. A message
   * whose last item is popped is hidden (flagged: out of `getItems`, replay and context, kept
   * with its turn trace for audit and usage); one standing for several items is rewritten
   * without the popped one.
   */
  async popItem(runContext?: RunContext<unknown>): Promise<AgentInputItem | undefined> {
    this.#run(runContext);
    return this.#exclusive(async () => {
      const entries = entriesOf(await this.#view.getImmediateContext(this.sessionId, 1));
      const popped = entries[0]?.items.at(-1);
      if (popped === undefined) return undefined;
      await this.#write(dropNewestItems(entries, 1, "popped"), []);
      return popped;
    });
  }

  /**
   * Empties the session: every visible message is hidden (flagged), so `getItems` is `[]`, and
   * the transactions they were written by are forgotten. The conversation, its messages and
   * their turn traces stay (usage analytics are unchanged); erase them with
   * `store.deleteConversation(sessionId)`. A session of another user is left alone.
   */
  async clearSession(runContext?: RunContext<unknown>): Promise<void> {
    this.#run(runContext);
    await this.#exclusive(async () => {
      await this.#write(await this.#hideAll("cleared"), []);
    });
  }

  /**
   * Replaces the history with `items` (a compaction item and the suffix it keeps) in one write:
   * the messages it compacts are hidden with their turn traces kept, `items` are appended.
   */
  async replaceHistoryWithCompaction(
    items: AgentInputItem[],
    runContext?: RunContext<unknown>,
  ): Promise<void> {
    const run = this.#run(runContext);
    await this.#exclusive(async () => {
      const hidden = await this.#hideAll("compacted");
      const added = groupItems(items).map((group) => newTurn(group));
      await this.#write(hidden, added, run, runContext);
    });
  }

  /**
   * Applies history mutations in one write, as `MemorySession` does: `replace_function_call`
   * puts `replacement` in place of the first function call with `callId` and removes later ones.
   */
  async applyHistoryMutations(args: SessionHistoryRewriteArgs): Promise<void> {
    if (args.mutations.length === 0) return;
    await this.#exclusive(async () => {
      const entries = entriesOf(await readTranscript(this.#view, this.sessionId));
      const changed = new Set<HistoryEntry>();
      for (const mutation of args.mutations) {
        if (mutation.type === "replace_function_call") {
          replaceFunctionCall(entries, mutation.callId, mutation.replacement, changed);
        }
      }
      await this.#write(changedTurns(entries, changed), []);
    });
  }

  /**
   * Applies a history transaction once per operation id, all or nothing: `append_items` appends;
   * `replace_suffix` replaces the newest items, which must equal `expectedSuffix`. The operation
   * id is stored with the messages the transaction writes, in the same write. Repeating an id
   * with the same transaction does nothing; with another transaction, or with a suffix that no
   * longer matches, it throws the SDK's `UserError` and changes nothing. `clearSession` and
   * compaction forget the operations of the messages they hide, as `MemorySession` does.
   */
  async applyHistoryTransaction(
    args: SessionHistoryTransactionArgs,
    runContext?: RunContext<unknown>,
  ): Promise<void> {
    const run = this.#run(runContext);
    const { operationId, transaction } = parseTransaction(args);
    const operation: StoredOperation = { id: operationId, digest: transactionDigest(transaction) };
    await this.#exclusive(async () => {
      const transcript = await readTranscript(this.#view, this.sessionId);
      const applied = transcript.map(sessionMetadata).find((m) => m.operation?.id === operationId);
      if (applied) {
        if (applied.operation!.digest === operation.digest) return;
        throw new UserError(
          "Session history operation was already applied with a different transaction.",
        );
      }
      const replaced: SessionTurn[] = [];
      if (transaction.type === "replace_suffix") {
        const entries = entriesOf(transcript);
        const items = entries.flatMap((e) => e.items);
        const start = items.length - transaction.expectedSuffix.length;
        if (start < 0 || !sameItems(items.slice(start), transaction.expectedSuffix)) {
          throw new UserError(
            "Session history suffix no longer matches the transaction precondition.",
          );
        }
        replaced.push(...dropNewestItems(entries, transaction.expectedSuffix.length, "replaced"));
      }
      const added =
        transaction.type === "append_items" ? transaction.items : transaction.replacement;
      const turns = groupItems(added).map((group) => newTurn(group, operation));
      await this.#write(replaced, turns, run, runContext);
    });
  }

  #run(runContext: RunContext<unknown> | undefined): RunTracking | undefined {
    if (!runContext) return undefined;
    let run = this.#runs.get(runContext);
    if (!run) {
      // Requests made before the session first sees this context belong to a run it was
      // resumed from (a deserialized RunState), whose writes traced them already.
      run = { mark: markOf(runContext.usage), since: Date.now() };
      this.#runs.set(runContext, run);
    }
    return run;
  }

  /** Runs mutations of this session object one at a time, in call order. */
  #exclusive<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Hides every visible message and forgets every transaction (clear, compaction). */
  async #hideAll(reason: HiddenReason): Promise<SessionTurn[]> {
    const messages = await readTranscript(this.#view, this.sessionId);
    return messages
      .filter((m) => !m.isFlagged || sessionMetadata(m).operation !== undefined)
      .map((m) => forgottenTurn(m, reason));
  }

  /**
   * Stores `changed` (existing messages, rewritten or hidden in place) and `added` (new messages,
   * placed after the newest one) in one atomic `storeSessionMessages`, which also creates the
   * conversation; then, for a run, the trace of its requests since its last trace, on the last
   * new assistant message (else the last new message).
   */
  async #write(
    changed: SessionTurn[],
    added: SessionTurn[],
    run?: RunTracking,
    runContext?: RunContext<unknown>,
  ): Promise<void> {
    if (changed.length + added.length === 0) return;
    const stored = await this.#view.storeSessionMessages(this.sessionId, [...changed, ...added], {
      userId: this.userId,
      ...(this.agentId === undefined ? {} : { agentId: this.agentId }),
    });
    if (!run || !runContext) return;
    const fresh = stored.slice(changed.length);
    const ender =
      fresh.findLast((m) => m.role === "assistant" && m.originalContent !== "") ??
      fresh.findLast((m) => m.role === "assistant") ??
      fresh.at(-1);
    const usage = usageSince(
      runContext.usage,
      run.mark,
      this.model,
      Date.now() - run.since,
      this.pricing,
    );
    if (!usage || !ender) return;
    await this.#view.storeTurnTrace({
      id: newId(),
      messageId: ender.id,
      conversationId: this.sessionId,
      agentId: this.agentId ?? "openai-agents",
      userId: this.userId,
      timestamp: Date.now(),
      ...usage,
      metadata: { source: "openai-agents" },
    });
    run.mark = markOf(runContext.usage);
    run.since = Date.now();
  }
}

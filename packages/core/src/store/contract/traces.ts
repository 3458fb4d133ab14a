import type {
  AgentTraceOptions,
  Page,
  ReadOptions,
  TurnTraceQueryInput,
  UsageBucket,
  UsageQuery,
  UsageQueryInput,
} from "../../models/queries.js";
import type { TurnTrace, TurnTraceInput } from "../../models/turn-trace.js";
import type { TraceKey } from "../../paging/cursor.js";
import type { PageRequest } from "../../paging/page-request.js";
import type { FamilySpecs } from "./operation-spec.js";
import type { DriverRequest, ReadByIdRequest, TraceFilter } from "./requests.js";

/** Turn traces: upserts, reads, queries and usage analytics. What the caller sees. */
export interface TracesApi {
  /**
   * Upserts the trace of one turn. Its message must exist and belong to `conversationId`
   * (`IntegrityError`), a message has at most one trace (a second trace with another id for the
   * same message is an `IntegrityError`), a trace cannot move to another message, and `userId` /
   * `tenantId` follow the ownership rules above. A live trace on a soft-deleted message is an
   * `IntegrityError`.
   */
  storeTurnTrace(trace: TurnTraceInput): Promise<TurnTrace>;

  /**
   * Upserts several traces as consecutive {@link storeTurnTrace} calls in array order would (the
   * same rules and errors), for imports and migrations: one call instead of one per trace.
   * Resolves to the stored traces in input order; `[]` gives `[]`. The whole array is validated
   * first (`ValidationError`, nothing stored; the same id twice is one too). On an
   * `IntegrityError` the call rejects with the error of the first trace that breaks a rule and
   * nothing after it is stored; with `capabilities.atomicTraceBatches` (every built-in adapter)
   * nothing of the batch is stored, without it the traces before the failure may stay stored
   * (every write is an upsert, so retrying the call is safe). Views behave alike.
   */
  storeTurnTraces(traces: TurnTraceInput[]): Promise<TurnTrace[]>;

  /** Resolves to the trace of that message, or `null` (soft-deleted: only with `includeDeleted`). */
  getTurnTraceByMessageId(messageId: string, options?: ReadOptions): Promise<TurnTrace | null>;

  /**
   * An agent's traces, newest first: `timestamp` descending, then `id` descending. `since` is
   * inclusive, `until` exclusive.
   */
  getTurnTracesByAgentId(agentId: string, options?: AgentTraceOptions): Promise<Page<TurnTrace>>;

  /**
   * Traces matching every given filter, in the same order as {@link getTurnTracesByAgentId}.
   * `toolName` matches any tool trace, `model` any entry of the trace's `llmCalls` (model calls
   * nested in `toolTraces[].generationAttempts[].llmCall` are not matched), `userId` and
   * `tenantId` the trace's.
   */
  queryTurnTraces(query?: TurnTraceQueryInput): Promise<Page<TurnTrace>>;

  /**
   * Token, cost, latency and error totals per UTC hour or day over `[since, until)`, oldest bucket
   * first; empty buckets are omitted. Identical on every adapter. Every given filter applies
   * (`agentId` and `userId` and `tenantId` together). Token and cost sums count the entries of
   * `llmCalls` only; model calls nested in `toolTraces[].generationAttempts[].llmCall` are
   * recorded for inspection and never counted (they would otherwise be counted twice by agents
   * that also list them in `llmCalls`).
   */
  summarizeUsage(query: UsageQueryInput): Promise<UsageBucket[]>;
}

/** Turn traces: upserts, reads, queries and usage analytics. What a driver implements. */
export interface TracesDriver {
  /**
   * Upserts traces (ids unique, at least one) as consecutive single writes in array order would,
   * resolving in input order as stored (`userId`/`tenantId` filled). Each trace's message must
   * exist in its `conversationId`, may have no trace with another id, an existing trace may not
   * move to another message, and the ownership and soft-delete rules hold. On a refusal, throw the
   * error of the first trace (in array order) that breaks a rule. With
   * `capabilities.atomicTraceBatches` nothing of the batch is stored then; without it the traces
   * before that one may stay stored (and none after it).
   */
  storeTurnTraces(request: DriverRequest & { traces: readonly TurnTrace[] }): Promise<TurnTrace[]>;

  /** The trace of that message, or `null` (soft-deleted only with `includeDeleted`). */
  getTurnTraceByMessageId(request: ReadByIdRequest): Promise<TurnTrace | null>;

  /**
   * Traces in the scope matching every filter (core's `matchesTraceFilter` is the reference)
   * after `page.after` in `(timestamp desc, id desc)` order, at most `page.take`.
   */
  queryTurnTraces(
    request: DriverRequest & { filter: TraceFilter; page: PageRequest<TraceKey> },
  ): Promise<TurnTrace[]>;

  /**
   * Usage buckets of the traces in the scope matching `query` (`matchesUsageQuery`). Compute them
   * with core's `summarizeTraces`, or aggregate in the backend and finish with `finalizeUsage`,
   * so numbers match other adapters exactly.
   */
  summarizeUsage(
    request: DriverRequest & { query: Omit<UsageQuery, "userId" | "tenantId"> },
  ): Promise<UsageBucket[]>;
}

/** The driver operations of this family, as the operation table lists them. */
export const TRACES = {
  storeTurnTraces: { write: true, owned: true },
  getTurnTraceByMessageId: {},
  queryTurnTraces: {},
  summarizeUsage: {},
} as const satisfies FamilySpecs<TracesDriver>;

import type { RunnableConfig } from "@langchain/core/runnables";
import {
  IdSchema,
  type MessageStoreApi,
  type SessionOptions,
  ValidationError,
} from "@message-store/core";
import { DEFAULT_AGENT, type MessageStoreSaverOptions } from "./saver-options.js";

/** What a LangGraph config says about the thread a call is for. */
export interface ThreadConfig {
  threadId: string | undefined;
  namespace: string | undefined;
  checkpointId: string | undefined;
  userId: string | undefined;
  agentId: string;
  tenantId: string | undefined;
}

function text(value: unknown, key: string): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number") return String(value);
  throw new ValidationError(
    `configurable.${key} must be a string`,
    [{ path: ["configurable", key], message: "expected a string" }],
    { adapter: "langgraph" },
  );
}

/**
 * An owner key (`user_id`, `agent_id`, `tenant_id`): absent when `undefined` or `null`, else an
 * id (1–256 characters). `""` is an invalid id, as everywhere in the store: read as "no owner",
 * it would widen the call to every owner's threads.
 */
function ownerId(value: unknown, key: string, where = "configurable"): string | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = IdSchema.safeParse(typeof value === "number" ? String(value) : value);
  if (parsed.success) return parsed.data;
  throw new ValidationError(
    `${where}.${key} must be an id (a string of 1 to 256 characters)`,
    [{ path: [where, key], message: parsed.error.issues[0]?.message ?? "invalid id" }],
    { adapter: "langgraph" },
  );
}

/** Throws `ValidationError` when the options' `userId`, `agentId` or `tenantId` is not an id. */
export function checkOwnerOptions(options: MessageStoreSaverOptions): void {
  for (const key of ["userId", "agentId", "tenantId"] as const) {
    if (options[key] !== undefined) ownerId(options[key], key, "options");
  }
}

/**
 * The thread of `config`: `thread_id`, `checkpoint_ns`, `checkpoint_id`, and its owner from
 * `user_id`, `agent_id` and `tenant_id`, each defaulting to the saver's options.
 */
export function threadConfig(
  config: RunnableConfig,
  options: MessageStoreSaverOptions,
): ThreadConfig {
  const c = (config.configurable ?? {}) as Record<string, unknown>;
  const ns = c.checkpoint_ns;
  return {
    threadId: text(c.thread_id, "thread_id"),
    namespace: ns === undefined || ns === null ? undefined : String(ns),
    checkpointId: text(c.checkpoint_id, "checkpoint_id"),
    userId: ownerId(c.user_id, "user_id") ?? options.userId,
    agentId: ownerId(c.agent_id, "agent_id") ?? options.agentId ?? DEFAULT_AGENT,
    tenantId: ownerId(c.tenant_id, "tenant_id") ?? options.tenantId,
  };
}

/**
 * The views a saver acts through, one per owner (a view costs a new store object; a saver serves
 * few owners at a time): the store itself for a call without an owner.
 */
export class OwnerViews {
  readonly #views = new Map<string, MessageStoreApi>();

  constructor(
    private readonly store: MessageStoreApi,
    private readonly capacity = 1000,
  ) {}

  /** The store as the thread's owner sees it: a view of the owner (and tenant), when there is one. */
  of(thread: Pick<ThreadConfig, "userId" | "tenantId">): MessageStoreApi {
    if (thread.userId === undefined && thread.tenantId === undefined) return this.store;
    const key = JSON.stringify([thread.userId ?? null, thread.tenantId ?? null]);
    let view = this.#views.get(key);
    if (!view) {
      const user = thread.userId === undefined ? this.store : this.store.forUser(thread.userId);
      view = thread.tenantId === undefined ? user : user.forTenant(thread.tenantId);
      if (this.#views.size >= this.capacity) this.#views.delete(this.#views.keys().next().value!);
      this.#views.set(key, view);
    }
    return view;
  }
}

/**
 * The owner a write creates the thread's conversation with: the config's (or the options') user;
 * without one, `existing` (the owner of the conversation, as the store given shows it). A
 * `ValidationError` when there is neither.
 */
export function ownerOf(thread: ThreadConfig, existing?: SessionOptions | null): SessionOptions {
  if (thread.userId === undefined) {
    if (existing) return { ...existing, agentId: thread.agentId };
    throw new ValidationError(
      "no owner for a new thread: pass configurable.user_id in the config, or userId to new MessageStoreSaver(store, { userId })",
      [{ path: ["configurable", "user_id"], message: "required" }],
      { adapter: "langgraph" },
    );
  }
  const owner: SessionOptions = { userId: thread.userId, agentId: thread.agentId };
  if (thread.tenantId !== undefined) owner.tenantId = thread.tenantId;
  return owner;
}

/** The thread id a put or write needs: an `Error` naming the missing key, as LangGraph's savers throw. */
export function requireThread(thread: ThreadConfig, what: string): string {
  if (thread.threadId === undefined) {
    throw new Error(
      `Failed to ${what}: the config's "configurable" has no "thread_id". Pass one, e.g. graph.invoke(input, { configurable: { thread_id: "conversation-1" } }).`,
    );
  }
  return thread.threadId;
}

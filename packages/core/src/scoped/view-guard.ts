import { IntegrityError, NotFoundError } from "../errors.js";
import type { MessageStoreApi } from "../message-store-api.js";
import type { Scope } from "../models/queries.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { inScope } from "./scope.js";

/** The records a write through a view names. */
export interface WriteTargets {
  conversationIds: readonly string[];
  /** The write creates the conversation if it is missing (a missing one is then fine). */
  creates?: boolean;
  messageIds?: readonly string[];
  trace?: TurnTrace;
}

const WITH_DELETED = { includeDeleted: true } as const;
const q = JSON.stringify;

/**
 * Turns a store's refusal of a write made through a view into the view's answer: when the
 * refused record (or its conversation) is out of the view, a `NotFoundError` worded exactly as
 * for a record that does not exist, so a view learns nothing about other owners' records. Reads
 * run only after a refusal, to choose the error; the write itself was atomic.
 *
 * On a store without `capabilities.tenants`, whose writes do not enforce the ownership rules
 * themselves, {@link before} makes the same checks with reads before the write.
 */
export class ViewGuard {
  constructor(
    private readonly store: MessageStoreApi & { readonly adapterName: string },
    private readonly scope: Scope,
  ) {}

  /** Checks ownership before a write, on stores that do not enforce it inside the write. */
  async before(targets: WriteTargets): Promise<void> {
    if (this.store.capabilities.tenants === true) return;
    const refusal = await this.#outOfScope(targets);
    if (refusal) throw refusal;
  }

  /** Awaits the write; an `IntegrityError` caused by an out-of-scope record becomes `NotFoundError`. */
  async refusal<T>(write: Promise<T>, targets: WriteTargets): Promise<T> {
    try {
      return await write;
    } catch (error) {
      if (!(error instanceof IntegrityError)) throw error;
      throw (await this.#outOfScope(targets)) ?? error;
    }
  }

  async #outOfScope(targets: WriteTargets): Promise<NotFoundError | null> {
    for (const id of new Set(targets.conversationIds)) {
      const c = await this.store.getConversation(id, WITH_DELETED);
      if (c ? !inScope(c, this.scope) : !targets.creates) {
        return this.#notFound(`conversation ${q(id)} does not exist`);
      }
    }
    for (const id of new Set(targets.messageIds ?? [])) {
      const m = await this.store.getMessage(id, WITH_DELETED);
      if (m && !inScope(m, this.scope)) return this.#notFound(`message ${q(id)} does not exist`);
    }
    return targets.trace ? this.#traceOutOfScope(targets.trace) : null;
  }

  /**
   * A trace write refused for none of the in-scope reasons (missing message, another trace on
   * it, soft-deleted message) was refused because its id belongs to a trace of another message,
   * which may be another owner's: the view does not say whose.
   */
  async #traceOutOfScope(trace: TurnTrace): Promise<NotFoundError | null> {
    if (this.store.capabilities.tenants !== true) return null;
    const m = await this.store.getMessage(trace.messageId, WITH_DELETED);
    if (!m || m.conversationId !== trace.conversationId) return null;
    if (m.deletedAt !== null && trace.deletedAt === null) return null;
    const current = await this.store.getTurnTraceByMessageId(trace.messageId, WITH_DELETED);
    if (current && (current.id !== trace.id || current.deletedAt !== trace.deletedAt)) return null;
    return this.#notFound(
      `turn trace ${q(trace.id)} of message ${q(trace.messageId)} does not exist`,
    );
  }

  #notFound(message: string): NotFoundError {
    return new NotFoundError(message, { adapter: this.store.adapterName });
  }
}

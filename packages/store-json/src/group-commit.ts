import type { FilePersistence } from "./file-persistence.js";
import type { MemoryState } from "./memory-state.js";
import type { Mutex } from "./mutex.js";
import { applyOperation, checkOperation, type Operation, type ResultOf } from "./operations.js";

interface PendingWrite {
  op: Operation;
  resolve(result: unknown): void;
  reject(error: unknown): void;
}

/**
 * What an operation's check and application read or change, as keys; `null` for an operation
 * that must be committed alone (the cascades, which touch everything of a conversation or user).
 * Two operations with no key in common check and apply the same whether the other one was
 * applied first or not, so they can share a commit.
 */
export function operationKeys(state: MemoryState, op: Operation): string[] | null {
  switch (op.op) {
    case "putConversation":
      return [`c:${op.conversation.id}`];
    case "putMessages": {
      const keys: string[] = [];
      for (const m of op.messages) keys.push(`c:${m.conversationId}`, `m:${m.id}`);
      return keys;
    }
    case "flagMessage":
      return [`m:${op.id}`];
    case "setEmbeddings":
      return op.updates.map((u) => `m:${u.id}`);
    case "softDeleteMessage":
    case "restoreMessage":
    case "deleteMessage": {
      // Also its trace, and its conversation (whose soft delete a restore depends on).
      const m = state.messages.get(op.id)?.message;
      const trace = state.traceIdByMessage.get(op.id);
      const keys = [`m:${op.id}`];
      if (m) keys.push(`c:${m.conversationId}`);
      if (trace !== undefined) keys.push(`t:${trace}`);
      return keys;
    }
    case "putTurnTrace": {
      const keys = [`t:${op.trace.id}`, `m:${op.trace.messageId}`];
      // A journal of an older version may move a trace, which frees its old message.
      const old = state.traces.get(op.trace.id);
      if (old && old.messageId !== op.trace.messageId) keys.push(`m:${old.messageId}`);
      return keys;
    }
    case "deleteConversation":
    case "softDeleteConversation":
    case "restoreConversation":
    case "purgeDeleted":
    case "deleteUserData":
      return null;
  }
}

/**
 * Group commit: writes that arrive while the journal is being fdatasync'ed wait, and the next
 * commit takes all of them at once — one journal line, one fdatasync — instead of one fdatasync
 * each. With a single writer nothing changes (every group has one write); with concurrent
 * writers (an agent serving many conversations) throughput grows with their number instead of
 * being capped at one write per fdatasync.
 *
 * A group is the longest run, in call order, of writes whose keys (see {@link operationKeys})
 * do not overlap, so checking each against the state before the group and applying them in order
 * gives exactly what committing them one by one would. Journal order is still call order, every
 * write is durable before it is applied and before its call resolves, and a failed append fails
 * every write of the group (memory unchanged).
 */
export class GroupCommit {
  readonly #queue: PendingWrite[] = [];
  #scheduled = false;

  constructor(
    private readonly state: MemoryState,
    private readonly persistence: FilePersistence | null,
    private readonly mutex: Mutex,
  ) {}

  /** Checks, journals and applies `op`; resolves to what applying it returned. */
  write<O extends Operation>(op: O): Promise<ResultOf<O>> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ op, resolve: resolve as (r: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    void this.mutex.run(() => this.#commitNext());
  }

  #takeGroup(): PendingWrite[] {
    // A lone write shares its commit with nothing: its keys (two strings per message of a
    // batch) need not be built.
    if (this.#queue.length === 1) return [this.#queue.shift()!];
    const group: PendingWrite[] = [];
    const seen = new Set<string>();
    while (this.#queue.length > 0) {
      const keys = operationKeys(this.state, this.#queue[0]!.op);
      if (keys === null) {
        if (group.length === 0) group.push(this.#queue.shift()!);
        break;
      }
      if (keys.some((k) => seen.has(k))) break;
      for (const k of keys) seen.add(k);
      group.push(this.#queue.shift()!);
    }
    return group;
  }

  async #commitNext(): Promise<void> {
    this.#scheduled = false;
    const group = this.#takeGroup();
    if (this.#queue.length > 0) this.#schedule();
    const accepted: { write: PendingWrite; changes: boolean }[] = [];
    for (const write of group) {
      try {
        accepted.push({ write, changes: checkOperation(this.state, write.op, "live") });
      } catch (error) {
        write.reject(error);
      }
    }
    const journaled = accepted.filter((a) => a.changes).map((a) => a.write.op);
    let failure: { error: unknown } | null = null;
    if (journaled.length > 0 && this.persistence) {
      try {
        await this.persistence.commit(journaled);
      } catch (error) {
        failure = { error };
      }
    }
    for (const { write, changes } of accepted) {
      if (changes && failure) {
        write.reject(failure.error);
        continue;
      }
      try {
        write.resolve(applyOperation(this.state, write.op));
      } catch (error) {
        // Not expected (applying a checked operation cannot fail), but never leave a call hanging.
        write.reject(error);
      }
    }
    if (journaled.length > 0 && !failure) this.persistence?.afterCommit();
  }
}

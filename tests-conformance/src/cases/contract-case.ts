import type { MessageStore, StoreCapabilities } from "@message-store/core";

/** What a contract case gets to run against. */
export interface CaseContext {
  /** The store opened for the case (empty). */
  readonly store: MessageStore;
  /**
   * Opens another instance on the same storage (another connection), or `null` when the adapter
   * cannot have two open at once (`concurrentInstances: false`). The harness closes it.
   */
  readonly openAnother: (() => Promise<MessageStore>) | null;
  /**
   * Closes every open store, restarts the backend (the adapter's `restart` hook, or nothing) and
   * opens the storage again; `null` when data does not outlive `close()` (`persistent: false`).
   */
  readonly restart: (() => Promise<MessageStore>) | null;
  /** Raw counts behind the API (the adapter's `inspect` hook), or `null` when not given. */
  readonly inspect: (() => Promise<Record<string, number>>) | null;
}

/**
 * One case pinning one rule of `MessageStoreApi`'s TSDoc. Cases are plain functions so that the
 * suite's own self-tests can run them against adapters with planted bugs and check the message.
 */
export interface ContractCase {
  /** Short stable name, as `knownViolations` and the README refer to the case. */
  readonly id: string;
  /** The rule, as the failure message names it: `[rule] <rule>`. */
  readonly rule: string;
  /** The test title. */
  readonly title: string;
  /** Capabilities the case needs; it is skipped (visibly) without them. */
  readonly requires?: readonly (keyof StoreCapabilities | "persistent" | "inspect")[];
  run(ctx: CaseContext): Promise<void>;
}

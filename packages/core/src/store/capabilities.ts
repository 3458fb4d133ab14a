import { UnsupportedOperationError } from "../errors.js";

/**
 * Optional capabilities; the conformance suite skips (visibly) what an adapter does not declare,
 * and core rejects a call that needs an undeclared one with `UnsupportedOperationError` before
 * any I/O. A flag that is absent counts as `false`.
 */
export interface StoreCapabilities {
  /** `searchMessages` is implemented. */
  readonly semanticSearch: boolean;
  /**
   * Soft delete: `softDelete*`, `restore*`, `purgeDeleted`, and records written with a
   * `deletedAt` (import of soft-deleted data). Without it those calls, and writes carrying a
   * `deletedAt`, reject with `UnsupportedOperationError`, so no soft-deleted data exists.
   */
  readonly softDelete?: boolean;
  /**
   * Tenants: records carry `tenantId`, queries filter by it and `forTenant` works. Without it,
   * writes carrying a `tenantId`, `tenantId` filters and `forTenant` reject with
   * `UnsupportedOperationError`. (The ownership rules of `MessageStoreApi` hold on every
   * adapter, with or without tenants.)
   */
  readonly tenants?: boolean;
  /** `listPendingEmbeddings`, `setEmbeddings` (and so `embedPendingMessages`) are implemented. */
  readonly embeddingQueue?: boolean;
  /** `searchConversations` (text search over titles and message contents) is implemented. */
  readonly textSearch?: boolean;
  /**
   * A guarantee, not an operation: `storeTurnTraces` stores all or nothing. Without it, a batch
   * refused at one trace keeps the traces before it (see `MessageStoreApi.storeTurnTraces`).
   */
  readonly atomicTraceBatches?: boolean;
  /**
   * Checkpoints of agent graphs (LangGraph's savers): `putCheckpoint`, `putCheckpointWrites`,
   * `getCheckpoint`, `listCheckpoints`, `deleteCheckpoints`. A thread is a conversation: its
   * checkpoints follow the conversation's scope, soft delete, deletion and erasure.
   */
  readonly checkpoints?: boolean;
}

/** The capabilities that gate operations (the others state guarantees). */
export type GatingCapability = Exclude<keyof StoreCapabilities, "atomicTraceBatches">;

const WHAT: Record<GatingCapability, string> = {
  semanticSearch: "semantic search",
  softDelete: "soft delete",
  tenants: "tenants",
  embeddingQueue: "the embedding queue",
  textSearch: "text search",
  checkpoints: "checkpoints",
};

/** Throws `UnsupportedOperationError` (naming the adapter) unless the store declares `flag`. */
export function requireCapability(
  capabilities: StoreCapabilities,
  flag: GatingCapability,
  adapter: string,
): void {
  if (capabilities[flag] !== true) {
    throw new UnsupportedOperationError(`this adapter does not support ${WHAT[flag]}`, {
      adapter,
    });
  }
}

/**
 * Rejects records an adapter without `tenants` or `softDelete` could not keep to the rules: one
 * with a `tenantId` or a `deletedAt`. A no-op on adapters that declare both.
 */
export function requireRecordCapabilities(
  capabilities: StoreCapabilities,
  records: readonly { tenantId: string | null; deletedAt: number | null }[],
  adapter: string,
): void {
  if (capabilities.tenants === true && capabilities.softDelete === true) return;
  for (const r of records) {
    if (r.tenantId !== null) requireCapability(capabilities, "tenants", adapter);
    if (r.deletedAt !== null) requireCapability(capabilities, "softDelete", adapter);
  }
}

/** `requireCapability(…, "tenants")` when a `tenantId` filter is given. */
export function requireTenantFilter(
  capabilities: StoreCapabilities,
  filter: { tenantId?: string | undefined },
  adapter: string,
): void {
  if (filter.tenantId !== undefined) requireCapability(capabilities, "tenants", adapter);
}

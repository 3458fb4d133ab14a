import { UnsupportedOperationError } from "../errors.js";
import type { StoreCapabilities } from "./message-store-api.js";

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

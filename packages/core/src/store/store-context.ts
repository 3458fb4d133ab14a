import type { z } from "zod";
import type { DeletedCounts, Page, ReadOptions, Scope } from "../models/queries.js";
import { ReadOptionsSchema } from "../models/queries.js";
import { decodeCursor, toPage } from "../paging/page-request.js";
import { parseId, parseInput } from "../validation.js";
import {
  type GatingCapability,
  requireCapability,
  requireRecordCapabilities,
  requireTenantFilter,
  type StoreCapabilities,
} from "./capabilities.js";
import type { OperationSpec } from "./contract/operation-spec.js";
import type { MessageStoreDriver } from "./driver.js";
import type { Lifecycle } from "./lifecycle.js";
import {
  type DriverOperation,
  OPERATIONS,
  type RequestOf,
  type ResultOf,
} from "./operation-table.js";
import { asViewRefusal } from "./owner-refusal.js";
import { ownerValue, scopedFilter } from "./scope.js";

/** The scope of a store that is not a view. */
export const UNSCOPED: Scope = Object.freeze({});
const LIVE_ONLY = Object.freeze({ includeDeleted: false });

/** The page, and the counts, of a filter that contradicts the view's scope. */
const EMPTY: Page<never> = Object.freeze({ items: [], nextCursor: null }) as Page<never>;
export const NOTHING: DeletedCounts = Object.freeze({
  conversations: 0,
  messages: 0,
  turnTraces: 0,
});

/** Rows to ask the driver for: one more than the page, to know whether another follows. */
export const take = (limit: number | undefined) => (limit === undefined ? null : limit + 1);

/** What a paged list takes from its caller: the page, and the owner filter. */
type ListQuery = {
  limit?: number | undefined;
  cursor?: string | null | undefined;
  userId?: string | undefined;
  tenantId?: string | undefined;
};
type RowOf<K extends DriverOperation> = ResultOf<K> extends readonly (infer R)[] ? R : never;

type Owners = { userId?: string | null; tenantId?: string | null };
/** A request without its scope, which {@link StoreContext.call} fills from the store's own. */
export type Scoped<K extends DriverOperation> = Omit<RequestOf<K>, "scope"> & { scope?: Scope };

/**
 * What every operation of one store or view works with: the driver, the lifecycle it shares with
 * its views, and its scope; and the steps each operation is made of (parse an argument, fill a
 * record's owners, merge an owner filter with the scope, check a capability, call the driver).
 */
export class StoreContext<D extends MessageStoreDriver = MessageStoreDriver> {
  constructor(
    readonly driver: D,
    readonly life: Lifecycle,
    readonly scope: Scope,
  ) {}

  /** The driver's name, as in error messages. */
  get name(): string {
    return this.driver.name;
  }

  get capabilities(): StoreCapabilities {
    return this.driver.capabilities;
  }

  /** The same driver and lifecycle with another scope. */
  withScope(scope: Scope): StoreContext<D> {
    return new StoreContext(this.driver, this.life, scope);
  }

  /**
   * One driver call, with the view's scope unless the request names one: the capability the
   * operation table names is checked first, then the call runs through the lifecycle. Through a
   * view, an owner refusal of a write of owned records is answered as "does not exist".
   */
  async call<K extends DriverOperation>(op: K, request: Scoped<K>): Promise<ResultOf<K>> {
    const { capability, owned } = OPERATIONS[op] as OperationSpec;
    if (capability) this.require(capability);
    const full = (request.scope ? request : { ...request, scope: this.scope }) as RequestOf<K>;
    const method = this.driver[op] as (r: RequestOf<K>) => Promise<ResultOf<K>>;
    try {
      return await this.life.run(op, () => method.call(this.driver, full));
    } catch (error) {
      throw owned && this.scope !== UNSCOPED ? asViewRefusal(error, this.name) : error;
    }
  }

  /**
   * A keyset-paged list: the capability checked, the caller's owner filter merged with the
   * view's scope (contradicting ones give an empty page, without a call), the cursor decoded,
   * one row more than `limit` asked for, and the rows turned into a page whose cursor is the key
   * of its last row.
   */
  async list<K extends DriverOperation, Key>(
    op: K,
    query: ListQuery,
    codec: { decode(cursor: string): Key; encode(key: Key): string },
    keyOf: (row: RowOf<K>) => Key,
    request: Omit<RequestOf<K>, "scope" | "page">,
  ): Promise<Page<RowOf<K>>> {
    const { capability } = OPERATIONS[op] as OperationSpec;
    if (capability) this.require(capability);
    const scope = this.filter({ userId: query.userId, tenantId: query.tenantId });
    const after = decodeCursor(query.cursor, codec.decode, this.name);
    if (!scope) return EMPTY;
    const page = { after, take: take(query.limit) };
    const rows = (await this.call(op, { ...request, scope, page } as never)) as RowOf<K>[];
    return toPage(
      rows,
      query.limit ?? null,
      (r) => r,
      (r) => codec.encode(keyOf(r)),
    );
  }

  /** Validated records to write: the view's owners filled in, capabilities checked. */
  records<R extends Owners & { tenantId: string | null; deletedAt: number | null }>(
    records: R[],
  ): R[] {
    for (const r of records) this.owned(r, "record");
    requireRecordCapabilities(this.capabilities, records, this.name);
    return records;
  }

  /** The request of a read by id: the id and whether soft-deleted records count. */
  readById(id: unknown, what: string, options: ReadOptions | undefined) {
    const key = this.id(id, what);
    const read =
      options === undefined ? LIVE_ONLY : this.parse(ReadOptionsSchema, options, "read options");
    return { id: key, includeDeleted: read.includeDeleted };
  }

  /** The record with the view's owners filled in (another owner is a `ValidationError`). */
  owned<R extends Owners>(record: R, what: string): R {
    if (this.scope === UNSCOPED) return record;
    const { userId, tenantId } = this.scope;
    if (userId !== undefined)
      record.userId = ownerValue(record.userId, userId, "userId", what, this.name);
    if (tenantId !== undefined)
      record.tenantId = ownerValue(record.tenantId, tenantId, "tenantId", what, this.name);
    return record;
  }

  /** A caller's owner filter merged with the view's scope; `null` when they contradict. */
  filter(owners: { userId?: string | undefined; tenantId?: string | undefined }): Scope | null {
    requireTenantFilter(this.capabilities, owners, this.name);
    return scopedFilter(owners, this.scope);
  }

  /** The argument validated and copied; `StoreClosedError` first once the store is closed. */
  parse<S extends z.ZodType>(
    schema: S,
    value: unknown,
    what: string,
    fast?: (value: unknown) => z.output<S> | undefined,
  ): z.output<S> {
    this.life.assertOpen();
    return parseInput(schema, value, what, this.name, fast);
  }

  /** An id argument validated; `StoreClosedError` first once the store is closed. */
  id(value: unknown, what: string): string {
    this.life.assertOpen();
    return parseId(value, what, this.name);
  }

  /** Throws `UnsupportedOperationError` unless the driver declares `flag`. */
  require(flag: GatingCapability): void {
    requireCapability(this.capabilities, flag, this.name);
  }
}

/** A family's methods as the store carries them out: each one over the store's context. */
export type Implementation<Api> = {
  [K in keyof Api]: Api[K] extends (...args: infer P) => infer R
    ? (ctx: StoreContext, ...args: P) => R
    : never;
};

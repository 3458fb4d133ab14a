import { ConfigurationError } from "../errors.js";
import { openStore } from "../factory/open-store.js";
import type { StoreConfig } from "../factory/storage-config-map.js";
import type { Scope } from "../models/queries.js";
import type { StoreCapabilities } from "./capabilities.js";
import type { OperationSpec } from "./contract/operation-spec.js";
import type { MessageStoreDriver } from "./driver.js";
import { Lifecycle } from "./lifecycle.js";
import type { MessageStoreApi } from "./message-store-api.js";
import { DRIVER_OPERATIONS, OPERATIONS } from "./operation-table.js";
import { CHECKPOINT_METHODS } from "./operations/checkpoint-operations.js";
import { CONVERSATION_METHODS } from "./operations/conversation-operations.js";
import { EMBEDDING_QUEUE_METHODS } from "./operations/embedding-queue-operations.js";
import { MESSAGE_METHODS } from "./operations/message-operations.js";
import { SEARCH_METHODS } from "./operations/search-operations.js";
import { SESSION_METHODS } from "./operations/session-operations.js";
import { SOFT_DELETE_METHODS } from "./operations/soft-delete-operations.js";
import { TRACE_METHODS } from "./operations/trace-operations.js";
import { narrowScope } from "./scope.js";
import { type Implementation, StoreContext, UNSCOPED } from "./store-context.js";

/** The contract's methods but the views, as the store carries them out, family by family. */
type Methods = Omit<MessageStoreApi, "capabilities" | "forUser" | "forTenant">;
const METHODS: Implementation<Methods> = {
  ...CONVERSATION_METHODS,
  ...SOFT_DELETE_METHODS,
  ...MESSAGE_METHODS,
  ...SESSION_METHODS,
  ...TRACE_METHODS,
  ...SEARCH_METHODS,
  ...EMBEDDING_QUEUE_METHODS,
  ...CHECKPOINT_METHODS,
};

const METHOD = { writable: true, configurable: true };
const asyncDispose: typeof Symbol.asyncDispose =
  Symbol.asyncDispose ?? Symbol.for("Symbol.asyncDispose");
/** Marks every store made by any copy of core, so `instanceof MessageStore` works across copies. */
const STORE_BRAND = Symbol.for("@message-store/core/MessageStore");

/**
 * The message store: the {@link MessageStoreApi} (documented there) over a
 * {@link MessageStoreDriver}. Applications get one from {@link MessageStore.initialize}; an
 * adapter's `open` returns `new MessageStore(driver)`.
 *
 * It keeps what is the same for every backend: it validates and copies every argument once,
 * fills the owners of records written through a view, checks capabilities, rejects calls after
 * `close()` and waits for calls in flight before closing, turns keyset rows into pages and
 * cursors, compresses, rounds search scores, and gives every error the driver's name. A view
 * (`forUser`, `forTenant`) is a `MessageStore` over the same driver with a narrower scope, which
 * travels inside every request. Each method is one entry of a family's methods in `operations/`,
 * made of the steps of a {@link StoreContext}; the class gets them all from there.
 */
// The class installs these methods on its prototype, from `METHODS`.
// biome-ignore lint/correctness/noUnusedVariables: merged with the class, its parameter must match
export interface MessageStore<D extends MessageStoreDriver = MessageStoreDriver> extends Methods {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the static block installs every method
export class MessageStore<D extends MessageStoreDriver = MessageStoreDriver>
  implements MessageStoreApi, AsyncDisposable
{
  static {
    for (const [name, run] of Object.entries(METHODS) as [string, Function][]) {
      const { [name]: value } = {
        [name](this: MessageStore, ...args: unknown[]) {
          return run(this.#ctx, ...args);
        },
      };
      Object.defineProperty(MessageStore.prototype, name, { ...METHOD, value });
    }
  }

  /**
   * Creates, connects and initialises the store named by `config.storage`, through the adapter
   * registered under that name: importing an adapter package registers it (in plain Node, a
   * built-in adapter that was not imported is imported by its package name). Throws
   * `ConfigurationError` for an unknown storage or a bad config, `ConnectionError` when the
   * backend cannot be reached. See {@link StoreConfig} for the typed config.
   */
  static initialize(config: StoreConfig): Promise<MessageStore> {
    return openStore<MessageStore>(config);
  }

  /** True for a store of any copy of core. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as Record<symbol, unknown>)[STORE_BRAND] === true
    );
  }

  /** The driver this store (and its views) calls: an adapter's extras live on it. */
  readonly driver: D;
  #ctx: StoreContext<D>;

  /**
   * A store over `driver`, open until `close()`. Throws `ConfigurationError` when the driver has
   * no `name` or declares a capability without its methods.
   */
  constructor(driver: D) {
    checkDriver(driver);
    this.driver = driver;
    this.#ctx = new StoreContext(driver, new Lifecycle(driver), UNSCOPED);
    Object.defineProperty(this, STORE_BRAND, { value: true });
  }

  get capabilities(): StoreCapabilities {
    return this.driver.capabilities;
  }

  /** The driver's name, as in error messages. */
  get adapterName(): string {
    return this.driver.name;
  }

  /** True once `close()` was called on this store or any of its views. */
  get closed(): boolean {
    return this.#ctx.life.closed;
  }

  /** See {@link MessageStoreApi.forUser}. Throws `ValidationError` for an invalid id. */
  forUser(userId: string): MessageStore<D> {
    const ctx = this.#ctx;
    const id = ctx.id(userId, "user id");
    return this.#view(narrowScope(ctx.scope, "userId", id, ctx.name));
  }

  /**
   * See {@link MessageStoreApi.forTenant}. Throws `ValidationError` for an invalid id and
   * `UnsupportedOperationError` unless `capabilities.tenants`.
   */
  forTenant(tenantId: string): MessageStore<D> {
    const ctx = this.#ctx;
    const id = ctx.id(tenantId, "tenant id");
    ctx.require("tenants");
    return this.#view(narrowScope(ctx.scope, "tenantId", id, ctx.name));
  }

  /**
   * Waits for calls in flight, then releases everything the driver owns (a caller-owned pool or
   * client is left open). Idempotent: a second call resolves when the first finishes. Every other
   * method, of the store and of its views, rejects with `StoreClosedError` afterwards.
   */
  close(): Promise<void> {
    return this.#ctx.life.close();
  }

  [asyncDispose](): Promise<void> {
    return this.close();
  }

  /** The same store with a narrower scope: the same driver and lifecycle. */
  #view(scope: Scope): MessageStore<D> {
    const view = new MessageStore(this.driver);
    view.#ctx = this.#ctx.withScope(scope);
    return view;
  }
}

/** A driver must have a name, and every method of each capability it declares. */
function checkDriver(driver: MessageStoreDriver): void {
  if (typeof driver?.name !== "string" || driver.name.length === 0) {
    throw new ConfigurationError("a message store driver needs a non-empty name");
  }
  for (const op of DRIVER_OPERATIONS) {
    const flag = (OPERATIONS[op] as OperationSpec).capability;
    if (flag && driver.capabilities[flag] !== true) continue;
    if (typeof driver[op] !== "function") {
      const why = flag ? `it declares ${flag} but` : "it";
      throw new ConfigurationError(`driver "${driver.name}": ${why} has no ${op}()`, {
        adapter: driver.name,
      });
    }
  }
}

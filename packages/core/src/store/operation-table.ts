import type { GatingCapability } from "./capabilities.js";
import { CHECKPOINTS } from "./contract/checkpoints.js";
import { CONVERSATIONS } from "./contract/conversations.js";
import { EMBEDDING_QUEUE } from "./contract/embedding-queue.js";
import { MESSAGES } from "./contract/messages.js";
import type { OperationSpec } from "./contract/operation-spec.js";
import { SEARCH } from "./contract/search.js";
import { SESSIONS } from "./contract/sessions.js";
import { SOFT_DELETE } from "./contract/soft-delete.js";
import { TRACES } from "./contract/traces.js";
import type { MessageStoreDriver } from "./driver.js";

/**
 * The operation table: every driver operation of the contract, by capability family, each with
 * its spec (capability, whether it writes, whether it writes owned records). Each family is one
 * file of `contract/` that declares the caller's methods, the driver's methods (request and
 * result) and its entries here; everything else derives from this: the driver's method list
 * ({@link DRIVER_OPERATIONS}), the optional methods by capability ({@link OPTIONAL_OPERATIONS}),
 * the capability checks before a call, the view's answer to an owner refusal, the check that a
 * driver has the methods it declares, the memory engine's write list, and the adapter guide's
 * table (a test compares them).
 */
export const OPERATION_FAMILIES = {
  conversations: CONVERSATIONS,
  softDelete: SOFT_DELETE,
  messages: MESSAGES,
  sessions: SESSIONS,
  traces: TRACES,
  search: SEARCH,
  embeddingQueue: EMBEDDING_QUEUE,
  checkpoints: CHECKPOINTS,
} as const;

export type OperationFamily = keyof typeof OPERATION_FAMILIES;

type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (u: infer T) => void
  ? { readonly [K in keyof T]: T[K] }
  : never;
type Table = Merged<(typeof OPERATION_FAMILIES)[OperationFamily]>;

/** Every operation's spec, by name. */
export const OPERATIONS: Table = Object.assign({}, ...Object.values(OPERATION_FAMILIES));

/** The operations of a driver: every method but the plumbing. */
export type DriverOperation = keyof Table;

/** Every operation, family by family: what views, wrappers and doubles derive from. */
export const DRIVER_OPERATIONS = Object.keys(OPERATIONS) as readonly DriverOperation[];

type Optional = {
  [K in DriverOperation as Table[K] extends { capability: GatingCapability } ? K : never]: Table[K];
};

/** The optional operations, by the capability that declares them. */
export const OPTIONAL_OPERATIONS = Object.fromEntries(
  DRIVER_OPERATIONS.flatMap((op) => {
    const { capability } = OPERATIONS[op] as OperationSpec;
    return capability ? [[op, capability]] : [];
  }),
) as { readonly [K in keyof Optional]: Optional[K]["capability"] };

/** The operations that change the store. */
export type WriteOperation = {
  [K in DriverOperation]: Table[K] extends { write: true } ? K : never;
}[DriverOperation];

/** The request one operation takes. */
export type RequestOf<K extends DriverOperation> = Parameters<
  NonNullable<MessageStoreDriver[K]>
>[0];

/** What one operation resolves to. */
export type ResultOf<K extends DriverOperation> = Awaited<
  ReturnType<NonNullable<MessageStoreDriver[K]>>
>;

// The table and the driver interface name the same operations: a family's driver method missing
// from its entries fails to compile in its file, a family left out of the table fails here.
type Methods = Exclude<
  keyof MessageStoreDriver,
  "name" | "capabilities" | "close" | "mapError" | `_${string}`
>;
type Unlisted = Exclude<Methods, DriverOperation> | Exclude<DriverOperation, Methods>;
const everyOperationListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyOperationListed;

import type { GatingCapability } from "../capabilities.js";

/** What the operation table says about one driver operation, besides its request and result. */
export interface OperationSpec {
  /** The capability that declares it; its driver method is optional then. */
  readonly capability?: GatingCapability;
  /** It changes the store. */
  readonly write?: true;
  /**
   * It writes records that carry their owners: the driver refuses another owner's with
   * `ownerRefusal`, which a view answers as "does not exist".
   */
  readonly owned?: true;
}

/**
 * The specs of one family's driver methods: an optional method names the capability that
 * declares it, a required one names none.
 */
export type FamilySpecs<D> = {
  readonly [K in keyof D]-?: undefined extends D[K]
    ? OperationSpec & { readonly capability: GatingCapability }
    : OperationSpec & { readonly capability?: never };
};

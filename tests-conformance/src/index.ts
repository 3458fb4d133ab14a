/**
 * The conformance suite every message-store adapter must pass. One call registers it:
 * `describeMessageStoreConformance({ name, open, reset, persistent? })`.
 * @packageDocumentation
 */
export { describeMessageStoreConformance } from "./describe-message-store-conformance.js";
export type { ConformanceOptions } from "./harness.js";

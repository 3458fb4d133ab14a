/**
 * The conformance suite every message-store adapter must pass. One call registers it:
 * `describeMessageStoreConformance({ name, open, reset, persistent? })`.
 * @packageDocumentation
 */

export type { CaseContext, ContractCase } from "./cases/index.js";
export { CONTRACT_CASES } from "./cases/index.js";
export {
  describeMessageStoreConformance,
  SUITE_NAMES,
  selectSuites,
} from "./describe-message-store-conformance.js";
export type { ConformanceOptions } from "./harness.js";
export type { RealStore } from "./model/command.js";
export { type ModelCheckOptions, runModelCheck } from "./model/run-model-check.js";
export { expectRule } from "./rule-check.js";

import { atomicBatch, atomicCascade, atomicListPages } from "./atomicity-cases.js";
import type { ContractCase } from "./contract-case.js";
import { noOrphans, survivesRestart } from "./durability-cases.js";
import { embeddingRemovedByUpsert, flagByUpsert, userChangedByUpsert } from "./upsert-cases.js";
import { nestedModelCalls, usageAgentAndUser } from "./usage-cases.js";

/** Cases registered under "contract rules", one per rule the older suites did not pin down. */
export const CONTRACT_CASES: readonly ContractCase[] = [
  flagByUpsert,
  embeddingRemovedByUpsert,
  userChangedByUpsert,
  usageAgentAndUser,
  nestedModelCalls,
  atomicListPages,
  atomicCascade,
  atomicBatch,
  survivesRestart,
  noOrphans,
];

export type { CaseContext, ContractCase } from "./contract-case.js";

import {
  atomicBatch,
  atomicCascade,
  atomicListPages,
  atomicListPagesMutations,
} from "./atomicity-cases.js";
import type { ContractCase } from "./contract-case.js";
import { noOrphans, survivesRestart } from "./durability-cases.js";
import { pendingEmbeddingsTenant, staleEmbeddingCleared } from "./embedding-cases.js";
import { ownersHoldEverywhere } from "./ownership-cases.js";
import { sessionEndOfTime, sessionRace, sessionRetry } from "./session-cases.js";
import { purgeBeforeExclusive, softDeleteStampBumped } from "./soft-delete-cases.js";
import { traceBatchStopsAtRefusal } from "./trace-batch-cases.js";
import { traceOwnerFirst, viewTraceForeignMessage } from "./trace-owner-cases.js";
import {
  activityForwardByUpsert,
  embeddingRemovedByUpsert,
  flagByUpsert,
  userChangedByUpsert,
} from "./upsert-cases.js";
import { nestedModelCalls, usageAgentAndUser } from "./usage-cases.js";
import { viewReadsArgumentsOnce } from "./view-cases.js";

/** Cases registered under "contract rules", one per rule the older suites did not pin down. */
export const CONTRACT_CASES: readonly ContractCase[] = [
  flagByUpsert,
  embeddingRemovedByUpsert,
  userChangedByUpsert,
  activityForwardByUpsert,
  staleEmbeddingCleared,
  usageAgentAndUser,
  nestedModelCalls,
  atomicListPages,
  atomicListPagesMutations,
  atomicCascade,
  atomicBatch,
  survivesRestart,
  noOrphans,
  purgeBeforeExclusive,
  softDeleteStampBumped,
  traceBatchStopsAtRefusal,
  traceOwnerFirst,
  viewTraceForeignMessage,
  pendingEmbeddingsTenant,
  sessionRace,
  sessionRetry,
  sessionEndOfTime,
  viewReadsArgumentsOnce,
  ownersHoldEverywhere,
];

export type { CaseContext, ContractCase } from "./contract-case.js";

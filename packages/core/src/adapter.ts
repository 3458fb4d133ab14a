/**
 * `@message-store/core/adapter`: what only adapter authors need. Implement a
 * {@link MessageStoreDriver}, open stores as `new MessageStore(driver)` (from the root export),
 * register the adapter with {@link registerStorage}; reuse the checks and helpers below so every
 * adapter behaves alike.
 * See `ADAPTERS.md` in this package for the guide.
 * @packageDocumentation
 */
export { cosineSimilarity } from "./analytics/cosine.js";
export { matchesTraceFilter } from "./analytics/trace-filter.js";
export {
  bucketStart,
  finalizeUsage,
  matchesUsageQuery,
  summarizeTraces,
  type UsageSums,
} from "./analytics/usage.js";
export {
  canonicalConversation,
  canonicalConversationRecord,
} from "./canonical/canonical-conversation.js";
export { canonicalMessage } from "./canonical/canonical-message.js";
export type { FieldCheck } from "./canonical/canonical-object.js";
export { canonicalTurnTrace } from "./canonical/canonical-turn-trace.js";
export { compareWrites } from "./checkpoint/compare-writes.js";
export { jsonEquals, matchesMetadata } from "./checkpoint/matches-metadata.js";
export { parseConfig } from "./factory/parse-config.js";
export { registerStorage, type StorageAdapter } from "./factory/register-storage.js";
export { CONVERSATION_FIELDS, CONVERSATION_READ_FIELDS } from "./models/conversation.js";
export { type FieldKind, kindOf, kindsOf, type ModelKinds } from "./models/field-kind.js";
export { findJsonProblem } from "./models/json.js";
export { ENTITY_FIELDS, MESSAGE_FIELDS, TOOL_CALL_FIELDS } from "./models/message.js";
export type { ModelField, ModelFields } from "./models/model-field.js";
export {
  LLM_CALL_FIELDS,
  SCRIPT_GEN_ATTEMPT_FIELDS,
  TOOL_TRACE_FIELDS,
  TURN_TRACE_FIELDS,
} from "./models/turn-trace.js";
export type { CheckpointKey, ConversationKey, MessageKey, TraceKey } from "./paging/cursor.js";
export {
  compareCheckpointKeys,
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
} from "./paging/ordering.js";
export { type PageRequest, sliceAfter } from "./paging/page-request.js";
export { redactSecrets } from "./redact.js";
export { containsFolded, foldAscii } from "./search/text-match.js";
export { checkSessionTimestamps, endOfTimeMessage } from "./session/session-end-of-time.js";
export type {
  ByIdRequest,
  ConversationPageRequest,
  DriverRequest,
  ReadByIdRequest,
  SequencedMessage,
  TraceFilter,
} from "./store/contract/requests.js";
export type { MessageStoreDriver } from "./store/driver.js";
export {
  DRIVER_OPERATIONS,
  type DriverOperation,
  OPERATION_FAMILIES,
  OPERATIONS,
  OPTIONAL_OPERATIONS,
  type OperationFamily,
  type RequestOf,
  type ResultOf,
  type WriteOperation,
} from "./store/operation-table.js";
export { ownerRefusal, type RecordKind } from "./store/owner-refusal.js";
export { inScope, type Owned } from "./store/scope.js";
export { parseId, parseInput } from "./validation.js";

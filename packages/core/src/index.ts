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
export { canonicalTurnTrace } from "./canonical/canonical-turn-trace.js";
export {
  type CompressOptions,
  compressionHint,
  compressMessages,
} from "./context/compress-messages.js";
export {
  ConfigurationError,
  ConnectionError,
  CorruptDataError,
  IntegrityError,
  isMessageStoreError,
  MessageStoreError,
  type MessageStoreErrorCode,
  type MessageStoreErrorOptions,
  NotFoundError,
  StorageError,
  StoreClosedError,
  StoreLockedError,
  UnsupportedOperationError,
  ValidationError,
  type ValidationIssue,
} from "./errors.js";
export {
  type CustomStoreConfig,
  JsonConfigSchema,
  type JsonStoreConfig,
  MongoConfigSchema,
  type MongoStoreConfig,
  PostgresConfigSchema,
  type PostgresStoreConfig,
  type ResolvedJsonConfig,
  type ResolvedMongoConfig,
  type ResolvedPostgresConfig,
  type StoreConfig,
} from "./factory/config.js";
export { registerStorage, type StorageFactory } from "./factory/initialize.js";
export { MessageStore } from "./message-store.js";
export type { MessageStoreApi, StoreCapabilities } from "./message-store-api.js";
export { MessageStoreHooks, type SequencedMessage } from "./message-store-hooks.js";
export * from "./models/conversation.js";
export * from "./models/json.js";
export * from "./models/message.js";
export * from "./models/primitives.js";
export * from "./models/queries.js";
export * from "./models/turn-trace.js";
export { newId } from "./new-id.js";
export { type ConversationKey, cursors, type MessageKey, type TraceKey } from "./paging/cursor.js";
export {
  compareConversationKeys,
  compareIds,
  compareMessageKeys,
  compareTraceKeys,
} from "./paging/ordering.js";
export { type PageRequest, sliceAfter, toPage } from "./paging/page-request.js";
export { redactSecrets } from "./redact.js";
export {
  pairToolCalls,
  type ReplayOptions,
  type ReplayStep,
  type ReplayToolCall,
  type ReplayToolResult,
  UNAVAILABLE_TOOL_RESULT,
} from "./replay/pair-tool-calls.js";
export {
  type AiSdkModelMessage,
  type AiSdkTextPart,
  type AiSdkToolCallPart,
  type AiSdkToolResultOutput,
  type AiSdkToolResultPart,
  toModelMessages,
} from "./replay/to-model-messages.js";
export {
  type OpenAIChatMessage,
  type OpenAIChatToolCall,
  toOpenAIChatMessages,
} from "./replay/to-openai-chat-messages.js";
export { UserScopedStore } from "./scoped/user-scoped-store.js";
export { parseId, parseInput } from "./validation.js";

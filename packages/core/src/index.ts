/**
 * `@message-store/core`: what applications use. The models, the `MessageStore` contract and its
 * factory, typed errors, ids and replay into model SDK formats. Adapter authors also import
 * `@message-store/core/adapter`.
 * @packageDocumentation
 */

export {
  callPricer,
  type ModelPricing,
  ModelPricingSchema,
  priceLLMCalls,
} from "./analytics/pricing.js";
export {
  type CompressOptions,
  compressionHint,
  compressMessages,
  DEFAULT_KEEP_CHARS,
  DEFAULT_MAX_CHARS,
} from "./context/compress-messages.js";
export {
  LOOKUP_MESSAGE_DESCRIPTION,
  LOOKUP_MESSAGE_TOOL,
  type LookupMessageInput,
  type LookupMessageResult,
  type LookupScope,
  lookupMessage,
  lookupMessageParameters,
  lookupMessageToolDefinition,
} from "./context/lookup-message-tool.js";
export {
  type EmbedFunction,
  type EmbedPendingOptions,
  type EmbedProgress,
  embedPendingMessages,
} from "./embedding/embed-pending-messages.js";
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
  OutcomeUnknownError,
  StorageError,
  StoreClosedError,
  StoreLockedError,
  UnsupportedOperationError,
  ValidationError,
  type ValidationIssue,
} from "./errors.js";
export type {
  NoStorageAdapterImported,
  StorageConfigMap,
  StorageName,
  StoreConfig,
} from "./factory/storage-config-map.js";
export {
  type ChannelValue,
  ChannelValueSchema,
  type CheckpointFilter,
  type CheckpointInput,
  CheckpointInputSchema,
  type CheckpointPutOptions,
  CheckpointPutOptionsSchema,
  type CheckpointQueryInput,
  CheckpointQuerySchema,
  type CheckpointReadOptions,
  CheckpointReadOptionsSchema,
  type CheckpointRecord,
  type CheckpointWrite,
  type CheckpointWritesInput,
  CheckpointWritesInputSchema,
  type CheckpointWritesRecord,
  type SerializedValue,
  SerializedValueSchema,
  type StoredCheckpoint,
} from "./models/checkpoint.js";
export {
  type Conversation,
  type ConversationInput,
  ConversationInputSchema,
  type ConversationRecord,
  ConversationRecordSchema,
  ConversationSchema,
} from "./models/conversation.js";
export {
  type Json,
  type JsonObject,
  JsonObjectSchema,
  JsonSchema,
  MAX_JSON_DEPTH,
} from "./models/json.js";
export {
  EmbeddingSchema,
  type Entity,
  type EntityInput,
  EntitySchema,
  type Message,
  type MessageInput,
  type MessageRole,
  MessageRoleSchema,
  MessageSchema,
  type ToolCall,
  type ToolCallInput,
  ToolCallSchema,
} from "./models/message.js";
export * from "./models/primitives.js";
export * from "./models/queries.js";
export {
  type EmbeddingUpdate,
  type EmbeddingUpdateInput,
  EmbeddingUpdateSchema,
  type SessionOptions,
  SessionOptionsSchema,
  type SessionTurn,
  SessionTurnSchema,
} from "./models/session.js";
export {
  MAX_SEARCH_TEXT,
  type TextSearchFilter,
  type TextSearchHit,
  type TextSearchQueryInput,
  TextSearchQuerySchema,
} from "./models/text-search.js";
export {
  LLMCallPurposeSchema,
  type LLMCallRecord,
  type LLMCallRecordInput,
  LLMCallRecordSchema,
  type ScriptGenAttempt,
  ScriptGenAttemptSchema,
  type ToolTrace,
  type ToolTraceInput,
  ToolTraceSchema,
  type TurnTrace,
  type TurnTraceInput,
  TurnTraceSchema,
} from "./models/turn-trace.js";
export { newId } from "./new-id.js";
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
export { type ConversationOwner, ensureConversation } from "./session/ensure-conversation.js";
export { sessionTurnOf } from "./session/session-turn-of.js";
export type { StoreCapabilities } from "./store/capabilities.js";
export { MessageStore } from "./store/message-store.js";
export type { MessageStoreApi } from "./store/message-store-api.js";

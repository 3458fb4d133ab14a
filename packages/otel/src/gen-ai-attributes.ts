/**
 * The OpenTelemetry GenAI semantic conventions this package reads and writes. They are still
 * "Development"; names that earlier versions or the AI SDK's own spans use are read too (the
 * first name present wins), and only the pinned names are written.
 */
export const GEN_AI_SEMCONV_VERSION = "1.37.0";

/** Attribute names, current first, then older or AI SDK spellings. */
export const ATTR = {
  operation: ["gen_ai.operation.name"],
  requestModel: ["gen_ai.request.model", "ai.model.id"],
  responseModel: ["gen_ai.response.model", "ai.response.model"],
  provider: ["gen_ai.provider.name", "gen_ai.system", "ai.model.provider"],
  inputTokens: [
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.prompt_tokens",
    "ai.usage.inputTokens",
    "ai.usage.promptTokens",
  ],
  outputTokens: [
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.completion_tokens",
    "ai.usage.outputTokens",
    "ai.usage.completionTokens",
  ],
  finishReasons: ["gen_ai.response.finish_reasons", "ai.response.finishReason"],
  toolName: ["gen_ai.tool.name", "ai.toolCall.name"],
  toolCallId: ["gen_ai.tool.call.id", "ai.toolCall.id"],
  toolArguments: ["gen_ai.tool.call.arguments", "ai.toolCall.args", "ai.toolCall.input"],
  toolResult: ["gen_ai.tool.call.result", "ai.toolCall.result", "ai.toolCall.output"],
  agentId: ["gen_ai.agent.id"],
  agentName: ["gen_ai.agent.name", "ai.telemetry.functionId"],
  errorType: ["error.type"],
} as const;

/** The span attributes that link a turn to the store, by trace field. */
export const LINK_KEYS = {
  conversationId: "conversationId",
  messageId: "messageId",
  userId: "userId",
  agentId: "agentId",
} as const;
export type LinkField = keyof typeof LINK_KEYS;

/** `message_store.conversation_id`, … (written by apps on any span of the turn). */
export const LINK_ATTRIBUTE: Record<LinkField, string> = {
  conversationId: "message_store.conversation_id",
  messageId: "message_store.message_id",
  userId: "message_store.user_id",
  agentId: "message_store.agent_id",
};

/**
 * Prefixes under which the AI SDK records the app's keys: `experimental_telemetry.metadata`
 * (ai 5/6) and the runtime context (`@ai-sdk/otel` with `runtimeContext: true`, ai 7).
 */
export const AI_SDK_LINK_PREFIXES = ["ai.telemetry.metadata.", "ai.settings.context."] as const;

/** `gen_ai.operation.name` values (and AI SDK span names) by what the span is. */
export const LLM_OPERATIONS = new Set(["chat", "text_completion", "generate_content"]);
export const TOOL_OPERATION = "execute_tool";
export const AGENT_OPERATION = "invoke_agent";
/** ai 5/6 span names: a model call (`ai.generateText.doGenerate`, …) and a tool run. */
export const AI_SDK_LLM_SPAN = /^ai\.\w+\.do(Generate|Stream)$/;
export const AI_SDK_TOOL_SPAN = "ai.toolCall";

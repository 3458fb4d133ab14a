/**
 * OpenTelemetry for message-store: `MessageStoreSpanExporter` assembles the GenAI spans of a turn
 * (AI SDK, any `gen_ai.*` instrumentation) into one stored turn trace; `turnTraceToSpans` and
 * `sendOtlpSpans` send stored traces to an OTLP collector as GenAI spans.
 * @packageDocumentation
 */

export {
  AI_SDK_LINK_PREFIXES,
  GEN_AI_SEMCONV_VERSION,
  LINK_ATTRIBUTE,
  type LinkField,
} from "./gen-ai-attributes.js";
export { encodeOtlpJson } from "./otlp/otlp-json.js";
export { encodeOtlpProtobuf } from "./otlp/otlp-protobuf.js";
export type { OtlpResource } from "./otlp/otlp-resource.js";
export {
  OtlpExportError,
  type OtlpHttpOptions,
  otlpTracesUrl,
  sendOtlpSpans,
} from "./otlp/send-otlp-spans.js";
export { draftOfSpans, spanRole } from "./spans-in/draft-of-spans.js";
export {
  type ExportResult,
  MessageStoreSpanExporter,
  type MessageStoreSpanExporterOptions,
  type SpanExporterStats,
} from "./spans-in/message-store-span-exporter.js";
export type { Attributes, AttributeValue, HrTime, SpanLike } from "./spans-in/span-like.js";
export type { GenAiSpan, SpanAttributeValue } from "./spans-out/gen-ai-span.js";
export { turnTraceToSpans } from "./spans-out/turn-trace-to-spans.js";
export {
  TraceDroppedError,
  TraceWriter,
  type TraceWriterOptions,
  type TraceWriterStats,
} from "./trace-writer.js";
export {
  type DraftTrace,
  jsonValue,
  type ModelCallDraft,
  type ToolRunDraft,
  type TurnDraft,
  type TurnLink,
  traceOfDraft,
} from "./turn-draft.js";

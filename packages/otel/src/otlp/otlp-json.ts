import type { GenAiSpan, SpanAttributeValue } from "../spans-out/gen-ai-span.js";
import type { OtlpResource } from "./otlp-resource.js";

type JsonAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: JsonAnyValue[] } };

function anyValue(value: SpanAttributeValue): JsonAnyValue {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (Array.isArray(value))
    return { arrayValue: { values: value.map((v) => ({ stringValue: v })) } };
  return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
}

function keyValues(attributes: Record<string, SpanAttributeValue>) {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/**
 * An OTLP/JSON `ExportTraceServiceRequest` (ids as hex, 64-bit integers as decimal strings, as
 * the OTLP/HTTP JSON encoding specifies).
 */
export function encodeOtlpJson(spans: readonly GenAiSpan[], resource: OtlpResource): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues(resource.attributes) },
        scopeSpans: [
          {
            scope: { name: resource.scopeName, version: resource.scopeVersion },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId === undefined ? {} : { parentSpanId: s.parentSpanId }),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: String(s.startTimeUnixNano),
              endTimeUnixNano: String(s.endTimeUnixNano),
              attributes: keyValues(s.attributes),
              status: s.status,
            })),
          },
        ],
      },
    ],
  });
}

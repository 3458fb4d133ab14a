import type { SpanAttributeValue } from "../spans-out/gen-ai-span.js";

/** Who sends the spans: resource attributes (`service.name`, …) and the instrumentation scope. */
export interface OtlpResource {
  attributes: Record<string, SpanAttributeValue>;
  scopeName: string;
  scopeVersion: string;
}

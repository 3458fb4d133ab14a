/** An attribute value of an exported span. */
export type SpanAttributeValue = string | number | boolean | string[];

/** A span to send over OTLP: ids in hex, times in nanoseconds since the epoch. */
export interface GenAiSpan {
  traceId: string;
  spanId: string;
  /** The parent's span id, or `undefined` for the turn's root. */
  parentSpanId: string | undefined;
  name: string;
  /** OTLP `SpanKind`: 1 INTERNAL, 3 CLIENT. */
  kind: 1 | 3;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, SpanAttributeValue>;
  /** OTLP `StatusCode`: 0 UNSET, 2 ERROR. */
  status: { code: 0 | 2; message?: string };
}

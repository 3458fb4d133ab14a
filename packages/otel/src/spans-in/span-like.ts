/** An OpenTelemetry attribute value. */
export type AttributeValue =
  | string
  | number
  | boolean
  | ReadonlyArray<string | number | boolean | null | undefined>;

/** Span attributes: read defensively, a value may be anything an instrumentation put there. */
export type Attributes = Readonly<Record<string, unknown>>;

/** `[seconds, nanoseconds]` since the epoch, as the OpenTelemetry JS SDK keeps times. */
export type HrTime = readonly [number, number];

/**
 * The part of an OpenTelemetry JS SDK `ReadableSpan` the exporter reads. Structural, so spans
 * of SDK 1.x (`parentSpanId`) and 2.x (`parentSpanContext`) both fit.
 */
export interface SpanLike {
  readonly name: string;
  spanContext(): { traceId: string; spanId: string };
  readonly parentSpanContext?: { spanId: string } | undefined;
  readonly parentSpanId?: string | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  /** `code` 2 is ERROR. */
  readonly status?: { code: number; message?: string | undefined };
  readonly attributes: Attributes;
  readonly events?: ReadonlyArray<{ name: string; attributes?: Attributes | undefined }>;
}

/** Milliseconds since the epoch of an `HrTime`, or `NaN` when it is not one. */
export function hrTimeToMs(time: HrTime): number {
  return Array.isArray(time) ? time[0] * 1000 + time[1] / 1e6 : Number.NaN;
}

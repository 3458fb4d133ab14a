import type { GenAiSpan, SpanAttributeValue } from "../spans-out/gen-ai-span.js";
import type { OtlpResource } from "./otlp-resource.js";

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

/** A protobuf message under construction: fields appended in order, nested messages as bytes. */
class ProtoWriter {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  get length(): number {
    return this.#length;
  }

  #push(bytes: Uint8Array): void {
    this.#chunks.push(bytes);
    this.#length += bytes.length;
  }

  #varint(n: bigint): void {
    const out: number[] = [];
    let v = BigInt.asUintN(64, n);
    while (v > 0x7fn) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.#push(Uint8Array.from(out));
  }

  #tag(field: number, wire: number): void {
    this.#varint(BigInt((field << 3) | wire));
  }

  uint(field: number, n: number | bigint): this {
    this.#tag(field, VARINT);
    this.#varint(BigInt(n));
    return this;
  }

  bool(field: number, b: boolean): this {
    return this.uint(field, b ? 1 : 0);
  }

  fixed64(field: number, n: bigint): this {
    this.#tag(field, FIXED64);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, n), true);
    this.#push(b);
    return this;
  }

  double(field: number, n: number): this {
    this.#tag(field, FIXED64);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, n, true);
    this.#push(b);
    return this;
  }

  bytes(field: number, bytes: Uint8Array): this {
    this.#tag(field, BYTES);
    this.#varint(BigInt(bytes.length));
    this.#push(bytes);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, Buffer.from(s, "utf8"));
  }

  message(field: number, m: ProtoWriter): this {
    return this.bytes(field, m.finish());
  }

  finish(): Uint8Array {
    return Buffer.concat(this.#chunks, this.#length);
  }
}

// Field numbers of opentelemetry/proto/{common,resource,trace}/v1 and collector/trace/v1.
function anyValue(value: SpanAttributeValue | string): ProtoWriter {
  const w = new ProtoWriter();
  if (typeof value === "string") return w.string(1, value);
  if (typeof value === "boolean") return w.bool(2, value);
  if (Array.isArray(value)) {
    const list = new ProtoWriter();
    for (const v of value) list.message(1, anyValue(v));
    return w.message(5, list);
  }
  return Number.isSafeInteger(value) ? w.uint(3, BigInt(value)) : w.double(4, value);
}

function keyValue(key: string, value: SpanAttributeValue): ProtoWriter {
  return new ProtoWriter().string(1, key).message(2, anyValue(value));
}

function attributesInto(w: ProtoWriter, field: number, attrs: Record<string, SpanAttributeValue>) {
  for (const key in attrs) w.message(field, keyValue(key, attrs[key]!));
}

function span(s: GenAiSpan): ProtoWriter {
  const w = new ProtoWriter()
    .bytes(1, Buffer.from(s.traceId, "hex"))
    .bytes(2, Buffer.from(s.spanId, "hex"));
  if (s.parentSpanId !== undefined) w.bytes(4, Buffer.from(s.parentSpanId, "hex"));
  w.string(5, s.name).uint(6, s.kind).fixed64(7, s.startTimeUnixNano).fixed64(8, s.endTimeUnixNano);
  attributesInto(w, 9, s.attributes);
  const status = new ProtoWriter();
  if (s.status.message !== undefined) status.string(2, s.status.message);
  if (s.status.code !== 0) status.uint(3, s.status.code);
  return w.message(15, status);
}

/** An OTLP/protobuf `ExportTraceServiceRequest` (`application/x-protobuf`). */
export function encodeOtlpProtobuf(
  spans: readonly GenAiSpan[],
  resource: OtlpResource,
): Uint8Array {
  const res = new ProtoWriter();
  attributesInto(res, 1, resource.attributes);
  const scope = new ProtoWriter().string(1, resource.scopeName).string(2, resource.scopeVersion);
  const scopeSpans = new ProtoWriter().message(1, scope);
  for (const s of spans) scopeSpans.message(2, span(s));
  const resourceSpans = new ProtoWriter().message(1, res).message(2, scopeSpans);
  return new ProtoWriter().message(1, resourceSpans).finish();
}

import type { GenAiSpan, SpanAttributeValue } from "../spans-out/gen-ai-span.js";
import type { OtlpResource } from "./otlp-resource.js";

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

/**
 * A protobuf message under construction: fields written in order into one growing buffer; a
 * nested message is built in its own writer and copied in behind its length.
 */
class ProtoWriter {
  #buf = Buffer.allocUnsafe(256);
  #pos = 0;

  #reserve(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  /** A varint of a non-negative safe integer (lengths, tags, enums, counts). */
  #varint(n: number): void {
    this.#reserve(10);
    while (n > 0x7f) {
      this.#buf[this.#pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.#buf[this.#pos++] = n;
  }

  #tag(field: number, wire: number): void {
    this.#varint(field * 8 + wire);
  }

  /** An int64/uint64 field: two's complement for negatives, as protobuf encodes them. */
  int(field: number, n: number): this {
    this.#tag(field, VARINT);
    if (n >= 0) {
      this.#varint(n);
      return this;
    }
    let v = BigInt.asUintN(64, BigInt(n));
    this.#reserve(10);
    while (v > 0x7fn) {
      this.#buf[this.#pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.#buf[this.#pos++] = Number(v);
    return this;
  }

  bool(field: number, b: boolean): this {
    return this.int(field, b ? 1 : 0);
  }

  fixed64(field: number, n: bigint): this {
    this.#tag(field, FIXED64);
    this.#reserve(8);
    this.#buf.writeBigUInt64LE(BigInt.asUintN(64, n), this.#pos);
    this.#pos += 8;
    return this;
  }

  double(field: number, n: number): this {
    this.#tag(field, FIXED64);
    this.#reserve(8);
    this.#buf.writeDoubleLE(n, this.#pos);
    this.#pos += 8;
    return this;
  }

  hex(field: number, hex: string): this {
    this.#tag(field, BYTES);
    this.#varint(hex.length / 2);
    this.#reserve(hex.length / 2);
    this.#pos += this.#buf.write(hex, this.#pos, "hex");
    return this;
  }

  string(field: number, s: string): this {
    const length = Buffer.byteLength(s, "utf8");
    this.#tag(field, BYTES);
    this.#varint(length);
    this.#reserve(length);
    this.#pos += this.#buf.write(s, this.#pos, "utf8");
    return this;
  }

  message(field: number, m: ProtoWriter): this {
    this.#tag(field, BYTES);
    this.#varint(m.#pos);
    this.#reserve(m.#pos);
    m.#buf.copy(this.#buf, this.#pos, 0, m.#pos);
    this.#pos += m.#pos;
    return this;
  }

  finish(): Uint8Array {
    return this.#buf.subarray(0, this.#pos);
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
  return Number.isSafeInteger(value) ? w.int(3, value) : w.double(4, value);
}

function keyValue(key: string, value: SpanAttributeValue): ProtoWriter {
  return new ProtoWriter().string(1, key).message(2, anyValue(value));
}

function attributesInto(w: ProtoWriter, field: number, attrs: Record<string, SpanAttributeValue>) {
  for (const key in attrs) w.message(field, keyValue(key, attrs[key]!));
}

function span(s: GenAiSpan): ProtoWriter {
  const w = new ProtoWriter().hex(1, s.traceId).hex(2, s.spanId);
  if (s.parentSpanId !== undefined) w.hex(4, s.parentSpanId);
  w.string(5, s.name).int(6, s.kind).fixed64(7, s.startTimeUnixNano).fixed64(8, s.endTimeUnixNano);
  attributesInto(w, 9, s.attributes);
  const status = new ProtoWriter();
  if (s.status.message !== undefined) status.string(2, s.status.message);
  if (s.status.code !== 0) status.int(3, s.status.code);
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

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import protobuf from "protobufjs";
import type { SpanLike } from "../../src/index.js";

// The parts of opentelemetry/proto (collector/trace/v1, trace/v1, common/v1, resource/v1) a
// receiver reads, with their field numbers: decoded by protobufjs, independently of our encoder.
const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3;
    double double_value = 4; ArrayValue array_value = 5;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
`;
const Request = protobuf
  .parse(PROTO, { keepCase: false })
  .root.lookupType("ExportTraceServiceRequest");

/** A span as the receiver decoded it. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message: string };
}

export interface ReceivedRequest {
  contentType: string;
  headers: IncomingMessage["headers"];
  resource: Record<string, unknown>;
  spans: ReceivedSpan[];
}

type AnyValue = Record<string, unknown>;
function decodeAnyValue(v: AnyValue | undefined): unknown {
  if (!v) return undefined;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(String(v.intValue));
  if ("doubleValue" in v) return v.doubleValue;
  if ("arrayValue" in v) {
    return ((v.arrayValue as { values?: AnyValue[] }).values ?? []).map(decodeAnyValue);
  }
  return undefined;
}
function attributes(list: { key: string; value?: AnyValue }[] | undefined) {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeAnyValue(kv.value)]));
}
const hex = (b: unknown) =>
  typeof b === "string" ? b : b instanceof Uint8Array ? Buffer.from(b).toString("hex") : "";

function normalize(body: any): Omit<ReceivedRequest, "contentType" | "headers"> {
  const rs = body.resourceSpans?.[0];
  const spans = (rs?.scopeSpans ?? []).flatMap((ss: any) =>
    (ss.spans ?? []).map((s: any) => ({
      traceId: hex(s.traceId),
      spanId: hex(s.spanId),
      parentSpanId: hex(s.parentSpanId),
      name: s.name,
      kind: s.kind,
      startTimeUnixNano: BigInt(String(s.startTimeUnixNano)),
      endTimeUnixNano: BigInt(String(s.endTimeUnixNano)),
      attributes: attributes(s.attributes),
      status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
    })),
  );
  return { resource: attributes(rs?.resource?.attributes), spans };
}

/** An OTLP/HTTP traces receiver on a free port, decoding JSON and protobuf requests. */
export async function startOtlpReceiver(options: { failFirst?: number } = {}) {
  const requests: ReceivedRequest[] = [];
  let failures = options.failFirst ?? 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      if (failures > 0) {
        failures--;
        res.writeHead(503).end("busy");
        return;
      }
      const body = Buffer.concat(chunks);
      const contentType = req.headers["content-type"] ?? "";
      try {
        const decoded = contentType.includes("protobuf")
          ? Request.toObject(Request.decode(body), { longs: String, bytes: Buffer })
          : JSON.parse(body.toString("utf8"));
        requests.push({ contentType, headers: req.headers, ...normalize(decoded) });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch (error) {
        res.writeHead(400).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A received span as the OpenTelemetry SDK would hand it to an exporter. */
export function asSpanLike(s: ReceivedSpan): SpanLike {
  const hr = (ns: bigint) => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)] as const;
  return {
    name: s.name,
    spanContext: () => ({ traceId: s.traceId, spanId: s.spanId }),
    parentSpanId: s.parentSpanId || undefined,
    startTime: hr(s.startTimeUnixNano),
    endTime: hr(s.endTimeUnixNano),
    status: s.status,
    attributes: s.attributes as SpanLike["attributes"],
  };
}

import type { GenAiSpan } from "../spans-out/gen-ai-span.js";
import { encodeOtlpJson } from "./otlp-json.js";
import { encodeOtlpProtobuf } from "./otlp-protobuf.js";
import type { OtlpResource } from "./otlp-resource.js";

/** Where and how to send spans over OTLP/HTTP. */
export interface OtlpHttpOptions {
  /**
   * The collector: a base URL (`http://localhost:4318`, `/v1/traces` is appended) or the full
   * traces URL (ending in `/v1/traces`, used as is).
   */
  endpoint: string;
  /** `protobuf` (`application/x-protobuf`, the OTLP default) or `json`. Default `protobuf`. */
  protocol?: "json" | "protobuf";
  /** Extra request headers (an API key, …). Never shown in errors. */
  headers?: Record<string, string>;
  /** `service.name` of the resource. Default `message-store`. */
  serviceName?: string;
  /** Per request (ms). Default 10 000. */
  timeoutMs?: number;
  /** Retries of a request refused with 429, 502, 503 or 504, or that failed to connect. Default 3. */
  retries?: number;
}

/** A collector refused the spans, or could not be reached. */
export class OtlpExportError extends Error {
  override readonly name = "OtlpExportError";
  /** The HTTP status, when the collector answered. */
  readonly status: number | undefined;
  constructor(message: string, status?: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

const RETRIED = new Set([429, 502, 503, 504]);
const SCOPE_VERSION = "0.0.0";

/** The traces URL of an endpoint (see {@link OtlpHttpOptions.endpoint}); throws on a bad URL. */
export function otlpTracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new OtlpExportError(`not an OTLP endpoint URL: ${JSON.stringify(endpoint)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OtlpExportError(`an OTLP/HTTP endpoint is http: or https:, not ${url.protocol}`);
  }
  // Credentials in the URL never reach an error message.
  if (!url.pathname.endsWith("/v1/traces")) {
    url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`;
  }
  return url.toString();
}

function safeUrl(url: string): string {
  const u = new URL(url);
  u.search = "";
  return u.toString();
}

/**
 * Sends spans in one OTLP/HTTP request. Resolves when the collector accepted them (2xx); throws
 * an {@link OtlpExportError} when it refused them or could not be reached after the retries
 * (backing off 0.5 s, 1 s, 2 s …). The error names the URL without credentials or query, never the headers. Credentials in the
 * URL are sent as Basic authentication.
 */
export async function sendOtlpSpans(
  spans: readonly GenAiSpan[],
  options: OtlpHttpOptions,
): Promise<void> {
  const target = new URL(otlpTracesUrl(options.endpoint));
  // fetch refuses credentials in a URL: they become Basic authentication.
  const basic =
    target.username || target.password
      ? `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString("base64")}`
      : undefined;
  target.username = "";
  target.password = "";
  const url = target.toString();
  const resource: OtlpResource = {
    attributes: { "service.name": options.serviceName ?? "message-store" },
    scopeName: "@message-store/otel",
    scopeVersion: SCOPE_VERSION,
  };
  const json = options.protocol === "json";
  const body = json ? encodeOtlpJson(spans, resource) : encodeOtlpProtobuf(spans, resource);
  const headers: Record<string, string> = {
    ...(basic === undefined ? {} : { authorization: basic }),
    ...options.headers,
    "content-type": json ? "application/json" : "application/x-protobuf",
  };
  const retries = options.retries ?? 3;
  for (let attempt = 0; ; attempt++) {
    let failure: OtlpExportError;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      const text = await response.text().catch(() => "");
      if (response.ok) return;
      failure = new OtlpExportError(
        `the collector at ${safeUrl(url)} refused ${spans.length} spans: HTTP ${response.status}${text ? ` ${text.slice(0, 200)}` : ""}`,
        response.status,
      );
      if (!RETRIED.has(response.status)) throw failure;
    } catch (error) {
      if (error instanceof OtlpExportError && !RETRIED.has(error.status ?? 0)) throw error;
      failure =
        error instanceof OtlpExportError
          ? error
          : new OtlpExportError(`could not reach the collector at ${safeUrl(url)}`, undefined, {
              cause: error,
            });
    }
    if (attempt >= retries) throw failure;
    await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
  }
}

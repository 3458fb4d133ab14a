import type { MessageStore } from "@message-store/core";
import type { GenAiSpan } from "@message-store/otel";
import { type OtlpHttpOptions, sendOtlpSpans, turnTraceToSpans } from "@message-store/otel";
import { UsageError } from "../cli-errors.js";
import { formatCount } from "../format/numbers.js";
import { openStore } from "../open-store.js";
import { writeLine } from "../output.js";
import { describeStore, type StoreConfigObject } from "../store-spec.js";
import { tracePages } from "../walk.js";

/** `message-store export --otlp <endpoint>`. */
export interface OtlpExportOptions {
  endpoint: string;
  protocol: "json" | "protobuf";
  /** `Name: value` pairs given with `--header`. */
  headers: string[];
  /** Only traces at or after this time (epoch ms). */
  since?: number;
  /** Only this user's traces. */
  user?: string;
  /** Traces per OTLP request. */
  pageSize: number;
  /** Minimum time between two progress lines (ms). */
  progressIntervalMs?: number;
}

/** The `--header` values as a header map; a value without a colon is a usage error. */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    const name = colon > 0 ? value.slice(0, colon).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new UsageError(`--header expects "Name: value", got a header without a name`);
    }
    headers[name.toLowerCase()] = value.slice(colon + 1).trim();
  }
  return headers;
}

/**
 * Sends the store's turn traces (newest first, soft-deleted ones left out) to an OTLP/HTTP
 * collector as GenAI spans with their original times, one request per page, printing progress
 * lines to stderr. Sending the same traces again sends the same span ids.
 */
export async function exportOtlpCommand(
  config: StoreConfigObject,
  options: OtlpExportOptions,
  io: { stderr: NodeJS.WritableStream },
): Promise<void> {
  const http: OtlpHttpOptions = {
    endpoint: options.endpoint,
    protocol: options.protocol,
    headers: parseHeaders(options.headers),
  };
  const store: MessageStore = await openStore(config, { create: false });
  try {
    const started = Date.now();
    let last = started;
    let traces = 0;
    let spans = 0;
    const line = (final: boolean) => {
      const seconds = (Date.now() - started) / 1000;
      const rate = seconds > 0 ? Math.round(traces / seconds) : traces;
      return `${final ? "exported" : "export --otlp:"} ${formatCount(traces)} traces as ${formatCount(spans)} spans${final ? ` from ${describeStore(config)}` : ""} (${formatCount(rate)} traces/s)`;
    };
    const query = {
      includeDeleted: false,
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(options.user === undefined ? {} : { userId: options.user }),
    };
    // One request in flight while the next page is read and converted.
    let sending: Promise<void> | undefined;
    const sent = async () => {
      await sending;
      if (Date.now() - last >= (options.progressIntervalMs ?? 1000)) {
        last = Date.now();
        await writeLine(io.stderr, line(false));
      }
    };
    try {
      for await (const page of tracePages(store, query, options.pageSize)) {
        const batch: GenAiSpan[] = [];
        for (const trace of page) for (const span of turnTraceToSpans(trace)) batch.push(span);
        await sent();
        sending = sendOtlpSpans(batch, http).then(() => {
          traces += page.length;
          spans += batch.length;
        });
      }
      await sending;
    } catch (error) {
      // A failed page rejects once; the request still in flight is not left unobserved.
      await sending?.catch(() => {});
      throw error;
    }
    await writeLine(io.stderr, line(true));
  } finally {
    await store.close().catch(() => {});
  }
}

import type { Readable } from "node:stream";
import { compareIds } from "@message-store/core/adapter";

/** `format` of the header line of an export. */
export const EXPORT_FORMAT = "message-store-export";
/**
 * Version of the export format this CLI writes. Version 3 adds `checkpoint` lines (and their
 * count in the footer); version 2 records carry tenants, soft delete and the newer message
 * fields. Version 1 and 2 files are still read: no checkpoints, the missing fields taking their
 * defaults.
 */
export const EXPORT_VERSION = 3;
const READABLE_VERSIONS: readonly unknown[] = [1, 2, 3];

/** Counts of an export, written in its last line so that a truncated file is noticed. */
export interface ExportCounts {
  conversations: number;
  messages: number;
  turnTraces: number;
  /** Checkpoint lines (each with its channel values and pending writes). */
  checkpoints: number;
}

/** The record types an export counts, in footer order. */
export const COUNTED = ["conversations", "messages", "turnTraces", "checkpoints"] as const;

/** Counts at zero. */
export function noCounts(): ExportCounts {
  return { conversations: 0, messages: 0, turnTraces: 0, checkpoints: 0 };
}

/** One line of an export: `{"type": …, "data": {…}}` (`header` and `footer` carry no `data`). */
export type ExportRecord =
  | { type: "header"; format: string; version: number }
  | { type: "conversation"; data: Record<string, unknown> }
  | { type: "message"; data: Record<string, unknown> }
  | { type: "turnTrace"; data: Record<string, unknown> }
  | { type: "checkpoint"; data: Record<string, unknown> }
  | ({ type: "footer" } & ExportCounts);

/**
 * JSON text with object keys sorted by code point, at every depth. Adapters may hand back keys
 * in another order (PostgreSQL `jsonb` sorts them its own way); sorting makes two exports of
 * the same data byte-identical whichever store they came from.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => compareIds(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** The header line (without newline). */
export function headerLine(): string {
  return `{"type":"header","format":"${EXPORT_FORMAT}","version":${EXPORT_VERSION}}`;
}

/** A data line (without newline): the envelope keys first, then the canonical record. */
export function dataLine(
  type: "conversation" | "message" | "turnTrace" | "checkpoint",
  data: object,
): string {
  return `{"type":"${type}","data":${canonicalJson(data)}}`;
}

/** The footer line (without newline). */
export function footerLine(counts: ExportCounts): string {
  return `{"type":"footer",${COUNTED.map((k) => `"${k}":${counts[k]}`).join(",")}}`;
}

/** A line of an NDJSON file that is not a valid export record. */
export class NdjsonError extends Error {
  override name = "NdjsonError";
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Parses one line into an {@link ExportRecord}; throws {@link NdjsonError}. */
export function parseRecord(text: string, line: number): ExportRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new NdjsonError(line, `not JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new NdjsonError(line, "expected a JSON object");
  switch (value.type) {
    case "header":
      if (value.format !== EXPORT_FORMAT) {
        throw new NdjsonError(
          line,
          `not a ${EXPORT_FORMAT} file (format ${JSON.stringify(value.format)})`,
        );
      }
      if (!READABLE_VERSIONS.includes(value.version)) {
        throw new NdjsonError(
          line,
          `unsupported export version ${JSON.stringify(value.version)} (this CLI reads ${READABLE_VERSIONS.join(" and ")})`,
        );
      }
      return { type: "header", format: EXPORT_FORMAT, version: EXPORT_VERSION };
    case "conversation":
    case "message":
    case "turnTrace":
    case "checkpoint":
      if (!isObject(value.data))
        throw new NdjsonError(line, `"${value.type}" line without a "data" object`);
      return { type: value.type, data: value.data };
    case "footer": {
      // Files written before checkpoints were exported have no count of them (and none).
      const counts: Record<string, unknown> = { ...value, checkpoints: value.checkpoints ?? 0 };
      if (!COUNTED.every((k) => Number.isSafeInteger(counts[k]) && (counts[k] as number) >= 0)) {
        throw new NdjsonError(
          line,
          "footer needs integer conversations, messages and turnTraces (and checkpoints)",
        );
      }
      const footer = noCounts();
      for (const k of COUNTED) footer[k] = counts[k] as number;
      return { type: "footer", ...footer };
    }
    default:
      throw new NdjsonError(line, `unknown record type ${JSON.stringify(value.type)}`);
  }
}

/**
 * The lines of a stream, split on `\n` only (a trailing `\r` is dropped), decoded as UTF-8,
 * with their 1-based numbers. Blank lines are skipped.
 */
export async function* readLines(input: Readable): AsyncGenerator<{ line: number; text: string }> {
  let pending: Buffer[] = [];
  let line = 0;
  const emit = (buffer: Buffer) => {
    line++;
    let text = buffer.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    return text;
  };
  for await (const chunk of input) {
    let buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    let newline = buffer.indexOf(0x0a);
    while (newline !== -1) {
      pending.push(buffer.subarray(0, newline));
      const text = emit(Buffer.concat(pending));
      pending = [];
      if (text.trim() !== "") yield { line, text };
      buffer = buffer.subarray(newline + 1);
      newline = buffer.indexOf(0x0a);
    }
    if (buffer.length > 0) pending.push(buffer);
  }
  if (pending.length > 0) {
    const text = emit(Buffer.concat(pending));
    if (text.trim() !== "") yield { line, text };
  }
}

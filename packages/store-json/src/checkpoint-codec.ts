import { isUtf8 } from "node:buffer";
import {
  type ChannelValue,
  ChannelValueSchema,
  CheckpointInputSchema,
  type CheckpointRecord,
  CheckpointWritesInputSchema,
  type CheckpointWritesRecord,
  IdSchema,
  type SerializedValue,
  TextSchema,
} from "@message-store/core";
import type { CheckpointEntry } from "@message-store/core/memory";
import { corruptData, parseStored } from "./record-schemas.js";

/*
 * Checkpoint records in the journal and the main file. Their serialized values are bytes, which
 * JSON cannot hold: a value whose bytes are UTF-8 (LangGraph's "json" values) is written as that
 * text, so the file stays readable, and any other one in base64.
 */

/** A serialized value as the files hold it. */
export type FileValue = { type: string; text: string } | { type: string; base64: string };

export function fileValue(v: SerializedValue): FileValue {
  const bytes = Buffer.from(v.data.buffer, v.data.byteOffset, v.data.byteLength);
  return isUtf8(bytes)
    ? { type: v.type, text: bytes.toString("utf8") }
    : { type: v.type, base64: bytes.toString("base64") };
}

/** A file's value back as bytes; anything else is left for the model's check to name. */
function bytesOf(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const { type, text, base64, ...rest } = raw as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || (text === undefined) === (base64 === undefined)) return raw;
  if (typeof text === "string") return { type, data: new Uint8Array(Buffer.from(text, "utf8")) };
  if (typeof base64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) return raw;
  return { type, data: new Uint8Array(Buffer.from(base64, "base64")) };
}

const withValue = <T extends { value: SerializedValue }>(r: T) => ({
  ...r,
  value: fileValue(r.value),
});

/** A checkpoint record (or a stored entry, without values) as JSON. */
export function fileCheckpoint(c: CheckpointRecord | CheckpointEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c, checkpoint: fileValue(c.checkpoint) };
  if ("values" in c) out.values = c.values.map(withValue);
  return out;
}

export function fileWrites(w: CheckpointWritesRecord): Record<string, unknown> {
  return { ...w, writes: w.writes.map(withValue) };
}

function asObject(raw: unknown, what: string, location: string): Record<string, unknown> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw corruptData(`${what} must be an object`, location);
  return raw as Record<string, unknown>;
}

export function checkpointOf(raw: unknown, what: string, location: string): CheckpointRecord {
  const c = asObject(raw, what, location);
  const values = Array.isArray(c.values)
    ? c.values.map((v) => (typeof v === "object" && v ? { ...v, value: bytesOf(v.value) } : v))
    : c.values;
  const decoded = { ...c, checkpoint: bytesOf(c.checkpoint), values };
  return parseStored(CheckpointInputSchema, decoded, what, location);
}

export function writesOf(raw: unknown, what: string, location: string): CheckpointWritesRecord {
  const w = asObject(raw, what, location);
  const writes = Array.isArray(w.writes)
    ? w.writes.map((x) => (typeof x === "object" && x ? { ...x, value: bytesOf(x.value) } : x))
    : w.writes;
  return parseStored(CheckpointWritesInputSchema, { ...w, writes }, what, location);
}

const ChannelValueRowSchema = ChannelValueSchema.extend({
  conversationId: IdSchema,
  namespace: TextSchema.max(1024),
});

/** A main file's channel value row: `{ conversationId, namespace, channel, version, value }`. */
export function channelValueRowOf(
  raw: unknown,
  what: string,
  location: string,
): { conversationId: string; namespace: string; value: ChannelValue } {
  const row = asObject(raw, what, location);
  const { conversationId, namespace, ...value } = parseStored(
    ChannelValueRowSchema,
    { ...row, value: bytesOf(row.value) },
    what,
    location,
  );
  return { conversationId, namespace, value };
}

/** A main file's checkpoint row: a checkpoint without values. */
export function checkpointRowOf(raw: unknown, what: string, location: string): CheckpointRecord {
  const c = asObject(raw, what, location);
  if ("values" in c) throw corruptData(`${what} must not hold values`, location);
  return checkpointOf(c, what, location);
}

/** A main file's pending write row: the writes of one task, one write. */
export function writeRowOf(raw: unknown, what: string, location: string): CheckpointWritesRecord {
  const { channel, idx, value, ...rest } = asObject(raw, what, location);
  return writesOf({ ...rest, writes: [{ channel, idx, value }] }, what, location);
}

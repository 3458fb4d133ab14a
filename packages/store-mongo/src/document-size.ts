import { ValidationError } from "@message-store/core";
import { BSON } from "mongodb";

const MIB = 1024 * 1024;

function mib(bytes: number): string {
  return `${(bytes / MIB).toFixed(1).replace(/\.0$/, "")} MiB`;
}

/**
 * Refuses, before any I/O, a record whose document would exceed the server's document size limit
 * (`maxBsonObjectSize`, 16 MiB on MongoDB). Without this the driver fails while serialising with
 * a `RangeError` (or the server refuses the write) after the store already reserved sequence
 * numbers. `fields` is the document's body as written, `extra` the fields the store adds (its
 * `_id` and bookkeeping, at their largest encoding); the size is exact:
 * BSON size = 4 (length) + elements + 1 (terminator), so two bodies merge as a + b − 5.
 */
function assertDocumentFits(what: string, fields: object, extra: object, limit: number): void {
  const bytes = BSON.calculateObjectSize(fields) + BSON.calculateObjectSize(extra) - 5;
  if (bytes <= limit) return;
  throw new ValidationError(
    `${what} is ${mib(bytes)} as a MongoDB document; MongoDB documents are limited to ${mib(limit)}. Nothing was stored`,
    [{ path: [], message: `document of ${bytes} bytes exceeds ${limit}`, code: "too_big" }],
  );
}

/** A number at its largest BSON encoding (a double), for the store's own numeric fields. */
const LARGEST_NUMBER = 0.5;

/** A conversation's document: `fields` (see `conversationFields`) plus `_id` and the activity counters. */
export function assertConversationFits(id: string, fields: object, limit: number): void {
  const extra = {
    _id: id,
    lastMessageAt: LARGEST_NUMBER,
    lastActivityAt: LARGEST_NUMBER,
    lastSequence: LARGEST_NUMBER,
  };
  assertDocumentFits(`conversation ${JSON.stringify(id)}`, fields, extra, limit);
}

/** A message's document: `fields` (see `messageFields`) plus `_id`, `conversationId` and `sequence`. */
export function assertMessageFits(
  m: { id: string; conversationId: string },
  fields: object,
  limit: number,
): void {
  const extra = { _id: m.id, conversationId: m.conversationId, sequence: LARGEST_NUMBER };
  assertDocumentFits(`message ${JSON.stringify(m.id)}`, fields, extra, limit);
}

/** A trace's document: `fields` (see `traceFields`) plus `_id`. */
export function assertTraceFits(id: string, fields: object, limit: number): void {
  assertDocumentFits(`turn trace ${JSON.stringify(id)}`, fields, { _id: id }, limit);
}

import { z } from "zod";
import { MAX_BATCH } from "../canonical/input-fast-paths.js";
import { type JsonObject, JsonObjectSchema } from "./json.js";
import { IdSchema, TextSchema } from "./primitives.js";
import { PageOptionsSchema } from "./queries.js";
import { SessionOptionsSchema, SessionTurnSchema } from "./session.js";
import { TurnTraceSchema } from "./turn-trace.js";

/*
 * Checkpoints (capability `checkpoints`): the state of an agent graph after each step, kept the
 * way LangGraph's savers keep it, in the conversation whose id is the graph's thread id. The
 * store never looks inside a checkpoint or a channel value: the caller serializes them (LangGraph:
 * its saver's `serde`) and reads them back as bytes with the serializer's type tag.
 */

/**
 * Bytes as a serializer wrote them, with the serializer's type tag (LangGraph: `"json"`,
 * `"bytes"`). The bytes are copied on input (a `Buffer` becomes a plain `Uint8Array`), so the
 * store never holds the caller's array.
 */
export const SerializedValueSchema = z.strictObject({
  type: TextSchema.min(1).max(64),
  data: z
    .custom<Uint8Array>((v) => v instanceof Uint8Array, { error: "expected a Uint8Array" })
    .transform((d): Uint8Array => new Uint8Array(d)),
});
export interface SerializedValue {
  type: string;
  data: Uint8Array;
}

/** A checkpoint namespace: `""` is the graph's own, a subgraph's is its path (LangGraph's `checkpoint_ns`). */
export const NamespaceSchema = TextSchema.max(1024);

/** A channel name, 1–256 characters (`__proto__` is no channel: it cannot be a record key everywhere). */
export const ChannelSchema = TextSchema.min(1)
  .max(256)
  .refine((s) => s !== "__proto__", "__proto__ is not a channel name");

/** A channel version as text (LangGraph's versions are numbers or strings). */
export const ChannelVersionSchema = TextSchema.min(1).max(256);

/** A channel's value at one version. */
export const ChannelValueSchema = z.strictObject({
  channel: ChannelSchema,
  version: ChannelVersionSchema,
  value: SerializedValueSchema,
});
export type ChannelValue = z.output<typeof ChannelValueSchema>;

/**
 * What `putCheckpoint` stores. `values` holds the channel values this checkpoint changed (the
 * ones of LangGraph's `newVersions`); the others are read from the checkpoints before it, by the
 * version `channelVersions` names. A value is stored once per conversation, namespace, channel
 * and version: one already stored is kept.
 */
export const CheckpointInputSchema = z
  .strictObject({
    /** The thread: a conversation, created by the put when it is missing. */
    conversationId: IdSchema,
    namespace: NamespaceSchema.default(""),
    /** Checkpoint ids sort by creation (LangGraph's are UUID v6): the greatest is the latest. */
    id: IdSchema,
    parentId: IdSchema.nullable().default(null),
    /** The checkpoint without its channel values, serialized. */
    checkpoint: SerializedValueSchema,
    /** Channel → version of every channel the checkpoint has a value for. */
    channelVersions: z.record(ChannelSchema, ChannelVersionSchema).default({}),
    /** Plain JSON, matched by `listCheckpoints`' `metadata` filter. */
    metadata: JsonObjectSchema.default({}),
    values: z.array(ChannelValueSchema).max(MAX_BATCH).default([]),
  })
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    for (const [i, v] of c.values.entries()) {
      const key = JSON.stringify([v.channel, v.version]);
      if (seen.has(key))
        ctx.addIssue({ code: "custom", path: ["values", i], message: "channel version twice" });
      seen.add(key);
    }
  });
export type CheckpointInput = z.input<typeof CheckpointInputSchema>;
/** A validated checkpoint, as drivers store it. */
export type CheckpointRecord = z.output<typeof CheckpointInputSchema>;

/**
 * Options of `putCheckpoint`: who owns the thread (used when the put creates the conversation,
 * as `storeSessionMessages` does), and what the put adds to the transcript in the same atomic
 * write: `messages` (turns stored as `storeSessionMessages` stores them) and `traces`.
 */
export const CheckpointPutOptionsSchema = SessionOptionsSchema.extend({
  messages: z.array(SessionTurnSchema).max(MAX_BATCH).default([]),
  traces: z.array(TurnTraceSchema).max(MAX_BATCH).default([]),
});
export type CheckpointPutOptions = z.input<typeof CheckpointPutOptionsSchema>;

/** One pending write of a task: a value for a channel, at the write's index in the task. */
export const CheckpointWriteSchema = z.strictObject({
  channel: ChannelSchema,
  /** Negative for LangGraph's special channels (errors, interrupts, …): such a write replaces a stored one. */
  idx: z
    .number()
    .int()
    .min(-(2 ** 31))
    .max(2 ** 31 - 1),
  value: SerializedValueSchema,
});

/** What `putCheckpointWrites` stores: the writes one task made against one checkpoint. */
export const CheckpointWritesInputSchema = z
  .strictObject({
    conversationId: IdSchema,
    namespace: NamespaceSchema.default(""),
    checkpointId: IdSchema,
    taskId: TextSchema.min(1).max(256),
    /** LangGraph's task path; writes are read back in `(taskPath, taskId, idx)` order. */
    taskPath: TextSchema.max(1024).default(""),
    writes: z.array(CheckpointWriteSchema).min(1).max(MAX_BATCH),
  })
  .superRefine((w, ctx) => {
    const seen = new Set<number>();
    for (const [i, write] of w.writes.entries()) {
      if (seen.has(write.idx))
        ctx.addIssue({ code: "custom", path: ["writes", i, "idx"], message: "idx twice" });
      seen.add(write.idx);
    }
  });
export type CheckpointWritesInput = z.input<typeof CheckpointWritesInputSchema>;
/** Validated writes, as drivers store them. */
export type CheckpointWritesRecord = z.output<typeof CheckpointWritesInputSchema>;

/** A stored pending write. */
export interface CheckpointWrite {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  value: SerializedValue;
}

/** A checkpoint as read back: with its channel values and its pending writes. */
export interface StoredCheckpoint {
  conversationId: string;
  namespace: string;
  id: string;
  parentId: string | null;
  checkpoint: SerializedValue;
  channelVersions: Record<string, string>;
  metadata: JsonObject;
  /**
   * For each channel of `channelVersions`, the value stored at that version, when there is one,
   * by channel in code-point order.
   */
  values: ChannelValue[];
  /** Writes stored against this checkpoint, in `(taskPath, taskId, idx)` order (code points; `idx` as numbers). */
  writes: CheckpointWrite[];
}

/** Options of `getCheckpoint`: the namespace (default `""`), and a checkpoint id (default: the latest). */
export const CheckpointReadOptionsSchema = z.strictObject({
  namespace: NamespaceSchema.default(""),
  id: IdSchema.optional(),
});
export type CheckpointReadOptions = z.input<typeof CheckpointReadOptionsSchema>;

/** Options of `listCheckpoints`; every given filter must match. */
export const CheckpointQuerySchema = PageOptionsSchema.extend({
  conversationId: IdSchema.optional(),
  namespace: NamespaceSchema.optional(),
  /** Only checkpoints whose id is smaller (code points). */
  before: IdSchema.optional(),
  /** Each key's value equals the metadata's value at that key (JSON equality; `{}` matches all). */
  metadata: JsonObjectSchema.optional(),
  /** Only this user's threads. */
  userId: IdSchema.optional(),
  /** Only this tenant's threads. */
  tenantId: IdSchema.optional(),
});
export type CheckpointQueryInput = z.input<typeof CheckpointQuerySchema>;
/** The validated filter handed to drivers (without paging keys and owners, which travel as the scope). */
export type CheckpointFilter = Omit<
  z.output<typeof CheckpointQuerySchema>,
  "limit" | "cursor" | "userId" | "tenantId"
>;

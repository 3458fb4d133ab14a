import type { StoredCheckpoint } from "@message-store/core";
import { matchesMetadata, type RequestOf } from "@message-store/core/adapter";
import type { Document } from "mongodb";
import {
  type CheckpointDoc,
  type CheckpointValueDoc,
  type CheckpointWriteDoc,
  toStoredCheckpoint,
} from "./checkpoint-docs.js";
import { COLLECTIONS, type MongoContext } from "./collections.js";
import { idKey } from "./id-key.js";
import { inScope } from "./queries.js";

/*
 * Checkpoint reads: one aggregation each, which finds the checkpoints by their own fields (the
 * thread's owners are on them), joins the conversation incarnation each was written for (by
 * `$lookup` on `incarnation`, unique per conversation document), drops those whose incarnation is
 * gone or soft-deleted, and joins each one's channel values and pending writes. A checkpoint left
 * by a put that raced its conversation's delete thus never shows under a later conversation with
 * that id.
 */

const ORDER = { idKey: -1, conversationKey: -1, namespaceKey: -1 } as const;

type Joined = CheckpointDoc & { values: CheckpointValueDoc[]; writes: CheckpointWriteDoc[] };

/** The pipeline of the checkpoints matching `match`, newest first, at most `take`. */
function pipeline(match: Document, take: number | null): Document[] {
  return [
    { $match: { ...match, incarnation: { $type: "string" } } },
    { $sort: ORDER },
    {
      $lookup: {
        from: COLLECTIONS.conversations,
        localField: "incarnation",
        foreignField: "incarnation",
        as: "thread",
      },
    },
    { $match: { thread: { $elemMatch: { deletedAt: null } } } },
    ...(take === null ? [] : [{ $limit: take }]),
    {
      $lookup: {
        from: COLLECTIONS.checkpointValues,
        localField: "valueIds",
        foreignField: "_id",
        as: "values",
      },
    },
    {
      $lookup: {
        from: COLLECTIONS.checkpointWrites,
        localField: "_id",
        foreignField: "checkpoint",
        as: "writes",
      },
    },
    { $project: { thread: 0 } },
  ];
}

async function run(ctx: MongoContext, match: Document, take: number | null) {
  const docs = await ctx.checkpoints.aggregate<Joined>(pipeline(match, take)).toArray();
  return docs.map(toStoredCheckpoint);
}

export async function readCheckpoint(
  ctx: MongoContext,
  { conversationId, namespace, id, scope }: RequestOf<"getCheckpoint">,
): Promise<StoredCheckpoint | null> {
  const match: Document = {
    conversationId,
    namespaceKey: idKey(namespace),
    ...(id === null ? {} : { idKey: idKey(id) }),
    ...inScope(scope),
  };
  const [found] = await run(ctx, match, 1);
  return found ?? null;
}

/**
 * A page of checkpoints. A metadata filter is applied here, exactly as core's `matchesMetadata`
 * (the server's equality on documents depends on key order and matches array elements), walking
 * pages of candidates until `take` match.
 */
export async function listCheckpoints(
  ctx: MongoContext,
  { scope, filter, page }: RequestOf<"listCheckpoints">,
): Promise<StoredCheckpoint[]> {
  const base: Document = { ...inScope(scope) };
  if (filter.conversationId !== undefined) base.conversationId = filter.conversationId;
  if (filter.namespace !== undefined) base.namespaceKey = idKey(filter.namespace);
  if (filter.before !== undefined) base.idKey = { $lt: idKey(filter.before) };
  const out: StoredCheckpoint[] = [];
  let after = page.after;
  const batch = page.take === null ? null : Math.max(page.take, 100);
  for (;;) {
    const match = after === null ? base : { $and: [base, afterKey(after)] };
    const rows = await run(ctx, match, filter.metadata ? batch : page.take);
    for (const row of rows) {
      if (filter.metadata && !matchesMetadata(row.metadata, filter.metadata)) continue;
      out.push(row);
      if (page.take !== null && out.length === page.take) return out;
    }
    if (!filter.metadata || batch === null || rows.length < batch) return out;
    after = rows[rows.length - 1]!;
  }
}

/** Checkpoints after `k` in the list order. */
function afterKey(k: { id: string; conversationId: string; namespace: string }): Document {
  const [i, c, n] = [idKey(k.id), idKey(k.conversationId), idKey(k.namespace)];
  return {
    $or: [
      { idKey: { $lt: i } },
      { idKey: i, conversationKey: { $lt: c } },
      { idKey: i, conversationKey: c, namespaceKey: { $lt: n } },
    ],
  };
}

import type { RequestOf } from "@message-store/core/adapter";
import type { ClientSession } from "mongodb";
import { atomically, type MongoContext } from "./collections.js";
import { inScope } from "./queries.js";

/** Deletes the thread's checkpoint documents, when the conversation is in the scope. */
export function deleteCheckpoints(
  ctx: MongoContext,
  { id, scope }: RequestOf<"deleteCheckpoints">,
): Promise<boolean> {
  return atomically(ctx, async (session) => {
    const o = session ? { session } : {};
    const found = await ctx.conversations.findOne(
      { _id: id, ...inScope(scope) },
      { ...o, projection: { _id: 1 } },
    );
    if (!found) return false;
    await deleteThreadCheckpoints(ctx, { conversationId: id }, o);
    return true;
  });
}

/**
 * Deletes the checkpoint documents matching `where` (threads, and their owners or incarnation:
 * every checkpoint document carries them): the checkpoints first, so a reader never sees one
 * without its values when the deletes commit one by one.
 */
export async function deleteThreadCheckpoints(
  ctx: MongoContext,
  where: {
    conversationId: string | { $in: string[] };
    userId?: string;
    tenantId?: string;
    /** `{ $exists: false }` for documents written before conversations had incarnations. */
    incarnation?: string | { $exists: false };
  },
  o: { session?: ClientSession },
): Promise<void> {
  await ctx.checkpoints.deleteMany(where, o);
  await ctx.checkpointValues.deleteMany(where, o);
  await ctx.checkpointWrites.deleteMany(where, o);
}

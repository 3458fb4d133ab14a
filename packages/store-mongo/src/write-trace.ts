import { IntegrityError, type TurnTrace } from "@message-store/core";
import type { MongoContext } from "./collections.js";
import { assertTraceFits } from "./document-size.js";
import { traceFields } from "./documents.js";
import { isDuplicateKey } from "./errors.js";

const q = JSON.stringify;

/**
 * Upserts a trace and resolves to it as stored. One read of its message checks that it exists in
 * the trace's conversation and gives the owner (a message carries its conversation's `userId` and
 * `tenantId`): the trace's are filled from it or must equal it, and a live trace may not go onto
 * a soft-deleted message. The write is a replace filtered on `{ _id, messageId, deletedAt }`: a
 * trace id of another message (which may be another user's) or an upsert changing `deletedAt`
 * makes it insert a duplicate `_id`, and the unique index on `messageId` refuses a second trace
 * for one message; each is an `IntegrityError`, nothing stored.
 */
export async function writeTrace(ctx: MongoContext, input: TurnTrace): Promise<TurnTrace> {
  // Checked before any I/O; filling the owner below adds a few bytes at most.
  assertTraceFits(input.id, traceFields(input), ctx.maxDocumentBytes);
  const message = await ctx.messages.findOne(
    { _id: input.messageId },
    { projection: { conversationId: 1, userId: 1, tenantId: 1, deletedAt: 1 } },
  );
  if (!message) {
    throw new IntegrityError(`message ${q(input.messageId)} does not exist`);
  }
  if (message.conversationId !== input.conversationId) {
    throw new IntegrityError(
      `message ${q(input.messageId)} belongs to conversation ${q(message.conversationId)}, not ${q(input.conversationId)}`,
    );
  }
  const owner = { userId: message.userId, tenantId: message.tenantId ?? null };
  if (
    (input.userId !== null && input.userId !== owner.userId) ||
    (input.tenantId !== null && input.tenantId !== owner.tenantId)
  ) {
    throw new IntegrityError(
      `turn trace ${q(input.id)}: its userId and tenantId must be those of conversation ${q(input.conversationId)}`,
    );
  }
  if ((message.deletedAt ?? null) !== null && input.deletedAt === null) {
    throw new IntegrityError(
      `turn trace ${q(input.id)}: message ${q(input.messageId)} is soft-deleted; restore it first`,
    );
  }
  const trace = { ...input, userId: input.userId ?? owner.userId, tenantId: owner.tenantId };
  const doc = traceFields(trace);
  const filter = { _id: trace.id, messageId: trace.messageId, deletedAt: trace.deletedAt };
  const write = () => ctx.traces.replaceOne(filter, doc, { upsert: true });
  try {
    await write().catch((error: unknown) => {
      // A concurrent upsert of the same new trace id loses its insert; the retry updates.
      if (isDuplicateKey(error)) return write();
      throw error;
    });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw new IntegrityError(
      `turn trace ${q(trace.id)} cannot be stored: message ${q(trace.messageId)} already has another trace, or the trace id belongs to another message, or the upsert would change its deletedAt`,
      { cause: error },
    );
  }
  return trace;
}

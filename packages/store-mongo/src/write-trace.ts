import { IntegrityError, type TurnTrace } from "@message-store/core";
import type { MongoContext } from "./collections.js";
import { assertTraceFits } from "./document-size.js";
import { traceFields } from "./documents.js";
import { isDuplicateKey } from "./errors.js";

/**
 * Upserts a trace after checking that its message exists in the trace's conversation (one read);
 * the unique index on `messageId` turns a second trace for one message into an `IntegrityError`.
 */
export async function writeTrace(ctx: MongoContext, trace: TurnTrace): Promise<void> {
  const doc = traceFields(trace);
  assertTraceFits(trace.id, doc, ctx.maxDocumentBytes);
  const message = await ctx.messages.findOne(
    { _id: trace.messageId },
    { projection: { _id: 1, conversationId: 1 } },
  );
  if (!message) {
    throw new IntegrityError(`message ${JSON.stringify(trace.messageId)} does not exist`);
  }
  if (message.conversationId !== trace.conversationId) {
    throw new IntegrityError(
      `message ${JSON.stringify(trace.messageId)} belongs to conversation ${JSON.stringify(message.conversationId)}, not ${JSON.stringify(trace.conversationId)}`,
    );
  }
  const write = () => ctx.traces.replaceOne({ _id: trace.id }, doc, { upsert: true });
  try {
    await write().catch((error: unknown) => {
      // A concurrent upsert of the same new trace id loses its insert; the retry updates.
      if (isDuplicateKey(error)) return write();
      throw error;
    });
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw new IntegrityError(
      `message ${JSON.stringify(trace.messageId)} already has a trace (one trace per message)`,
      { cause: error },
    );
  }
}

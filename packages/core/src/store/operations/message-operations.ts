import { z } from "zod";
import {
  fastBatch,
  fastContextSize,
  fastMessage,
  fastNoOptions,
  MAX_BATCH,
  MAX_CONTEXT,
} from "../../canonical/input-fast-paths.js";
import { compressMessages } from "../../context/compress-messages.js";
import { type Message, MessageSchema } from "../../models/message.js";
import { ContextOptionsSchema, MessageListOptionsSchema } from "../../models/queries.js";
import { cursors, type MessageKey } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import { rejectDuplicateIds } from "../../validation.js";
import type { MessagesApi } from "../contract/messages.js";
import type { SequencedMessage } from "../contract/requests.js";
import { notFound } from "../owner-refusal.js";
import { type Implementation, take } from "../store-context.js";

const MessageBatchSchema = z.array(MessageSchema).max(MAX_BATCH);
const ContextSizeSchema = z.number().int().min(0).max(MAX_CONTEXT);

/** A transcript row's position, as its cursor and the next page's start. */
export const messageKey = (r: SequencedMessage): MessageKey => ({
  timestamp: r.message.timestamp,
  sequence: r.sequence,
});

const messageOf = (r: SequencedMessage): Message => r.message;

/** How the store carries out each method of the family (see `MessagesApi`). */
export const MESSAGE_METHODS = {
  async storeMessage(ctx, message) {
    const parsed = ctx.parse(MessageSchema, message, "message", fastMessage);
    const [stored] = await ctx.call("storeMessages", { messages: ctx.records([parsed]) });
    return stored!;
  },

  async storeMessages(ctx, messages) {
    const parsed = ctx.parse(MessageBatchSchema, messages, "messages", fastBatch);
    rejectDuplicateIds(parsed, "messages", ctx.name);
    const records = ctx.records(parsed);
    return records.length === 0 ? [] : ctx.call("storeMessages", { messages: records });
  },

  async getMessage(ctx, id, options) {
    return ctx.call("getMessage", ctx.readById(id, "message id", options));
  },

  async flagMessage(ctx, id, flagged = true) {
    const key = ctx.id(id, "message id");
    const value = ctx.parse(z.boolean(), flagged, "flagged");
    const updated = await ctx.call("flagMessage", { id: key, flagged: value });
    if (updated === null) throw notFound("message", key, ctx.name);
    return updated;
  },

  async deleteMessage(ctx, id) {
    return ctx.call("deleteMessage", { id: ctx.id(id, "message id") });
  },

  async getMessagesByConversationId(ctx, conversationId, options = {}) {
    const key = ctx.id(conversationId, "conversation id");
    const { limit, cursor, includeDeleted } = ctx.parse(
      MessageListOptionsSchema,
      options,
      "page options",
    );
    const after = decodeCursor(cursor, cursors.message.decode, ctx.name);
    const page = { after, take: take(limit) };
    const rows = await ctx.call("getMessagesByConversationId", {
      conversationId: key,
      includeDeleted,
      page,
    });
    return toPage(rows, limit ?? null, messageOf, (r) => cursors.message.encode(messageKey(r)));
  },

  async getImmediateContext(ctx, conversationId, n, options = {}) {
    const key = ctx.id(conversationId, "conversation id");
    const count = ctx.parse(ContextSizeSchema, n, "n", fastContextSize);
    const { compress } = ctx.parse(ContextOptionsSchema, options, "context", fastNoOptions);
    if (count === 0) return [];
    const messages = await ctx.call("getImmediateContext", { conversationId: key, n: count });
    return compress ? compressMessages(messages, compress) : messages;
  },
} satisfies Implementation<MessagesApi>;

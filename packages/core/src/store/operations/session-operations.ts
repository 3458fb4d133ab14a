import { compressMessages } from "../../context/compress-messages.js";
import type { Message } from "../../models/message.js";
import { LoadSessionOptionsSchema } from "../../models/queries.js";
import { SessionOptionsSchema } from "../../models/session.js";
import type { MessageKey } from "../../paging/cursor.js";
import type { PageRequest } from "../../paging/page-request.js";
import {
  SessionTurnsSchema,
  sessionConversation,
  sessionMessages,
} from "../../session/session-records.js";
import { rejectDuplicateIds } from "../../validation.js";
import { requireTenantFilter } from "../capabilities.js";
import type { SequencedMessage } from "../contract/requests.js";
import type { SessionsApi } from "../contract/sessions.js";
import type { Implementation } from "../store-context.js";
import { messageKey } from "./message-operations.js";

/** Messages per driver call when `loadSessionMessages` walks a transcript. */
const SESSION_PAGE = 1000;

/** How the store carries out each method of the family (see `SessionsApi`). */
export const SESSION_METHODS = {
  async storeSessionMessages(ctx, conversationId, turns, options) {
    const key = ctx.id(conversationId, "conversation id");
    const parsed = ctx.parse(SessionTurnsSchema, turns, "turns");
    const owner = ctx.owned(
      ctx.parse(SessionOptionsSchema, options, "session options"),
      "session options",
    );
    requireTenantFilter(ctx.capabilities, owner, ctx.name);
    rejectDuplicateIds(
      parsed.filter((t): t is typeof t & { id: string } => t.id !== undefined),
      "turns",
      ctx.name,
    );
    if (parsed.length === 0) return [];
    const now = Date.now();
    return ctx.call("storeSessionMessages", {
      conversation: sessionConversation(key, owner, now, ctx.name),
      messages: sessionMessages(key, parsed, owner, now, ctx.name),
      now,
    });
  },

  async loadSessionMessages(ctx, conversationId, options = {}) {
    const key = ctx.id(conversationId, "conversation id");
    const { compress } = ctx.parse(LoadSessionOptionsSchema, options, "load options");
    const messages: Message[] = [];
    let after: MessageKey | null = null;
    for (;;) {
      const page: PageRequest<MessageKey> = { after, take: SESSION_PAGE };
      const request = { conversationId: key, includeDeleted: false, page };
      const rows: SequencedMessage[] = await ctx.call("getMessagesByConversationId", request);
      for (const r of rows) messages.push(r.message);
      if (rows.length < SESSION_PAGE) break;
      after = messageKey(rows[rows.length - 1]!);
    }
    return compress ? compressMessages(messages, compress) : messages;
  },
} satisfies Implementation<SessionsApi>;

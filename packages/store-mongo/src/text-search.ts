import type { Scope, TextSearchFilter, TextSearchHit } from "@message-store/core";
import {
  type ConversationKey,
  containsFolded,
  foldAscii,
  type PageRequest,
} from "@message-store/core/adapter";
import type { Filter } from "mongodb";
import type { MongoContext } from "./collections.js";
import { type ConversationDoc, type MessageDoc, toConversation, toMessage } from "./documents.js";
import { idKey } from "./id-key.js";
import { CONVERSATION_ORDER, inScope, liveUnless } from "./queries.js";

/** What a text search is asked besides the owners, which are its scope. */
export type TextSearch = Omit<TextSearchFilter, "userId" | "tenantId">;

/** Conversations read per round trip while walking; their messages are matched in one more. */
const WALK_BATCH = 200;

const REGEX_SPECIAL = /[\\^$.|?*+()[\]{}]/;

/**
 * A regular expression (no flags) that finds `text` the way core's `containsFolded` does: each
 * ASCII letter as `[xX]`, metacharacters escaped, control characters as `\xHH` (a BSON pattern
 * cannot hold NUL), every other character, non-ASCII letters included, as itself. Not the `i`
 * flag: it folds non-ASCII letters too (and differently on MongoDB-compatible servers).
 */
export function textPattern(text: string): string {
  let out = "";
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) {
      out += `[${ch.toLowerCase()}${ch.toUpperCase()}]`;
    } else if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${cp.toString(16).padStart(2, "0")}`;
    } else {
      out += REGEX_SPECIAL.test(ch) ? `\\${ch}` : ch;
    }
  }
  return out;
}

function conversationWalk(
  scope: Scope,
  filter: TextSearch,
  page: PageRequest<ConversationKey>,
): Filter<ConversationDoc> {
  const where: Filter<ConversationDoc> = {
    ...inScope(scope),
    ...liveUnless(filter.includeDeleted),
  };
  const a = page.after;
  if (a) {
    where.$or = [
      { lastActivityAt: { $lt: a.lastActivityAt } },
      { lastActivityAt: a.lastActivityAt, idKey: { $gt: idKey(a.id) } },
    ];
  }
  return where;
}

/** The newest matching message of each conversation of `ids` (one aggregation). */
async function newestMatches(
  ctx: MongoContext,
  ids: string[],
  pattern: string,
  includeDeleted: boolean,
): Promise<Map<string, MessageDoc>> {
  const groups = await ctx.messages
    .aggregate<{ _id: string; doc: MessageDoc }>([
      {
        $match: {
          conversationId: { $in: ids },
          ...liveUnless(includeDeleted),
          originalContent: { $regex: pattern },
        },
      },
      { $sort: { conversationId: 1, timestamp: -1, sequence: -1 } },
      { $group: { _id: "$conversationId", doc: { $first: "$$ROOT" } } },
    ])
    .toArray();
  return new Map(groups.map((g) => [g._id, g.doc]));
}

/**
 * `searchConversations`: walks the conversations in `scope` in
 * `(lastActivityAt desc, id asc)` order (over `conversations_user_activity` with a user), a
 * batch at a time, and finds each batch's newest matching messages in one aggregation over the
 * transcript index, until `page.take` hits. Titles are tested with core's `containsFolded`.
 */
export async function searchConversations(
  ctx: MongoContext,
  scope: Scope,
  filter: TextSearch,
  page: PageRequest<ConversationKey>,
): Promise<TextSearchHit[]> {
  const take = page.take ?? Number.POSITIVE_INFINITY;
  const pattern = textPattern(filter.text);
  const needle = foldAscii(filter.text);
  const hits: TextSearchHit[] = [];
  const walk = ctx.conversations.find(conversationWalk(scope, filter, page), {
    sort: CONVERSATION_ORDER,
    batchSize: WALK_BATCH,
  });
  try {
    let batch: ConversationDoc[] = [];
    const flush = async () => {
      const matches = await newestMatches(
        ctx,
        batch.map((c) => c._id),
        pattern,
        filter.includeDeleted,
      );
      for (const doc of batch) {
        if (hits.length >= take) break;
        const titleMatch = containsFolded(doc.title, needle);
        const message = matches.get(doc._id);
        if (titleMatch || message) {
          hits.push({
            conversation: toConversation(doc),
            titleMatch,
            message: message ? toMessage(message) : null,
          });
        }
      }
      batch = [];
    };
    for await (const doc of walk) {
      batch.push(doc);
      if (batch.length === WALK_BATCH) await flush();
      if (hits.length >= take) break;
    }
    if (batch.length > 0 && hits.length < take) await flush();
  } finally {
    await walk.close();
  }
  return hits;
}

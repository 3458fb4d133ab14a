import type { z } from "zod";
import {
  fastCheckpoint,
  fastPutOptions,
  fastReadOptions,
} from "../../canonical/canonical-checkpoint.js";
import {
  CheckpointInputSchema,
  CheckpointPutOptionsSchema,
  CheckpointQuerySchema,
  CheckpointReadOptionsSchema,
  CheckpointWritesInputSchema,
} from "../../models/checkpoint.js";
import { SessionOptionsSchema } from "../../models/session.js";
import { cursors } from "../../paging/cursor.js";
import { sessionConversation, sessionMessages } from "../../session/session-records.js";
import { rejectDuplicateIds } from "../../validation.js";
import { requireTenantFilter } from "../capabilities.js";
import type { CheckpointsApi } from "../contract/checkpoints.js";
import type { Implementation } from "../store-context.js";

/** How the store carries out each method of the family (see `CheckpointsApi`). */
export const CHECKPOINT_METHODS = {
  async putCheckpoint(ctx, checkpoint, options) {
    const parsed = ctx.parse(CheckpointInputSchema, checkpoint, "checkpoint", fastCheckpoint);
    const { messages, traces, ...session } = ctx.parse(
      CheckpointPutOptionsSchema,
      options,
      "checkpoint options",
      fastPutOptions as (v: unknown) => z.output<typeof CheckpointPutOptionsSchema> | undefined,
    );
    const owner = ctx.owned(session, "checkpoint options");
    requireTenantFilter(ctx.capabilities, owner, ctx.name);
    rejectDuplicateIds(
      messages.filter((t): t is typeof t & { id: string } => t.id !== undefined),
      "checkpoint messages",
      ctx.name,
    );
    rejectDuplicateIds(traces, "checkpoint traces", ctx.name);
    const id = parsed.conversationId;
    const now = Date.now();
    await ctx.call("putCheckpoint", {
      conversation: sessionConversation(id, owner, now, ctx.name),
      checkpoint: parsed,
      messages: sessionMessages(id, messages, owner, now, ctx.name),
      traces: ctx.records(traces),
      now,
    });
  },

  async putCheckpointWrites(ctx, writes, options) {
    const parsed = ctx.parse(CheckpointWritesInputSchema, writes, "checkpoint writes");
    const owner = ctx.owned(
      ctx.parse(SessionOptionsSchema, options, "session options"),
      "session options",
    );
    requireTenantFilter(ctx.capabilities, owner, ctx.name);
    const conversation = sessionConversation(parsed.conversationId, owner, Date.now(), ctx.name);
    await ctx.call("putCheckpointWrites", { conversation, writes: parsed });
  },

  async getCheckpoint(ctx, conversationId, options = {}) {
    const key = ctx.id(conversationId, "conversation id");
    const { namespace, id } = ctx.parse(
      CheckpointReadOptionsSchema,
      options,
      "read options",
      fastReadOptions,
    );
    return ctx.call("getCheckpoint", { conversationId: key, namespace, id: id ?? null });
  },

  async listCheckpoints(ctx, query = {}) {
    const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
      CheckpointQuerySchema,
      query,
      "checkpoint query",
    );
    const list = { limit, cursor, userId, tenantId };
    return ctx.list("listCheckpoints", list, cursors.checkpoint, (c) => c, { filter });
  },

  async deleteCheckpoints(ctx, conversationId) {
    return ctx.call("deleteCheckpoints", { id: ctx.id(conversationId, "conversation id") });
  },
} satisfies Implementation<CheckpointsApi>;

import type { z } from "zod";
import {
  fastCheckpoint,
  fastPutOptions,
  fastReadOptions,
} from "../../canonical/canonical-checkpoint.js";
import {
  type CheckpointInput,
  CheckpointInputSchema,
  type CheckpointPutOptions,
  CheckpointPutOptionsSchema,
  type CheckpointQueryInput,
  CheckpointQuerySchema,
  type CheckpointReadOptions,
  CheckpointReadOptionsSchema,
  type CheckpointWritesInput,
  CheckpointWritesInputSchema,
  type StoredCheckpoint,
} from "../../models/checkpoint.js";
import type { Page } from "../../models/queries.js";
import { type SessionOptions, SessionOptionsSchema } from "../../models/session.js";
import { cursors } from "../../paging/cursor.js";
import { decodeCursor, toPage } from "../../paging/page-request.js";
import { sessionConversation, sessionMessages } from "../../session/session-records.js";
import { rejectDuplicateIds } from "../../validation.js";
import { requireTenantFilter } from "../capabilities.js";
import type { StoreContext } from "../store-context.js";
import { EMPTY, identity, take } from "./page-results.js";

export async function putCheckpoint(
  ctx: StoreContext,
  checkpoint: CheckpointInput,
  options: CheckpointPutOptions,
): Promise<void> {
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
  await ctx.write("putCheckpoint", {
    conversation: sessionConversation(id, owner, now, ctx.name),
    checkpoint: parsed,
    messages: sessionMessages(id, messages, owner, now, ctx.name),
    traces: ctx.records(traces),
    now,
  });
}

export async function putCheckpointWrites(
  ctx: StoreContext,
  writes: CheckpointWritesInput,
  options: SessionOptions,
): Promise<void> {
  const parsed = ctx.parse(CheckpointWritesInputSchema, writes, "checkpoint writes");
  const owner = ctx.owned(
    ctx.parse(SessionOptionsSchema, options, "session options"),
    "session options",
  );
  requireTenantFilter(ctx.capabilities, owner, ctx.name);
  const conversation = sessionConversation(parsed.conversationId, owner, Date.now(), ctx.name);
  await ctx.write("putCheckpointWrites", { conversation, writes: parsed });
}

export async function getCheckpoint(
  ctx: StoreContext,
  conversationId: string,
  options: CheckpointReadOptions,
): Promise<StoredCheckpoint | null> {
  const key = ctx.id(conversationId, "conversation id");
  const { namespace, id } = ctx.parse(
    CheckpointReadOptionsSchema,
    options,
    "read options",
    fastReadOptions,
  );
  return ctx.call("getCheckpoint", { conversationId: key, namespace, id: id ?? null });
}

export async function listCheckpoints(
  ctx: StoreContext,
  query: CheckpointQueryInput,
): Promise<Page<StoredCheckpoint>> {
  const { limit, cursor, userId, tenantId, ...filter } = ctx.parse(
    CheckpointQuerySchema,
    query,
    "checkpoint query",
  );
  ctx.require("checkpoints");
  const scope = ctx.filter({ userId, tenantId });
  const after = decodeCursor(cursor, cursors.checkpoint.decode, ctx.name);
  if (!scope) return EMPTY;
  const page = { after, take: take(limit) };
  const rows = await ctx.call("listCheckpoints", { scope, filter, page });
  return toPage(rows, limit ?? null, identity, cursors.checkpoint.encode);
}

export async function deleteCheckpoints(
  ctx: StoreContext,
  conversationId: string,
): Promise<boolean> {
  return ctx.call("deleteCheckpoints", { id: ctx.id(conversationId, "conversation id") });
}

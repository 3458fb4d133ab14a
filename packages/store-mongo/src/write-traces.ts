import { IntegrityError, StorageError, type TurnTrace } from "@message-store/core";
import { ownerRefusal } from "@message-store/core/adapter";
import type { ClientSession } from "mongodb";
import { inTransaction, type MongoContext } from "./collections.js";
import { assertTraceFits } from "./document-size.js";
import { traceFields } from "./documents.js";
import { isDuplicateKey } from "./errors.js";

const q = JSON.stringify;

/** What a trace write reads of its message: the conversation and the owners a trace takes. */
interface MessageOwner {
  _id: string;
  conversationId: string;
  userId: string;
  tenantId?: string | null;
  deletedAt?: number | null;
}

/** A trace upsert of the batch collided on a unique index (`_id` or `messageId`). */
export class Collision extends Error {
  constructor(override readonly cause: unknown) {
    super("duplicate key");
  }
}

/** A concurrent upsert of the same new trace id won its insert: the write is run again. */
const MAX_ATTEMPTS = 3;

/**
 * Upserts traces as consecutive single writes in array order would, and resolves to them as
 * stored. One read of the batch's messages checks each trace against its message (which exists in
 * the trace's conversation and carries the conversation's owners): the trace's owners are filled
 * from it or must equal it, a live trace may not go onto a soft-deleted message, and no two
 * traces of the batch may share a message. A missing conversation or message, and another
 * owner's, are owner refusals (a view learns nothing of them; see {@link misplaced}). The traces before the first that breaks a rule are
 * then written as replaces filtered on `{ _id, messageId, deletedAt }`: a trace id of another
 * message, or an upsert changing `deletedAt`, inserts a duplicate `_id`, and the unique index on
 * `messageId` refuses a second trace for a message; a read on that failure only words it.
 *
 * With transactions a batch of two or more runs in one, so it stores all or nothing (the driver
 * declares `atomicTraceBatches`); a single trace is one document write. Without transactions the
 * ordered bulk write keeps the traces before a failing one, and none after it.
 */
export async function writeTraces(
  ctx: MongoContext,
  input: readonly TurnTrace[],
): Promise<TurnTrace[]> {
  // Checked before any I/O; filling the owner adds a few bytes at most.
  for (const t of input) assertTraceFits(t.id, traceFields(t), ctx.maxDocumentBytes);
  const atomic = ctx.transactions && input.length > 1;
  for (let attempt = 1; ; attempt++) {
    let traces: TurnTrace[] = [];
    try {
      return await (atomic
        ? inTransaction(ctx, (session) => attemptTraces(ctx, session, input, (t) => (traces = t)))
        : attemptTraces(ctx, undefined, input, (t) => (traces = t)));
    } catch (error) {
      if (!(error instanceof Collision)) throw error;
      const refused = await collisionError(ctx, traces, error.cause);
      if (refused) throw refused;
      if (attempt >= MAX_ATTEMPTS) {
        throw new StorageError("a trace of the batch kept colliding with a concurrent write", {
          cause: error.cause,
        });
      }
    }
  }
}

/**
 * One attempt of {@link writeTraces} (in `session`'s transaction when given); `planned` receives
 * the traces with their owners filled, to word a collision ({@link collisionError}).
 */
export async function attemptTraces(
  ctx: MongoContext,
  session: ClientSession | undefined,
  input: readonly TurnTrace[],
  planned: (traces: TurnTrace[]) => void,
): Promise<TurnTrace[]> {
  const o = session ? { session } : {};
  const ids = [...new Set(input.map((t) => t.messageId))];
  const found = await ctx.messages
    .find(
      { _id: { $in: ids } },
      {
        ...o,
        projection: { conversationId: 1, userId: 1, tenantId: 1, deletedAt: 1 },
        batchSize: ids.length,
      },
    )
    .toArray();
  const messages = new Map((found as MessageOwner[]).map((m) => [m._id, m]));
  const traces: TurnTrace[] = [];
  const traced = new Map<string, string>();
  let refused: IntegrityError | null = null;
  for (const t of input) {
    const rule = traceRule(t, messages.get(t.messageId), traced.get(t.messageId));
    if (rule === MISPLACED) refused = await misplaced(ctx, session, t, messages.get(t.messageId));
    else if (rule)
      refused = (await foreignTraceId(ctx, session, t, messages.get(t.messageId)!)) ?? rule;
    if (refused) break;
    const m = messages.get(t.messageId)!;
    traced.set(t.messageId, t.id);
    traces.push({ ...t, userId: t.userId ?? m.userId, tenantId: m.tenantId ?? null });
  }
  planned(traces);
  if (traces.length > 0) await write(ctx, session, traces);
  if (refused) throw refused;
  return traces;
}

/** Marks a trace whose message is missing or in another conversation than the one it names. */
const MISPLACED = Symbol("misplaced");

/**
 * The rule `t` breaks against its message (and a trace of the batch already on it), or `null`. A
 * message in the trace's conversation carries that conversation's owners, which the trace's must
 * equal; for a missing or misplaced message see {@link misplaced}.
 */
function traceRule(
  t: TurnTrace,
  m: MessageOwner | undefined,
  batchTrace: string | undefined,
): IntegrityError | typeof MISPLACED | null {
  if (!m || m.conversationId !== t.conversationId) return MISPLACED;
  if (
    (t.userId !== null && t.userId !== m.userId) ||
    (t.tenantId !== null && t.tenantId !== (m.tenantId ?? null))
  ) {
    return notTheOwner(t);
  }
  if ((m.deletedAt ?? null) !== null && t.deletedAt === null) {
    return new IntegrityError(
      `turn trace ${q(t.id)}: message ${q(t.messageId)} is soft-deleted; restore it first`,
    );
  }
  if (batchTrace !== undefined) return anotherTrace(t, batchTrace);
  return null;
}

/**
 * The refusal of a trace whose message is missing or in another conversation than the one it
 * names, in the order of the rules: the named conversation must exist and be the trace's owner's,
 * then the message must exist under that owner (owner refusals, so a view learns nothing of
 * either); a message of the same owner in another conversation is a plain `IntegrityError`. The
 * named conversation is read on this failure only.
 */
async function misplaced(
  ctx: MongoContext,
  session: ClientSession | undefined,
  t: TurnTrace,
  m: MessageOwner | undefined,
): Promise<IntegrityError> {
  const c = await ctx.conversations.findOne(
    { _id: t.conversationId },
    { ...(session ? { session } : {}), projection: { userId: 1, tenantId: 1 } },
  );
  if (!c) {
    return ownerRefusal(
      `turn trace ${q(t.id)}: conversation ${q(t.conversationId)} does not exist`,
      "conversation",
      t.conversationId,
    );
  }
  const tenantId = c.tenantId ?? null;
  if ((t.userId !== null && t.userId !== c.userId) || (t.tenantId ?? tenantId) !== tenantId) {
    return notTheOwner(t);
  }
  if (!m || m.userId !== c.userId || (m.tenantId ?? null) !== tenantId) {
    return ownerRefusal(
      `turn trace ${q(t.id)}: message ${q(t.messageId)} does not exist`,
      "message",
      t.messageId,
    );
  }
  return new IntegrityError(
    `turn trace ${q(t.id)}: message ${q(t.messageId)} belongs to conversation ${q(m.conversationId)}, not ${q(t.conversationId)}`,
  );
}

/**
 * The owner refusal of a trace whose id is stored under another owner, or `null`: read when `t`
 * breaks a later rule (soft delete, one trace per message), since ownership is checked first and
 * a view must not learn of that rule instead of "does not exist". `t`'s owners are `m`'s.
 */
async function foreignTraceId(
  ctx: MongoContext,
  session: ClientSession | undefined,
  t: TurnTrace,
  m: MessageOwner,
): Promise<IntegrityError | null> {
  const stored = await ctx.traces.findOne(
    { _id: t.id },
    { ...(session ? { session } : {}), projection: { messageId: 1, userId: 1, tenantId: 1 } },
  );
  if (!stored || stored.messageId === t.messageId) return null;
  const owner = (r: { userId?: string | null; tenantId?: string | null }) =>
    q([r.userId ?? null, r.tenantId ?? null]);
  if (owner(stored) === owner(m)) return null;
  return ownerRefusal(
    `turn trace ${q(t.id)} belongs to message ${q(stored.messageId)}; a trace cannot move to another message`,
    "turn trace",
    t.id,
  );
}

function notTheOwner(t: TurnTrace): IntegrityError {
  return ownerRefusal(
    `turn trace ${q(t.id)}: its userId and tenantId must be those of conversation ${q(t.conversationId)}`,
    "conversation",
    t.conversationId,
  );
}

function anotherTrace(t: TurnTrace, other: string): IntegrityError {
  return new IntegrityError(
    `turn trace ${q(t.id)}: message ${q(t.messageId)} already has trace ${q(other)}; a message has one trace`,
  );
}

/** The replaces of `traces`, in order: one `replaceOne`, or an ordered bulk. */
async function write(
  ctx: MongoContext,
  session: ClientSession | undefined,
  traces: TurnTrace[],
): Promise<void> {
  const o = session ? { session } : {};
  const replaces = traces.map((t) => ({
    filter: { _id: t.id, messageId: t.messageId, deletedAt: t.deletedAt },
    replacement: traceFields(t),
    upsert: true,
  }));
  try {
    const [only] = replaces;
    if (replaces.length === 1 && only) {
      await ctx.traces.replaceOne(only.filter, only.replacement, { ...o, upsert: true });
    } else {
      const ops = replaces.map((replaceOne) => ({ replaceOne }));
      await ctx.traces.bulkWrite(ops, { ...o, ordered: true });
    }
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    throw new Collision(error);
  }
}

/**
 * Why an upsert of `traces` collided, read after the failure (outside any transaction, which the
 * failure aborted), for the first trace in array order that conflicts with what is stored (some
 * servers do not say which write failed): its id stored on another message (an owner refusal
 * when that message is another owner's) or with another `deletedAt`, or another trace on its
 * message. `null` when none does any more: a concurrent upsert of the same trace id (or a delete)
 * won the race, and the write is run again.
 */
export async function collisionError(
  ctx: MongoContext,
  traces: readonly TurnTrace[],
  cause: unknown,
): Promise<IntegrityError | null> {
  const stored = await ctx.traces
    .find(
      {
        $or: [
          { _id: { $in: traces.map((t) => t.id) } },
          { messageId: { $in: traces.map((t) => t.messageId) } },
        ],
      },
      { projection: { messageId: 1, userId: 1, tenantId: 1, deletedAt: 1 } },
    )
    .toArray();
  const byId = new Map(stored.map((d) => [d._id, d]));
  const byMessage = new Map(stored.map((d) => [d.messageId, d._id]));
  for (const t of traces) {
    const same = byId.get(t.id);
    if (same && same.messageId !== t.messageId) {
      const message = `turn trace ${q(t.id)} belongs to message ${q(same.messageId)}; a trace cannot move to another message`;
      const sameOwner = same.userId === t.userId && (same.tenantId ?? null) === t.tenantId;
      return sameOwner
        ? new IntegrityError(message, { cause })
        : ownerRefusal(message, "turn trace", t.id);
    }
    if (same && (same.deletedAt ?? null) !== t.deletedAt) {
      return new IntegrityError(
        `turn trace ${q(t.id)}: deletedAt changes only through softDeleteMessage and restoreMessage`,
        { cause },
      );
    }
    const other = byMessage.get(t.messageId);
    if (other !== undefined && other !== t.id) return anotherTrace(t, other);
  }
  return null;
}

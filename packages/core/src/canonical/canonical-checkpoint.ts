import type { CheckpointRecord, SerializedValue } from "../models/checkpoint.js";
import { SessionTurnSchema } from "../models/session.js";
import type { TurnTrace } from "../models/turn-trace.js";
import { fastTraceBatch, MAX_BATCH } from "./input-fast-paths.js";
import { isId, isJsonObject, isPlainObject, isText, type Obj } from "./json-checks.js";

/*
 * The structural fast path of `CheckpointInputSchema` (a put per step of every agent graph):
 * returns exactly what the schema would, or `undefined`, and then zod runs and names the
 * problem. See `canonical-message.ts` for the approach.
 */

const KEYS = new Set([
  "conversationId",
  "namespace",
  "id",
  "parentId",
  "checkpoint",
  "channelVersions",
  "metadata",
  "values",
]);

const isChannel = (v: unknown): v is string =>
  isText(v) && v.length >= 1 && v.length <= 256 && v !== "__proto__";
const isVersion = (v: unknown): v is string => isText(v) && v.length >= 1 && v.length <= 256;

/** A serialized value, its bytes copied (as the schema's transform does), or `undefined`. */
function serialized(v: unknown): SerializedValue | undefined {
  if (!isPlainObject(v)) return undefined;
  let keys = 0;
  for (const _ in v) keys++;
  const { type, data } = v;
  if (keys !== 2 || !isText(type) || type.length < 1 || type.length > 64) return undefined;
  return data instanceof Uint8Array ? { type, data: new Uint8Array(data) } : undefined;
}

function channelVersions(v: unknown): Record<string, string> | undefined {
  if (v === undefined) return {};
  if (!isPlainObject(v)) return undefined;
  const out: Record<string, string> = {};
  for (const key in v) {
    const version = v[key];
    if (!isChannel(key) || !isVersion(version)) return undefined;
    out[key] = version;
  }
  return out;
}

function values(v: unknown): CheckpointRecord["values"] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_BATCH) return undefined;
  const out: CheckpointRecord["values"] = [];
  const seen = new Set<string>();
  for (let i = 0; i < v.length; i++) {
    const item = v[i] as Obj;
    if (!isPlainObject(item)) return undefined;
    let keys = 0;
    for (const _ in item) keys++;
    const { channel, version } = item;
    const value = serialized(item.value);
    if (keys !== 3 || !isChannel(channel) || !isVersion(version) || !value) return undefined;
    const key = `${channel}\u0000${version}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    out.push({ channel, version, value });
  }
  return out;
}

/** `CheckpointInputSchema`'s output for `v`, or `undefined` when only zod can tell. */
export function fastCheckpoint(v: unknown): CheckpointRecord | undefined {
  if (!isPlainObject(v)) return undefined;
  for (const key in v) if (!KEYS.has(key)) return undefined;
  const { conversationId, id } = v;
  const namespace = v.namespace === undefined ? "" : v.namespace;
  const parentId = v.parentId === undefined ? null : v.parentId;
  const metadata = v.metadata === undefined ? {} : v.metadata;
  if (!isId(conversationId) || !isId(id) || !isText(namespace) || namespace.length > 1024)
    return undefined;
  if (parentId !== null && !isId(parentId)) return undefined;
  if (!isJsonObject(metadata)) return undefined;
  const checkpoint = serialized(v.checkpoint);
  const versions = channelVersions(v.channelVersions);
  const list = values(v.values);
  if (!checkpoint || !versions || !list) return undefined;
  return {
    conversationId: conversationId as string,
    namespace,
    id: id as string,
    parentId: parentId as string | null,
    checkpoint,
    channelVersions: versions,
    metadata: metadata as CheckpointRecord["metadata"],
    values: list,
  };
}

const TURN_KEYS = new Set(Object.keys(SessionTurnSchema.shape));
const OPTION_KEYS = new Set(["userId", "agentId", "tenantId", "title", "messages", "traces"]);

/**
 * A put's turns when each is a plain object of `SessionTurnSchema`'s keys, with its role and
 * content: they then go to `sessionMessages` as given, whose message schema checks and fills
 * every field (the turn schema's checks are the message schema's).
 */
function turns(v: unknown): unknown[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_BATCH) return undefined;
  for (let i = 0; i < v.length; i++) {
    const turn = v[i];
    if (!isPlainObject(turn) || turn.role === undefined || !isText(turn.content)) return undefined;
    for (const key in turn) if (!TURN_KEYS.has(key)) return undefined;
  }
  return v;
}

const optionalId = (v: unknown) => v === undefined || isId(v);

/**
 * `CheckpointPutOptionsSchema`'s output for `v` (traces through their own fast path, turns as
 * {@link turns} says), or `undefined` when only zod can tell.
 */
export function fastPutOptions(v: unknown):
  | {
      userId: string;
      agentId?: string;
      tenantId?: string;
      title?: string;
      messages: unknown[];
      traces: TurnTrace[];
    }
  | undefined {
  if (!isPlainObject(v)) return undefined;
  for (const key in v) if (!OPTION_KEYS.has(key)) return undefined;
  const { userId, agentId, tenantId, title } = v;
  if (!isId(userId) || !optionalId(agentId) || !optionalId(tenantId)) return undefined;
  if (title !== undefined && !isText(title)) return undefined;
  const messages = turns(v.messages);
  const traces = v.traces === undefined ? [] : fastTraceBatch(v.traces);
  if (!messages || !traces) return undefined;
  const out: ReturnType<typeof fastPutOptions> = { userId: userId as string, messages, traces };
  if (agentId !== undefined) out.agentId = agentId as string;
  if (tenantId !== undefined) out.tenantId = tenantId as string;
  if (title !== undefined) out.title = title;
  return out;
}

/** `CheckpointReadOptionsSchema`'s output for `v` (a read per graph run), or `undefined`. */
export function fastReadOptions(v: unknown): { namespace: string; id?: string } | undefined {
  if (!isPlainObject(v)) return undefined;
  for (const key in v) if (key !== "namespace" && key !== "id") return undefined;
  const namespace = v.namespace === undefined ? "" : v.namespace;
  if (!isText(namespace) || namespace.length > 1024) return undefined;
  if (v.id === undefined) return { namespace };
  return isId(v.id) ? { namespace, id: v.id as string } : undefined;
}

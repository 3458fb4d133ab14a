import { insertConversationFrom } from "./conversation-insert.js";
import { raiseRule } from "./sqlstates.js";

/**
 * The checkpoint writes (`checkpoints` capability), one round trip each: `ms_put_checkpoint`
 * (a checkpoint with its new channel values, and the messages and traces it mirrors) and
 * `ms_put_checkpoint_writes` (a task's pending writes). Installed with the other functions (see
 * `functions.ts`). Every statement names the thread's conversation, so in the partitioned layout
 * each touches the partitions of that conversation only.
 *
 * Serialized values travel as one `bytea` parameter (sent binary: no hex, base64 or JSON on the
 * way), concatenated, with their lengths; the checkpoint's fields and the conversation as JSON
 * objects of the model (NUL-escaped, `nul-codec.ts`).
 */

/** The rows of `unnest(<columns>, p_lengths)`, each with its value cut out of `p_data`. */
function cutValues(columns: string): string {
  return `(SELECT x.*, substring(p_data FROM (1 + coalesce(sum(x.len) OVER (
                ORDER BY x.ord ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))::integer
              FOR x.len) AS value
         FROM unnest(${columns}, p_lengths) WITH ORDINALITY AS x(${columns.replaceAll("p_", "")}, len, ord)) v`;
}

/**
 * The thread's conversation `p_conversation`, locked until the statement ends (`lock`: `SHARE`,
 * or `NO KEY UPDATE` before messages are written, the lock those writes take): read first, as a
 * thread's conversation nearly always exists, and created when it does not. An existing one must
 * be the writer's (`conversation_owner`, an owner refusal) and live (`thread_deleted`). Sets
 * `conv` (its owners, `deleted_at`, `last_activity_at`) and `created`.
 */
function ensureThread(s: string, lock: "SHARE" | "NO KEY UPDATE"): string {
  const read = `SELECT c.user_id, c.tenant_id, c.deleted_at, c.last_activity_at INTO conv
      FROM ${s}.conversations c WHERE c.id = conv_id FOR ${lock};`;
  return `${read}
  IF NOT FOUND THEN
    ${insertConversationFrom(s, "p_conversation")}
    created := FOUND;
    IF NOT created THEN -- created meanwhile by another writer
      ${read}
    END IF;
  END IF;
  IF NOT created THEN
    IF conv.user_id IS NULL THEN -- deleted since the insert saw it
      ${raiseRule("'thread_missing'", { conversation: "conv_id" })}
    END IF;
    IF conv.user_id <> p_conversation->>'userId'
       OR (p_conversation->>'tenantId' IS NOT NULL
           AND conv.tenant_id IS DISTINCT FROM p_conversation->>'tenantId') THEN
      ${raiseRule("'conversation_owner'", { conversation: "conv_id" })}
    END IF;
    IF conv.deleted_at IS NOT NULL THEN
      ${raiseRule("'thread_deleted'", { conversation: "conv_id" })}
    END IF;
  END IF;`;
}

/**
 * The messages of a put, as `storeSessionMessages` stores them. One message (nearly every step
 * of an agent) gets the session's timestamp here under the conversation's lock: its stored one if
 * the conversation has it, else `greatest(now, last_activity_at + 1)` (`now` in a new
 * conversation; past `Number.MAX_SAFE_INTEGER` the put is refused), the rule a session batch
 * follows (`sessionTimestamps` in `session-timestamps.ts`), which takes the others. The messages
 * are then written by the layout's `ms_write_messages`.
 */
function putThreadMessages(s: string): string {
  const stamped = "msg || jsonb_build_object('timestamp', stored_ts)";
  const one = `${s}.ms_write_messages(jsonb_build_array(${stamped}), NULL, NULL)`;
  return `IF jsonb_array_length(p_messages) = 1 THEN
      msg := p_messages->0;
      SELECT m."timestamp" INTO stored_ts FROM ${s}.messages m
       WHERE m.id = msg->>'id' AND m.conversation_id = conv_id;
      IF stored_ts IS NULL THEN
        stored_ts := CASE WHEN created THEN p_now ELSE greatest(p_now, conv.last_activity_at + 1) END;
        IF stored_ts > ${Number.MAX_SAFE_INTEGER} THEN
          ${raiseRule("'session_end_of_time'", { conversation: "conv_id", activity: "conv.last_activity_at::text" })}
        END IF;
      END IF;
      PERFORM ${one};
    ELSE
      PERFORM ${s}.ms_write_messages(p_messages, p_conversation, p_now);
    END IF;`;
}

/**
 * `ms_put_checkpoint(conversation, checkpoint, doc, channels, versions, types, lengths, data,
 * messages, now, traces)`: the conversation ({@link ensureThread}), the messages as a session stores them
 * ({@link putThreadMessages}; NULL: none), the traces as `ms_put_turn_traces` (NULL: none), the
 * channel values (a stored version is kept), then the checkpoint, upserted. One statement: all
 * or nothing.
 */
export function putCheckpoint(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_checkpoint(
  p_conversation jsonb, p_checkpoint jsonb, p_doc bytea, p_channels text[], p_versions text[],
  p_types text[], p_lengths integer[], p_data bytea, p_messages jsonb, p_now bigint,
  p_traces jsonb)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  conv_id text := p_conversation->>'id';
  ns text := p_checkpoint->>'namespace';
  conv record;
  sess record;
  created boolean := false;
  msg jsonb;
  stored_ts bigint;
BEGIN
  IF p_messages IS NULL THEN
    ${ensureThread(s, "SHARE")}
  ELSE
    ${ensureThread(s, "NO KEY UPDATE")}
    ${putThreadMessages(s)}
  END IF;
  IF p_traces IS NOT NULL THEN
    PERFORM ${s}.ms_put_turn_traces(p_traces);
  END IF;
  INSERT INTO ${s}.checkpoint_values (conversation_id, namespace, channel, version, type, value)
  SELECT conv_id, ns, v.channels, v.versions, v.types, v.value
    FROM ${cutValues("p_channels, p_versions, p_types")}
  ON CONFLICT (conversation_id, namespace, channel, version) DO NOTHING;
  INSERT INTO ${s}.checkpoints AS cp (
    conversation_id, namespace, id, parent_id, type, checkpoint, channel_versions, metadata)
  VALUES (conv_id, ns, p_checkpoint->>'id', p_checkpoint->>'parentId', p_checkpoint->>'type',
          p_doc, p_checkpoint->'channelVersions', p_checkpoint->'metadata')
  ON CONFLICT (conversation_id, namespace, id) DO UPDATE SET
    parent_id = EXCLUDED.parent_id, type = EXCLUDED.type, checkpoint = EXCLUDED.checkpoint,
    channel_versions = EXCLUDED.channel_versions, metadata = EXCLUDED.metadata;
END
$fn$;`;
}

/**
 * `ms_put_checkpoint_writes(conversation, namespace, checkpoint_id, task_id, task_path, idx,
 * channels, types, lengths, data)`: the conversation as {@link ensureThread} checks or creates it, then
 * the task's writes: one with a negative `idx` replaces the stored one, another keeps it.
 */
export function putCheckpointWrites(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_put_checkpoint_writes(
  p_conversation jsonb, p_namespace text, p_checkpoint_id text, p_task_id text,
  p_task_path text, p_idx integer[], p_channels text[], p_types text[], p_lengths integer[],
  p_data bytea)
RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  conv_id text := p_conversation->>'id';
  conv record;
  sess record;
  created boolean := false;
BEGIN
  ${ensureThread(s, "SHARE")}
  INSERT INTO ${s}.checkpoint_writes AS w (
    conversation_id, namespace, checkpoint_id, task_id, idx, task_path, channel, type, value)
  SELECT conv_id, p_namespace, p_checkpoint_id, p_task_id, v.idx, p_task_path, v.channels,
         v.types, v.value
    FROM ${cutValues("p_idx, p_channels, p_types")}
  ON CONFLICT (conversation_id, namespace, checkpoint_id, task_id, idx) DO UPDATE SET
    task_path = EXCLUDED.task_path, channel = EXCLUDED.channel, type = EXCLUDED.type,
    value = EXCLUDED.value
  WHERE EXCLUDED.idx < 0;
END
$fn$;`;
}

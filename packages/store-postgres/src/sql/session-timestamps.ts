import { insertConversationFrom } from "./conversation-insert.js";
import { raiseRule } from "./sqlstates.js";

/**
 * The session timestamps of `storeSessionMessages` (and the checkpoint puts), which both layouts'
 * `ms_write_messages` (`message-writes.ts`, `partitioned-writes.ts`) run first.
 */

/**
 * `storeSessionMessages`' part of `ms_write_messages`: creates the conversation `p_session` unless
 * it exists, locks it, and gives the batch its timestamps under that lock: a message whose id is
 * stored in the conversation keeps its stored timestamp; the others (core sent `p_now + i`) move
 * to `start + i`, `start = greatest(p_now, last_activity_at + 1)` (`p_now` for a new
 * conversation). Concurrent sessions of one conversation queue on the lock, so they never
 * interleave. A new timestamp past `Number.MAX_SAFE_INTEGER` (the activity is at the end of time)
 * refuses the write. Every statement names the conversation (one partition in the partitioned
 * layout).
 */
export function sessionTimestamps(s: string): string {
  return `IF p_session IS NOT NULL THEN
    ${insertConversationFrom(s, "p_session")}
    IF NOT FOUND THEN
      SELECT c.last_activity_at INTO activity FROM ${s}.conversations c
       WHERE c.id = p_session->>'id' FOR NO KEY UPDATE;
      shift := greatest(p_now, activity + 1) - p_now;
      SELECT jsonb_agg(CASE WHEN m.id IS NULL
                            THEN x.value || jsonb_build_object('timestamp', (x.value->>'timestamp')::bigint + shift)
                            ELSE x.value || jsonb_build_object('timestamp', m."timestamp") END
                       ORDER BY x.ord)
        INTO p_batch
        FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS x(value, ord)
        LEFT JOIN ${s}.messages m
               ON m.id = x.value->>'id' AND m.conversation_id = p_session->>'id';
      IF EXISTS (SELECT 1 FROM jsonb_array_elements(p_batch) AS x(value)
                  WHERE (x.value->>'timestamp')::bigint > ${Number.MAX_SAFE_INTEGER}) THEN
        ${raiseRule("'session_end_of_time'", { conversation: "p_session->>'id'", activity: "activity::text" })}
      END IF;
    END IF;
  END IF;`;
}

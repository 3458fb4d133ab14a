import { recordDefinition } from "./column-lists.js";
import { MESSAGE } from "./columns.js";
import { claimIds, takeOver } from "./id-lookups.js";
import { incomingRules, NAMES, RESULT, upsert, values, WRITE_FUNCTIONS } from "./message-writes.js";
import { quoteIdent } from "./quote.js";
import { sessionTimestamps } from "./session-timestamps.js";
import { refuse } from "./sqlstates.js";

/**
 * The partitioned layout's `ms_write_messages`: the default layout's batch write
 * (`message-writes.ts`: the same upsert, rules, refusals and result, one upsert for all of the
 * batch's messages) with the id claims of `id-lookups.ts`, so that a statement never reads or
 * locks a record but by its conversation (one partition; one shard on Citus, where a statement
 * over several shards cannot lock rows):
 *
 * 1. the batch's conversations are locked and their activity advanced one statement each, in id
 *    order (concurrent batches queue instead of deadlocking); what the rules need of them (owners,
 *    `deletedAt`) is kept in `convs`, and for a soft-deleted one, which of the batch's ids it
 *    already stores (`here`);
 * 2. the ids are claimed in one statement, in id order (`claimIds`): from then on no other write
 *    of these ids can run until this one commits. An id stored in another conversation is
 *    recorded in `moved` (refused by the upsert's rules below, in array order like every other
 *    refusal); one whose record is gone from there is taken over;
 * 3. the upsert reads only the batch and those variables (no table), so Citus evaluates it on
 *    the coordinator and sends each conversation's rows to its shard.
 *
 * One message is a batch of one: a PL/pgSQL function keeps its plans either way.
 */

/** `c`, the batch's conversations as read under their locks. */
const CONVERSATIONS = `SELECT k.key AS id, k.value->>0 AS user_id, k.value->>1 AS tenant_id,
           (k.value->>2)::bigint AS deleted_at FROM jsonb_each(convs) k`;

/** The batch's ids and conversations, for the claims. */
const IDS = `SELECT r.id, r."conversationId" AS conversation_id
      FROM jsonb_to_recordset(p_batch) AS r(id text, "conversationId" text)`;

/**
 * The rules on an incoming message `x` whose id `moved` finds in another conversation (checked
 * after the default layout's incoming rules, where its stored rules would be).
 */
function movedRules(s: string, x: (column: string) => string): string {
  const found = (i: number) => `(moved -> ${x("id")} ->> ${i})`;
  const ids = { message: x("id"), conversation: x("conversation_id") };
  return `
    WHEN moved ? ${x("id")}
         AND (${found(1)} <> c.user_id OR ${found(2)} IS DISTINCT FROM c.tenant_id)
      THEN ${refuse(s, "'message_owner'", ids)}
    WHEN moved ? ${x("id")}
      THEN ${refuse(s, "'moved_message'", { ...ids, current: found(0) })}`;
}

function writeBatch(s: string): string {
  const x = (column: string) => `x.${quoteIdent(column)}`;
  const absent = `NOT (here ? ${x("id")}) AND NOT (moved ? ${x("id")})`;
  return `CREATE OR REPLACE FUNCTION ${s}.${WRITE_FUNCTIONS.batch}(
  p_batch jsonb, p_session jsonb, p_now bigint)
RETURNS ${RESULT} LANGUAGE plpgsql AS $fn$
DECLARE
  activity bigint;
  shift bigint;
  sess record;
  cid text;
  ts bigint;
  conv record;
  e record;
  found_row record;
  convs jsonb := '{}';
  here jsonb := '{}';
  moved jsonb := '{}';
BEGIN
  ${sessionTimestamps(s)}
  FOR cid, ts IN SELECT r."conversationId" COLLATE "C", max(r."timestamp")
                   FROM jsonb_to_recordset(p_batch) AS r("conversationId" text, "timestamp" bigint)
                  GROUP BY 1 ORDER BY 1 LOOP
    UPDATE ${s}.conversations c SET last_message_at = GREATEST(c.last_message_at, ts)
     WHERE c.id = cid RETURNING c.user_id, c.tenant_id, c.deleted_at INTO conv;
    CONTINUE WHEN NOT FOUND;
    convs := convs || jsonb_build_object(cid, jsonb_build_array(conv.user_id, conv.tenant_id, conv.deleted_at));
    IF conv.deleted_at IS NOT NULL THEN
      here := here || coalesce((SELECT jsonb_object_agg(m.id, true) FROM ${s}.messages m
                                 WHERE m.conversation_id = cid
                                   AND m.id IN (SELECT i.id FROM (${IDS}) i
                                                 WHERE i.conversation_id = cid)), '{}');
    END IF;
  END LOOP;
  ${claimIds(
    s,
    "messages",
    IDS,
    `SELECT m.conversation_id, m.user_id, m.tenant_id INTO found_row FROM ${s}.messages m
     WHERE m.id = e.id AND m.conversation_id = e.home;
    IF FOUND THEN
      moved := moved || jsonb_build_object(e.id, jsonb_build_array(
        found_row.conversation_id, found_row.user_id, found_row.tenant_id));
    ELSE
      ${takeOver(s, "messages")}
    END IF;`,
  )}
  RETURN QUERY
  WITH x AS (
    SELECT * FROM ROWS FROM (jsonb_to_recordset(p_batch) AS (
      ${recordDefinition(MESSAGE, "      ")}))
    WITH ORDINALITY AS x(${NAMES}, ord)
  ), c AS (
    ${CONVERSATIONS}
  )
  INSERT INTO ${s}.messages AS m (${NAMES})
  SELECT ${values(x)}
    FROM x LEFT JOIN c ON c.id = x.conversation_id
   WHERE ${incomingRules(s, x, absent, movedRules(s, x))}
   ORDER BY x.ord -- seq (the column default) is drawn in this order: array order = receipt order
  ${upsert(s, true)}
END
$fn$;`;
}

/** The partitioned layout's `ms_write_messages` for schema `s`; `""` for the default layout. */
export function partitionedWriteFunctions(s: string, partitioned: boolean): string {
  return partitioned ? writeBatch(s) : "";
}

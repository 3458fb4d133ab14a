import { forgetIds, homeOf, lockedHomeOf } from "./id-lookups.js";
import { ownedBy } from "./scope-conditions.js";

/**
 * The partitioned layout's calls keyed by a message id alone, as SQL functions: each reads the
 * id's conversation from `message_ids` (`id-lookups.ts`), then names it in the statement on the
 * record, so each statement reads one partition (on Citus, each is routed to one shard: a
 * subquery on the lookup would not be, since Citus prunes shards on constants and parameters
 * only). The default layout's statements (`queries.ts`) read the primary key directly and do
 * not call these; they are installed for the partitioned layout only.
 *
 * The scope (`p_user_id`, `p_tenant_id`, NULL for none) is a condition on the record's own
 * owners, as in the default layout's statements (`scope-conditions.ts`).
 */

/** The names of these functions. */
export const ID_READ_FUNCTION_NAMES = [
  "ms_read_message",
  "ms_flag_message",
  "ms_delete_message",
  "ms_read_trace_by_message",
  "ms_set_embeddings",
] as const;

const SCOPE = "p_user_id text, p_tenant_id text";
const scoped = (alias: string) => ownedBy("p_user_id", "p_tenant_id", `${alias}.`);

/**
 * A function of one message id: `home` is looked up first (its lookup row locked for a delete,
 * see `id-lookups.ts`); `body` names it.
 */
function byId(s: string, signature: string, returns: string, body: string, lock = false): string {
  return `CREATE OR REPLACE FUNCTION ${s}.${signature}
RETURNS ${returns} LANGUAGE plpgsql AS $fn$
DECLARE
  home text;
BEGIN
  ${lock ? lockedHomeOf(s, "messages", "p_id") : homeOf(s, "messages", "p_id")}
  ${body}
END
$fn$;`;
}

/** `ms_read_message(id, include_deleted, user, tenant)`: the message, or no row. */
function readMessage(s: string): string {
  return byId(
    s,
    `ms_read_message(p_id text, p_include_deleted boolean, ${SCOPE})`,
    `SETOF ${s}.messages`,
    `RETURN QUERY SELECT m.* FROM ${s}.messages m
   WHERE m.id = p_id AND m.conversation_id = home AND (p_include_deleted OR m.deleted_at IS NULL)
     AND ${scoped("m")};`,
  );
}

/** `ms_flag_message(id, flagged, user, tenant)`: the live message as flagged, or no row. */
function flagMessage(s: string): string {
  return byId(
    s,
    `ms_flag_message(p_id text, p_flagged boolean, ${SCOPE})`,
    `SETOF ${s}.messages`,
    `RETURN QUERY UPDATE ${s}.messages m SET is_flagged = p_flagged
   WHERE m.id = p_id AND m.conversation_id = home AND m.deleted_at IS NULL AND ${scoped("m")}
  RETURNING m.*;`,
  );
}

/**
 * `ms_delete_message(id, user, tenant)`: one row (the id) when the message was deleted (its trace
 * with it, by the foreign key), with its lookup row.
 */
function deleteMessage(s: string): string {
  return byId(
    s,
    `ms_delete_message(p_id text, ${SCOPE})`,
    "SETOF text",
    `DELETE FROM ${s}.messages m
   WHERE m.id = p_id AND m.conversation_id = home AND ${scoped("m")};
  IF FOUND THEN
    ${forgetIds(s, "messages", "ARRAY[p_id]")}
    RETURN NEXT p_id;
  END IF;`,
    true,
  );
}

/** `ms_read_trace_by_message(message_id, include_deleted, user, tenant)`: the trace, or no row. */
function readTraceByMessage(s: string): string {
  return byId(
    s,
    `ms_read_trace_by_message(p_id text, p_include_deleted boolean, ${SCOPE})`,
    `SETOF ${s}.turn_traces`,
    `RETURN QUERY SELECT t.* FROM ${s}.turn_traces t
   WHERE t.message_id = p_id AND t.conversation_id = home
     AND (p_include_deleted OR t.deleted_at IS NULL) AND ${scoped("t")};`,
  );
}

/**
 * `ms_set_embeddings(updates jsonb, user, tenant)`: sets each embedding whose message is live and
 * still has the text it was computed from; one row (the id) per message set.
 */
function setEmbeddings(s: string): string {
  return `CREATE OR REPLACE FUNCTION ${s}.ms_set_embeddings(p_updates jsonb, ${SCOPE})
RETURNS SETOF text LANGUAGE plpgsql AS $fn$
DECLARE
  home text;
  u record;
BEGIN
  FOR u IN SELECT * FROM jsonb_to_recordset(p_updates)
             AS r(id text, "originalContent" text, embedding double precision[]) LOOP
    ${homeOf(s, "messages", "u.id")}
    UPDATE ${s}.messages m SET embedding = u.embedding
     WHERE m.id = u.id AND m.conversation_id = home AND m.deleted_at IS NULL
       AND m.original_content = u."originalContent" AND ${scoped("m")};
    IF FOUND THEN
      RETURN NEXT u.id;
    END IF;
  END LOOP;
END
$fn$;`;
}

/** The functions' `CREATE OR REPLACE`, for the partitioned layout only (else nothing). */
export function idReadFunctions(s: string, partitioned: boolean): string {
  if (!partitioned) return "";
  return [readMessage, flagMessage, deleteMessage, readTraceByMessage, setEmbeddings]
    .map((f) => f(s))
    .join("\n\n");
}

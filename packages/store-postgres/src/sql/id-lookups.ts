import { partitionedTable } from "./partitioned-layout.js";
import { SQLSTATE_MOVED_MESSAGE } from "./sqlstates.js";

/**
 * How the partitioned layout keeps message and trace ids unique across the store, and finds a
 * record by its id alone, without probing every partition: an id → conversation lookup table per
 * kind of id, `message_ids` and `trace_ids`, hash-partitioned (on Citus: distributed) by the id,
 * written by the SQL functions in the same transaction as the record. This is the pattern Citus
 * documents for a secondary unique key of a table distributed by another column.
 *
 * - The lookup's primary key holds the id's uniqueness: a writer claims the id with
 *   `INSERT … ON CONFLICT (id) DO NOTHING`; a concurrent claim of the same id waits for the first
 *   to commit or roll back, then finds its row.
 * - A call keyed by the id alone reads the lookup (one partition), then the record in its
 *   conversation's partition: two partitions, whatever their number.
 * - Deletes that name the ids (`deleteMessage`, purge, `deleteUserData`) remove their lookup rows;
 *   a conversation's hard delete (a cascade) leaves them: a row whose record is gone is a stale
 *   hint, which readers resolve to "absent" and a writer of the id takes over (below).
 *
 * A writer whose id the lookup places in another conversation `home` locks `home` (every writer
 * of a record holds its conversation's lock, so a write of the id there that has not committed
 * yet is waited for), then reads the record there: found, the write is refused (MS002 or an
 * owner rule); gone, the writer moves the lookup row to its own conversation.
 */

/** The lookup table of a kind of id. */
export const LOOKUP = { messages: "message_ids", turn_traces: "trace_ids" } as const;

/** The tables whose ids a lookup holds. */
type Ids = keyof typeof LOOKUP;

/**
 * The partitioned layout's lookups, `partitions` hash partitions each, filled from the records
 * already stored (an existing store's migration).
 */
export function idLookupsSql(s: string, partitions: number): string {
  return (Object.keys(LOOKUP) as Ids[])
    .map((table) => {
      const lookup = LOOKUP[table];
      const body = [
        'id text COLLATE "C" NOT NULL',
        'conversation_id text COLLATE "C" NOT NULL',
        `CONSTRAINT ${lookup}_pkey PRIMARY KEY (id)`,
      ];
      return `${partitionedTable(s, lookup, "id", body, partitions)}
INSERT INTO ${s}.${lookup} (id, conversation_id)
  SELECT r.id, r.conversation_id FROM ${s}.${table} r ORDER BY r.id
ON CONFLICT (id) DO NOTHING;`;
    })
    .join("\n");
}

/**
 * PL/pgSQL claiming the id `id` (an SQL expression) of `table` for the conversation
 * `conversation`, into the `text` variable `home`: NULL when this call created the lookup row,
 * else the conversation the lookup names. Loops in the rare case where the row is deleted
 * between the two statements.
 */
export function claimId(s: string, table: Ids, id: string, conversation: string): string {
  const lookup = `${s}.${LOOKUP[table]}`;
  return `LOOP
    INSERT INTO ${lookup} (id, conversation_id) VALUES (${id}, ${conversation})
    ON CONFLICT (id) DO NOTHING;
    IF FOUND THEN
      home := NULL;
      EXIT;
    END IF;
    SELECT l.conversation_id INTO home FROM ${lookup} l WHERE l.id = ${id};
    EXIT WHEN FOUND;
  END LOOP;`;
}

/**
 * PL/pgSQL moving the lookup row of `id` from `home` (whose record is gone) to `conversation`;
 * raises MS002 naming the conversation that took it meanwhile, if one did.
 */
export function takeOver(s: string, table: Ids, id: string, conversation: string): string {
  const lookup = `${s}.${LOOKUP[table]}`;
  return `UPDATE ${lookup} l SET conversation_id = ${conversation}
     WHERE l.id = ${id} AND l.conversation_id = home;
    IF NOT FOUND THEN
      SELECT l.conversation_id INTO home FROM ${lookup} l WHERE l.id = ${id};
      ${raiseMoved(id, conversation, "home")}
    END IF;`;
}

/** PL/pgSQL reading into the `text` variable `home` the conversation of `id` (NULL: none). */
export function homeOf(s: string, table: Ids, id: string): string {
  return `SELECT l.conversation_id INTO home FROM ${s}.${LOOKUP[table]} l WHERE l.id = ${id};`;
}

/** SQL deleting the lookup rows of the ids in the `text[]` expression `ids`. */
export function forgetIds(s: string, table: Ids, ids: string): string {
  return `DELETE FROM ${s}.${LOOKUP[table]} l WHERE l.id = ANY (${ids});`;
}

/** Raises MS002 (the message would move) with these ids (SQL expressions). */
export function raiseMoved(message: string, conversation: string, current: string): string {
  return `RAISE EXCEPTION 'message cannot move to another conversation'
      USING ERRCODE = '${SQLSTATE_MOVED_MESSAGE}',
      DETAIL = jsonb_build_object('message', ${message}, 'conversation', ${conversation},
                                  'current', ${current})::text;`;
}

import { partitionedTable } from "./partitioned-layout.js";
import { SQLSTATE_MOVED_MESSAGE } from "./sqlstates.js";

/**
 * How the partitioned layout keeps message and trace ids unique across the store, and finds a
 * record by its id alone, without probing every partition: an id → conversation lookup table per
 * kind of id, `message_ids` and `trace_ids`, hash-partitioned (on Citus: distributed) by the id,
 * written by the SQL functions in the same transaction as the record. This is the pattern Citus
 * documents for a secondary unique key of a table distributed by another column.
 *
 * - The lookup's primary key holds the id's uniqueness.
 * - A call keyed by the id alone reads the lookup (one partition), then the record in its
 *   conversation's partition: two partitions, whatever their number.
 * - Deletes that name the ids (`deleteMessage`, purge, `deleteUserData`) remove their lookup rows;
 *   a conversation's hard delete (a cascade) leaves them: a row whose record is gone is a stale
 *   hint, which readers resolve to "absent" and a writer of the id takes over (below).
 *
 * Every write that creates, re-creates, moves or removes a record holds its id's lookup row
 * locked (`FOR UPDATE`) from before it touches the record until it commits, so the writes of one
 * id queue there whatever their conversations, and none can remove a lookup row between another's
 * read of it and its write of the record:
 *
 * - a writer claims its ids in one statement ({@link claimIds}), which inserts the missing lookup
 *   rows and locks the existing ones (an `ON CONFLICT DO UPDATE` locks the row it meets even when
 *   its `WHERE` is false, so a row already naming the writer's conversation is locked, not
 *   rewritten);
 * - a delete by id locks the row ({@link lockIds}, {@link lockedHomeOf}) before it deletes the
 *   record, then deletes the row with it.
 *
 * Locks are taken in id order (`COLLATE "C"`), after the conversations' locks. A writer whose id
 * the lookup places in another conversation reads the record there: found (no writer can remove
 * it while the row is locked, and a conversation's delete in flight still shows it), the write is
 * refused (MS002 or an owner rule); gone, the writer moves the lookup row to its own conversation.
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
 * PL/pgSQL claiming, in one statement, the ids of `table` that the query `source` yields (columns
 * `id`, `conversation_id`), and looping (`FOR e IN`, a `record` variable) over those whose lookup
 * row names another conversation: `e.id`, `e.home` (the lookup's conversation), `e.conversation`
 * (the writer's). `body` is the loop's body.
 */
export function claimIds(s: string, table: Ids, source: string, body: string): string {
  const lookup = `${s}.${LOOKUP[table]}`;
  return `FOR e IN WITH claimed AS (
      INSERT INTO ${lookup} AS l (id, conversation_id)
      SELECT x.id, x.conversation_id FROM (${source}) x ORDER BY x.id COLLATE "C"
      ON CONFLICT (id) DO UPDATE SET conversation_id = l.conversation_id
       WHERE l.conversation_id <> EXCLUDED.conversation_id
      RETURNING l.id, l.conversation_id)
    SELECT claimed.id, claimed.conversation_id AS home, x.conversation_id AS conversation
      FROM claimed JOIN (${source}) x ON x.id = claimed.id
     WHERE claimed.conversation_id <> x.conversation_id LOOP
    ${body}
  END LOOP;`;
}

/** PL/pgSQL moving the lookup row of `e.id` (claimed, so locked) to `e.conversation`. */
export function takeOver(s: string, table: Ids): string {
  return `UPDATE ${s}.${LOOKUP[table]} l SET conversation_id = e.conversation WHERE l.id = e.id;`;
}

/**
 * PL/pgSQL locking the lookup rows of the ids in the `text[]` expression `ids`, in id order, one
 * statement each (Citus locks rows only in a statement routed to one shard); `cid` is a `text`
 * variable.
 */
export function lockIds(s: string, table: Ids, ids: string): string {
  return `FOR cid IN SELECT u.id FROM unnest(${ids}) AS u(id) ORDER BY u.id COLLATE "C" LOOP
    PERFORM 1 FROM ${s}.${LOOKUP[table]} l WHERE l.id = cid FOR UPDATE;
  END LOOP;`;
}

/**
 * PL/pgSQL reading into the `text` variable `home` the conversation of `id` (NULL: none), its
 * lookup row locked (see {@link lockIds}).
 */
export function lockedHomeOf(s: string, table: Ids, id: string): string {
  return `SELECT l.conversation_id INTO home FROM ${s}.${LOOKUP[table]} l WHERE l.id = ${id} FOR UPDATE;`;
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

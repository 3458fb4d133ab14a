import { quoteLiteral } from "./quote.js";
import { SQLSTATE_MOVED_MESSAGE } from "./sqlstates.js";

/**
 * How the partitioned layout keeps message and trace ids unique across conversations. Its keys
 * include `conversation_id` (PostgreSQL and Citus require it of every unique constraint of a
 * partitioned or distributed table), so no constraint stops the same id from being written into
 * two conversations. The SQL functions (`functions.ts`, `trace-function.ts`) do instead, in
 * PL/pgSQL fragments built here:
 *
 * 1. after locking the conversations, every write of a message id takes a transaction-level
 *    advisory lock on that id (`hashtext` of it, in a key space of the schema's), in hash order;
 *    a batch of more than {@link MAX_ID_LOCKS} ids takes one exclusive lock on the whole key
 *    space instead, and single writes hold that one shared, so a batch never fills the server's
 *    lock table (`max_locks_per_transaction`);
 * 2. under the lock it looks the id up in every partition (a probe of each primary key, since
 *    `id` leads it) and refuses the write (MS002, nothing stored) when the id is in another
 *    conversation. A concurrent writer of the same id waits for the lock, and its lookup, a new
 *    statement under READ COMMITTED, sees the first one's committed row.
 *
 * Trace ids work the same way, with key spaces of their own.
 * Writers of different ids never wait for each other, except behind a large batch.
 */

/** Most ids a batch locks one by one; a larger batch locks the schema's whole key space. */
export const MAX_ID_LOCKS = 64;

/** The first advisory lock key of a key space of schema `s`: a hash of its name. */
function space(s: string, name: string): string {
  return `hashtext(${quoteLiteral(`${s}.${name}`)})`;
}

/** The ids of a table: messages' or traces'. */
type Ids = "messages" | "turn_traces";

/**
 * Locks the ids of `table` that `ids` (an SQL query of one text column) names, in hash order, or
 * the whole key space when `count` (an SQL expression) exceeds {@link MAX_ID_LOCKS}. Needs an
 * `integer` variable `h`.
 */
export function lockIds(s: string, table: Ids, ids: string, count: string): string {
  const every = space(s, `${table}:every id`);
  return `IF ${count} > ${MAX_ID_LOCKS} THEN
    PERFORM pg_advisory_xact_lock(${every}, 0);
  ELSE
    PERFORM pg_advisory_xact_lock_shared(${every}, 0);
    FOR h IN SELECT DISTINCT hashtext(i.id) FROM (${ids}) AS i(id) ORDER BY 1 LOOP
      PERFORM pg_advisory_xact_lock(${space(s, `${table}:id`)}, h);
    END LOOP;
  END IF;`;
}

/** Locks one id (an SQL expression) of `table`, as {@link lockIds} does for a small batch. */
export function lockId(s: string, table: Ids, id: string): string {
  return `PERFORM pg_advisory_xact_lock_shared(${space(s, `${table}:every id`)}, 0);
  PERFORM pg_advisory_xact_lock(${space(s, `${table}:id`)}, hashtext(${id}));`;
}

/** Raises MS002 (the message would move) with the ids of the record `bad`. */
export function raiseMoved(message: string, conversation: string, current: string): string {
  return `RAISE EXCEPTION 'message cannot move to another conversation'
      USING ERRCODE = '${SQLSTATE_MOVED_MESSAGE}',
      DETAIL = jsonb_build_object('message', ${message}, 'conversation', ${conversation},
                                  'current', ${current})::text;`;
}

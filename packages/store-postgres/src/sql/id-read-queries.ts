import { selectList } from "./column-lists.js";
import { MESSAGE, TURN_TRACE } from "./columns.js";

/**
 * The partitioned layout's statements of the calls keyed by a message id alone, in place of the
 * default layout's (`queries.ts`): each calls its function (`id-read-functions.ts`), which reads
 * the id's conversation from `message_ids` and then one partition. Same parameters and rows as
 * the statements they replace.
 */
export function idReadQueries(s: string) {
  return {
    readMessage: `SELECT ${selectList(MESSAGE)} FROM ${s}.ms_read_message($1, $2, $3, $4)`,
    flagMessage: `SELECT ${selectList(MESSAGE)} FROM ${s}.ms_flag_message($1, $2, $3, $4)`,
    /** One row per message deleted. */
    deleteMessage: `SELECT id FROM ${s}.ms_delete_message($1, $2, $3) AS d(id)`,
    readTraceByMessage: `SELECT ${selectList(TURN_TRACE)} FROM ${s}.ms_read_trace_by_message($1, $2, $3, $4)`,
    /** One row per embedding set. */
    setEmbeddings: `SELECT id FROM ${s}.ms_set_embeddings($1::jsonb, $2, $3) AS e(id)`,
  };
}

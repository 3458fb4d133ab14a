import { columnList, recordDefinition, recordFields } from "./column-lists.js";
import { CONVERSATION_WRITE } from "./columns.js";

/**
 * PL/pgSQL creating the conversation of the JSON object `json` (an SQL expression; the model's
 * fields) unless its id exists, so that `FOUND` says whether it was created. Needs a `record`
 * variable `sess`. The object is read into `sess` first and inserted with `VALUES`: on Citus an
 * `INSERT … SELECT … ON CONFLICT DO NOTHING` into a distributed partitioned table reports a row
 * even when the conflict skipped it (seen with Citus 13.2.2), which `VALUES` does not.
 */
export function insertConversationFrom(s: string, json: string, indent = "    "): string {
  return `SELECT * INTO sess FROM jsonb_to_record(${json}) AS x(
${indent}  ${recordDefinition(CONVERSATION_WRITE, `${indent}  `)});
${indent}INSERT INTO ${s}.conversations (
${indent}  ${columnList(CONVERSATION_WRITE, "", `${indent}  `)})
${indent}VALUES (
${indent}  ${recordFields(CONVERSATION_WRITE, "sess", `${indent}  `)})
${indent}ON CONFLICT (id) DO NOTHING;`;
}

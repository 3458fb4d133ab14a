import type { CheckpointFilter, Scope } from "@message-store/core";
import type { CheckpointKey, PageRequest } from "@message-store/core/adapter";
import { encodeText, toJsonParam } from "../nul-codec.js";
import { Params, type Statement } from "./params.js";
import { quoteIdent } from "./quote.js";
import { ownedBy, ownerConditions } from "./scope-conditions.js";

/**
 * The checkpoint reads and `deleteCheckpoints`, one statement each. A thread's checkpoints are
 * visible while its conversation is live and in the scope: every statement joins the
 * conversation and filters on it. A checkpoint comes back with its channel values (the version
 * `channel_versions` names for each channel, by channel) and its pending writes (by task path,
 * task, index) as parallel arrays, `bytea` values as they are.
 */

/** The select list of a checkpoint row `cp` with its values (`v`) and writes (`w`). */
const CHECKPOINT_COLUMNS = `cp.conversation_id, cp.namespace, cp.id, cp.parent_id, cp.type,
       cp.checkpoint, cp.channel_versions, cp.metadata,
       v.channels, v.versions, v.types AS value_types, v.data AS value_data,
       w.task_ids, w.task_paths, w.idxs, w.channels AS write_channels,
       w.types AS write_types, w.data AS write_data`;

/**
 * The laterals that gather a checkpoint `cp`'s values and writes; `pin` (a parameter) names the
 * conversation again in each, so Citus routes a read of one thread to one shard (it does not
 * carry the equality through the `LIMIT` subquery).
 */
function valuesAndWrites(s: string, pin = "", pushdown = false): string {
  const pinned = pin ? ` AND x.conversation_id = ${pin}` : "";
  // Pushed down to Citus' shards, a set-returning function inside the lateral fails there
  // ("invalid attnum"): the values are then matched to the checkpoint's versions by key.
  const values = pushdown
    ? `FROM ${s}.checkpoint_values x
   WHERE x.conversation_id = cp.conversation_id AND x.namespace = cp.namespace
     AND x.version = cp.channel_versions ->> x.channel${pinned}`
    : `FROM jsonb_each_text(cp.channel_versions) AS e(channel, version)
    JOIN ${s}.checkpoint_values x
      ON x.conversation_id = cp.conversation_id AND x.namespace = cp.namespace
     AND x.channel = e.channel AND x.version = e.version${pinned}`;
  return `CROSS JOIN LATERAL (
  SELECT array_agg(x.channel ORDER BY x.channel) AS channels,
         array_agg(x.version ORDER BY x.channel) AS versions,
         array_agg(x.type ORDER BY x.channel) AS types,
         array_agg(x.value ORDER BY x.channel) AS data
    ${values}
) v
CROSS JOIN LATERAL (
  SELECT array_agg(x.task_id ORDER BY x.task_path, x.task_id, x.idx) AS task_ids,
         array_agg(x.task_path ORDER BY x.task_path, x.task_id, x.idx) AS task_paths,
         array_agg(x.idx ORDER BY x.task_path, x.task_id, x.idx) AS idxs,
         array_agg(x.channel ORDER BY x.task_path, x.task_id, x.idx) AS channels,
         array_agg(x.type ORDER BY x.task_path, x.task_id, x.idx) AS types,
         array_agg(x.value ORDER BY x.task_path, x.task_id, x.idx) AS data
    FROM ${s}.checkpoint_writes x
   WHERE x.conversation_id = cp.conversation_id AND x.namespace = cp.namespace
     AND x.checkpoint_id = cp.id${pinned}
) w`;
}

const ORDER = "ORDER BY cp.id DESC, cp.conversation_id DESC, cp.namespace DESC";

/**
 * The checkpoint statements of one schema, for its layout. `partitioned`: `listCheckpoints`
 * joins the values and writes in the same query level as its `ORDER BY … LIMIT` instead of over a
 * limited subquery, so that Citus pushes the whole query down to each shard (every join is on the
 * conversation) and merges the shards' first rows; over a subquery it refuses the laterals
 * ("complex joins"). The default layout keeps the subquery, which bounds the laterals to the page.
 */
export function checkpointQueries(schema: string, partitioned = false) {
  const s = quoteIdent(schema);
  return {
    /**
     * `$1` conversation, `$2` namespace, `$3` checkpoint id or NULL (the latest), `$4`, `$5` the
     * scope: the primary key finds the row, backwards for the latest.
     */
    readCheckpoint: `SELECT ${CHECKPOINT_COLUMNS}
  FROM (SELECT cp.* FROM ${s}.checkpoints cp
          JOIN ${s}.conversations c ON c.id = cp.conversation_id
         WHERE cp.conversation_id = $1 AND cp.namespace = $2
           AND ($3::text IS NULL OR cp.id = $3::text)
           AND c.id = $1 AND c.deleted_at IS NULL AND ${ownedBy("$4", "$5", "c.")}
         ORDER BY cp.id DESC LIMIT 1) cp
${valuesAndWrites(s, "$1")}`,

    /** Newest first after the cursor: a thread's by its primary key, an owner's through theirs. */
    listCheckpoints(
      scope: Scope,
      filter: CheckpointFilter,
      page: PageRequest<CheckpointKey>,
    ): Statement {
      const p = new Params();
      const where = ["c.deleted_at IS NULL", ...ownerConditions(scope, p, "c.")];
      let pin = "";
      if (filter.conversationId !== undefined) {
        pin = p.add(encodeText(filter.conversationId));
        where.push(`cp.conversation_id = ${pin}`, `c.id = ${pin}`);
      }
      if (filter.namespace !== undefined)
        where.push(`cp.namespace = ${p.add(encodeText(filter.namespace))}`);
      if (filter.before !== undefined) where.push(`cp.id < ${p.add(encodeText(filter.before))}`);
      if (filter.metadata !== undefined) {
        where.push(`NOT EXISTS (SELECT 1 FROM jsonb_each(${p.add(toJsonParam(filter.metadata))}::jsonb) f
                    WHERE cp.metadata -> f.key IS DISTINCT FROM f.value)`);
      }
      if (page.after !== null) {
        const { id, conversationId, namespace } = page.after;
        where.push(
          `(cp.id, cp.conversation_id, cp.namespace) < (${p.add(encodeText(id))}, ${p.add(encodeText(conversationId))}, ${p.add(encodeText(namespace))})`,
        );
      }
      if (partitioned) {
        return {
          text: `SELECT ${CHECKPOINT_COLUMNS}
  FROM ${s}.checkpoints cp
  JOIN ${s}.conversations c ON c.id = cp.conversation_id
${valuesAndWrites(s, pin, true)}
 WHERE ${where.join("\n   AND ")}
${ORDER} LIMIT ${p.add(page.take)}`,
          values: p.values,
        };
      }
      return {
        text: `SELECT ${CHECKPOINT_COLUMNS}
  FROM (SELECT cp.* FROM ${s}.checkpoints cp
          JOIN ${s}.conversations c ON c.id = cp.conversation_id
         WHERE ${where.join("\n           AND ")}
         ${ORDER} LIMIT ${p.add(page.take)}) cp
${valuesAndWrites(s, pin)}
${ORDER}`,
        values: p.values,
      };
    },

    /**
     * `$1` conversation, `$2`, `$3` the scope: deletes the thread's checkpoint rows under the
     * conversation's lock (a put waits, or goes first), and answers whether it exists.
     */
    deleteCheckpoints: `WITH c AS (
  SELECT id FROM ${s}.conversations
   WHERE id = $1 AND ${ownedBy("$2", "$3")} FOR NO KEY UPDATE
), a AS (
  DELETE FROM ${s}.checkpoints x USING c WHERE x.conversation_id = c.id AND x.conversation_id = $1
), b AS (
  DELETE FROM ${s}.checkpoint_values x USING c WHERE x.conversation_id = c.id AND x.conversation_id = $1
), d AS (
  DELETE FROM ${s}.checkpoint_writes x USING c WHERE x.conversation_id = c.id AND x.conversation_id = $1
)
SELECT count(*) > 0 AS done FROM c`,

    putCheckpoint: `SELECT ${s}.ms_put_checkpoint($1::jsonb, $2::jsonb, $3::bytea, $4::text[],
  $5::text[], $6::text[], $7::integer[], $8::bytea, $9::jsonb, $10::bigint, $11::jsonb)`,

    putCheckpointWrites: `SELECT ${s}.ms_put_checkpoint_writes($1::jsonb, $2::text, $3::text,
  $4::text, $5::text, $6::integer[], $7::text[], $8::text[], $9::integer[], $10::bytea)`,
  };
}

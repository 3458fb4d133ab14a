import pg from "pg";
const client = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/scope_explain" });
await client.connect();
const cols = `id, conversation_id, user_id, tenant_id, role, original_content, "timestamp", is_flagged, metadata`;
const variants = {
  ctx_old: [`SELECT * FROM (SELECT ${cols}, seq FROM messages WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL ORDER BY "timestamp" DESC, seq DESC LIMIT $2) n ORDER BY "timestamp", seq`, ["big", 50]],
  ctx_or_unscoped: [`SELECT * FROM (SELECT ${cols}, seq FROM messages WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL AND ($3::text IS NULL OR user_id = $3::text) AND ($4::text IS NULL OR tenant_id = $4::text) ORDER BY "timestamp" DESC, seq DESC LIMIT $2) n ORDER BY "timestamp", seq`, ["big", 50, null, null]],
  ctx_or_user: [`SELECT * FROM (SELECT ${cols}, seq FROM messages WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL AND ($3::text IS NULL OR user_id = $3::text) AND ($4::text IS NULL OR tenant_id = $4::text) ORDER BY "timestamp" DESC, seq DESC LIMIT $2) n ORDER BY "timestamp", seq`, ["big", 50, "user-big", null]],
  ctx_variant_user: [`SELECT * FROM (SELECT ${cols}, seq FROM messages WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL AND user_id = $3 ORDER BY "timestamp" DESC, seq DESC LIMIT $2) n ORDER BY "timestamp", seq`, ["big", 50, "user-big"]],
  ctx_or_other: [`SELECT * FROM (SELECT ${cols}, seq FROM messages WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL AND ($3::text IS NULL OR user_id = $3::text) AND ($4::text IS NULL OR tenant_id = $4::text) ORDER BY "timestamp" DESC, seq DESC LIMIT $2) n ORDER BY "timestamp", seq`, ["big", 50, "user-7", null]],
  ctx_variant_other: [`SELECT * FROM (SELECT ${cols}, seq FROM messages WHERE conversation_id = $1 AND NOT is_flagged AND deleted_at IS NULL AND user_id = $3 ORDER BY "timestamp" DESC, seq DESC LIMIT $2) n ORDER BY "timestamp", seq`, ["big", 50, "user-7"]],
  msg_old: [`SELECT ${cols} FROM messages WHERE id = $1 AND ($2 OR deleted_at IS NULL)`, ["msg-77", false]],
  msg_or_unscoped: [`SELECT ${cols} FROM messages WHERE id = $1 AND ($2 OR deleted_at IS NULL) AND ($3::text IS NULL OR user_id = $3::text) AND ($4::text IS NULL OR tenant_id = $4::text)`, ["msg-77", false, null, null]],
  msg_or_user: [`SELECT ${cols} FROM messages WHERE id = $1 AND ($2 OR deleted_at IS NULL) AND ($3::text IS NULL OR user_id = $3::text) AND ($4::text IS NULL OR tenant_id = $4::text)`, ["msg-77", false, "user-18", null]],
};
for (const [name, [text, values]] of Object.entries(variants)) {
  for (const mode of ["auto", "force_generic_plan"]) {
    await client.query(`SET plan_cache_mode = ${mode}`);
    const stmtName = `${name}_${mode}`;
    for (let i = 0; i < 200; i++) await client.query({ name: stmtName, text, values });
    const t0 = process.hrtime.bigint();
    const N = 2000;
    for (let i = 0; i < N; i++) await client.query({ name: stmtName, text, values });
    const us = Number(process.hrtime.bigint() - t0) / 1000 / N;
    const plan = (await client.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE ${stmtName}(${values.map((v) => v === null ? "NULL" : typeof v === "string" ? `'${v}'` : v).join(",")})`)).rows.map((r) => r["QUERY PLAN"]).filter((l) => /Scan|Filter|Rows Removed/.test(l)).map((l) => l.trim()).join(" | ");
    console.log(name.padEnd(18), mode.padEnd(20), us.toFixed(1).padStart(7), "µs", plan.slice(0, 220));
  }
}
await client.end();

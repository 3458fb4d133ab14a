import { script } from "./keys.js";

/*
 * Conversation writes. Each is one script, so the owner and `deletedAt` checks run in the write
 * they guard, and a cascade (delete, soft delete, restore) is never seen half done.
 */

/**
 * ARGV: id, json, user, tenant, del, upd → the conversation's row. Refuses (nothing written) when
 * the conversation exists with another owner or another `deletedAt`; keeps `lma`.
 */
export const STORE_CONVERSATION = script(`
local id, json, user, tenant, del, upd = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
local k = key('c', id)
local old = redis.call('HMGET', k, 'user', 'tenant', 'del')
if old[1] and (old[1] ~= user or old[2] ~= tenant) then refuse('conversation-owner', 1) end
if old[1] and old[3] ~= del then refuse('conversation-deleted-at', 1) end
putConversation(id, json, user, tenant, del, upd)
return conversationRow(k)`);

/** ARGV: id → 1, or 0 when absent or out of scope. */
export const DELETE_CONVERSATION = script(`
if not inScope(key('c', ARGV[4])) then return 0 end
dropConversation(ARGV[4])
return 1`);

/**
 * ARGV: id, deletedAt → 1, or 0 when absent, out of scope or already soft-deleted. Stamps the
 * conversation and its live messages and traces with one stamp, later than every stamp already
 * in it, so that a restore can tell what was deleted with it.
 */
export const SOFT_DELETE_CONVERSATION = script(`
local id = ARGV[4]
local k = key('c', id)
if not inScope(k) or redis.call('HGET', k, 'del') ~= '' then return 0 end
local stamp = tonumber(ARGV[5])
local records = {}
for _, mid in ipairs(redis.call('SMEMBERS', key('cm', id))) do
  local mk = key('m', mid)
  records[#records + 1] = mk
  local tid = redis.call('HGET', mk, 'trace')
  if tid then records[#records + 1] = key('t', tid) end
end
for _, rk in ipairs(records) do
  local at = redis.call('HGET', rk, 'del')
  if at ~= '' and tonumber(at) >= stamp then stamp = tonumber(at) + 1 end
end
redis.call('HSET', k, 'del', stamp)
for _, rk in ipairs(records) do
  if redis.call('HGET', rk, 'del') == '' then redis.call('HSET', rk, 'del', stamp) end
end
return 1`);

/**
 * ARGV: id → 1, or 0 when absent, out of scope or live. Clears the stamp on the conversation and
 * on its messages and traces that carry the same stamp.
 */
export const RESTORE_CONVERSATION = script(`
local id = ARGV[4]
local k = key('c', id)
if not inScope(k) then return 0 end
local stamp = redis.call('HGET', k, 'del')
if stamp == '' then return 0 end
for _, mid in ipairs(redis.call('SMEMBERS', key('cm', id))) do
  local mk = key('m', mid)
  local m = redis.call('HMGET', mk, 'del', 'trace')
  if m[1] == stamp then redis.call('HSET', mk, 'del', '') end
  if m[2] and redis.call('HGET', key('t', m[2]), 'del') == stamp then
    redis.call('HSET', key('t', m[2]), 'del', '')
  end
end
redis.call('HSET', k, 'del', '')
return 1`);

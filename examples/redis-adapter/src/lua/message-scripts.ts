import { script } from "./keys.js";

/*
 * Message writes. A batch is one script: every message is checked against the stored state
 * before the first write, so a refused batch stores nothing, and a reader never sees part of
 * it. `storeSessionMessages` is the same script with the conversation to create and `now`: the
 * timestamps are chosen inside it, after the conversation's newest activity as it is at that
 * moment, so two sessions writing one conversation never interleave.
 */

/** Arguments per message: id, then `messageArgs` (json, conv, user, tenant, ts, flag, del, content, emb). */
export const MESSAGE_ARGS = 10;

/**
 * ARGV: now ('' for a plain batch), the conversation to create if missing (id, json, user,
 * tenant, del, upd; six '' for none), then MESSAGE_ARGS per message → per message {timestamp,
 * tenant, '1' when a stale embedding was cleared}.
 */
export const STORE_MESSAGES = script(`
local now, ensure = ARGV[4], ARGV[5]
local first = 11
local n = (#ARGV - first + 1) / ${MESSAGE_ARGS}
local created = ensure ~= '' and redis.call('EXISTS', key('c', ensure)) == 0

-- The conversation's user, tenant, del, upd, lma: as stored, or as about to be created.
local function conversation(cid)
  if created and cid == ensure then return {ARGV[7], ARGV[8], ARGV[9], ARGV[10], ''} end
  local c = redis.call('HMGET', key('c', cid), 'user', 'tenant', 'del', 'upd', 'lma')
  if c[1] then return c end
end

for i = 1, n do
  local b = first + (i - 1) * ${MESSAGE_ARGS}
  local id, cid, user, tenant, del = ARGV[b], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 7]
  local c = conversation(cid)
  if not c then refuse('conversation-missing', i) end
  if user ~= c[1] or (tenant ~= '' and tenant ~= c[2]) then refuse('conversation-owner', i) end
  local old = redis.call('HMGET', key('m', id), 'conv', 'user', 'tenant', 'del')
  if old[1] then
    if old[2] ~= c[1] or old[3] ~= c[2] then refuse('message-owner', i) end
    if old[1] ~= cid then refuse('message-moves', i) end
    if old[4] ~= del then refuse('message-deleted-at', i) end
  elseif c[3] ~= '' and del == '' then
    refuse('conversation-soft-deleted', i)
  end
end

-- Checked: write. A session's new messages go after the conversation's newest activity.
local start
if now ~= '' then
  start = tonumber(now)
  if not created then
    local c = conversation(ensure)
    start = math.max(start, math.max(tonumber(c[4]), tonumber(c[5]) or 0) + 1)
  end
end
-- No timestamp goes past Number.MAX_SAFE_INTEGER (exact in Lua's doubles up to 2^53).
if start and start + (n - 1) > 9007199254740991 then
  error({err = 'MS_REFUSED end-of-time 1 ' .. string.format('%d', start - 1)})
end
if created then putConversation(ensure, ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]) end
local out = {}
for i = 1, n do
  local b = first + (i - 1) * ${MESSAGE_ARGS}
  local id, cid, content, emb = ARGV[b], ARGV[b + 2], ARGV[b + 8], ARGV[b + 9]
  local k, ck = key('m', id), key('c', cid)
  local old = redis.call('HMGET', k, 'seq', 'ts', 'content', 'emb')
  local tenant = redis.call('HGET', ck, 'tenant')
  -- A string: node-redis reads integer replies above 2^53 / 2 imprecisely.
  local ts = ARGV[b + 5]
  if start then ts = old[1] and old[2] or string.format('%d', start + i - 1) end
  local stale = old[1] and emb ~= '' and old[3] ~= content and old[4] == emb
  if stale then emb = '' end
  redis.call('HSET', k, 'json', ARGV[b + 1], 'conv', cid, 'user', ARGV[b + 3], 'tenant', tenant,
    'ts', ts, 'seq', old[1] or redis.call('INCR', p .. ':seq'), 'flag', ARGV[b + 6],
    'del', ARGV[b + 7], 'content', content, 'emb', emb)
  redis.call('SADD', key('cm', cid), id)
  local lma = tonumber(redis.call('HGET', ck, 'lma'))
  if not lma or tonumber(ts) > lma then redis.call('HSET', ck, 'lma', ts) end
  out[i] = {ts, tenant, stale and '1' or '0'}
end
return out`);

/** ARGV: id, flag ('1'/'0') → the message's row, or nil when absent, out of scope or deleted. */
export const FLAG_MESSAGE = script(`
local k = key('m', ARGV[4])
if not inScope(k) or redis.call('HGET', k, 'del') ~= '' then return nil end
redis.call('HSET', k, 'flag', ARGV[5])
return messageRow(k)`);

/** ARGV: id, deletedAt → 1, or 0 when absent, out of scope or already deleted. */
export const SOFT_DELETE_MESSAGE = script(`
local k = key('m', ARGV[4])
if not inScope(k) or redis.call('HGET', k, 'del') ~= '' then return 0 end
redis.call('HSET', k, 'del', ARGV[5])
local tid = redis.call('HGET', k, 'trace')
if tid and redis.call('HGET', key('t', tid), 'del') == '' then
  redis.call('HSET', key('t', tid), 'del', ARGV[5])
end
return 1`);

/**
 * ARGV: id → 1, or 0 when absent, out of scope or live; refused while its conversation is
 * soft-deleted. Restores the trace deleted with it (same stamp).
 */
export const RESTORE_MESSAGE = script(`
local k = key('m', ARGV[4])
if not inScope(k) then return 0 end
local m = redis.call('HMGET', k, 'del', 'conv', 'trace')
if m[1] == '' then return 0 end
if redis.call('HGET', key('c', m[2]), 'del') ~= '' then
  refuse('restore-in-deleted-conversation', 1)
end
redis.call('HSET', k, 'del', '')
if m[3] and redis.call('HGET', key('t', m[3]), 'del') == m[1] then
  redis.call('HSET', key('t', m[3]), 'del', '')
end
return 1`);

/** ARGV: id → 1, or 0 when absent or out of scope. The conversation's `lma` stays. */
export const DELETE_MESSAGE = script(`
if not inScope(key('m', ARGV[4])) then return 0 end
dropMessage(ARGV[4])
return 1`);

/**
 * ARGV: (id, originalContent, embedding json) per update → how many were set: each only on a
 * live message in the scope whose text is still the one the embedding was computed from.
 */
export const SET_EMBEDDINGS = script(`
local set = 0
for b = 4, #ARGV, 3 do
  local k = key('m', ARGV[b])
  if inScope(k) then
    local m = redis.call('HMGET', k, 'del', 'content')
    if m[1] == '' and m[2] == ARGV[b + 1] then
      redis.call('HSET', k, 'emb', ARGV[b + 2])
      set = set + 1
    end
  end
end
return set`);

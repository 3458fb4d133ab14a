/**
 * Every write and every read is one Lua script, so Redis runs it atomically: a batch, a cascade
 * and an integrity check commit together, and a list is one snapshot. The scripts never decode
 * or re-encode a record's JSON (Lua's cjson would round numbers to 14 digits); the fields a check
 * needs travel beside it as separate arguments. ARGV[1] is the key prefix.
 *
 * Keys: `c:<id>` conversation hash (json, user, lma = newest message timestamp ever stored),
 * `convs` and `u:<user>` id sets, `cm:<conversation>` its message ids, `m:<id>` message hash
 * (json, conv, seq, flag), `seq` the receipt counter, `t:<id>` trace hash (json, msg),
 * `mt:<message>` its trace id, `traces` the trace id set.
 */

const INTEGRITY = (reason: string) => `return redis.error_reply('MS_INTEGRITY ' .. ${reason})`;

/** Drops a conversation with its messages and traces; returns {messages, traces} or nil. */
const DROP_CONVERSATION = `
local function dropConversation(p, id)
  local key = p .. ':c:' .. id
  local user = redis.call('HGET', key, 'user')
  if not user then return nil end
  local nm, nt = 0, 0
  for _, mid in ipairs(redis.call('SMEMBERS', p .. ':cm:' .. id)) do
    local tid = redis.call('GET', p .. ':mt:' .. mid)
    if tid then
      redis.call('DEL', p .. ':t:' .. tid, p .. ':mt:' .. mid)
      redis.call('SREM', p .. ':traces', tid)
      nt = nt + 1
    end
    redis.call('DEL', p .. ':m:' .. mid)
    nm = nm + 1
  end
  redis.call('DEL', key, p .. ':cm:' .. id)
  redis.call('SREM', p .. ':convs', id)
  redis.call('SREM', p .. ':u:' .. user, id)
  return {nm, nt}
end
`;

const CREATE_OR_CHECK_CONVERSATION = `
local function putConversation(p, id, user, json, replace)
  local key = p .. ':c:' .. id
  local owner = redis.call('HGET', key, 'user')
  if owner and owner ~= user then return false end
  if replace or not owner then
    redis.call('HSET', key, 'json', json, 'user', user)
    redis.call('SADD', p .. ':convs', id)
    redis.call('SADD', p .. ':u:' .. user, id)
  end
  return true
end
`;

export const SCRIPTS = {
  /** ARGV: p, id, user, json → the conversation's lma ('' when none). */
  storeConversation: `${CREATE_OR_CHECK_CONVERSATION}
local p, id = ARGV[1], ARGV[2]
if not putConversation(p, id, ARGV[3], ARGV[4], true) then
  ${INTEGRITY("'conversation ' .. id .. ' belongs to another user'")}
end
return redis.call('HGET', p .. ':c:' .. id, 'lma') or ''`,

  /** ARGV: p, id → {json, lma} or nil. */
  getConversation: `
local r = redis.call('HMGET', ARGV[1] .. ':c:' .. ARGV[2], 'json', 'lma')
if not r[1] then return nil end
return {r[1], r[2] or ''}`,

  /** ARGV: p, set suffix ('convs' or 'u:<user>') → flat {json, lma, …}. */
  listConversations: `
local p, out = ARGV[1], {}
for _, id in ipairs(redis.call('SMEMBERS', p .. ':' .. ARGV[2])) do
  local r = redis.call('HMGET', p .. ':c:' .. id, 'json', 'lma')
  out[#out + 1] = r[1]
  out[#out + 1] = r[2] or ''
end
return out`,

  /** ARGV: p, id → 1 or 0. */
  deleteConversation: `${DROP_CONVERSATION}
return dropConversation(ARGV[1], ARGV[2]) and 1 or 0`,

  /** ARGV: p, user → {conversations, messages, traces}. */
  deleteUserData: `${DROP_CONVERSATION}
local p, nc, nm, nt = ARGV[1], 0, 0, 0
for _, id in ipairs(redis.call('SMEMBERS', p .. ':u:' .. ARGV[2])) do
  local r = dropConversation(p, id)
  if r then nc, nm, nt = nc + 1, nm + r[1], nt + r[2] end
end
return {nc, nm, nt}`,

  /**
   * ARGV: p, ensure id ('' for none), ensure user, ensure json, then per message: id,
   * conversation, json, flag ('1'/'0'), timestamp. Checks everything before writing anything.
   */
  storeMessages: `${CREATE_OR_CHECK_CONVERSATION}
local p, ensureId, ensureUser, ensureJson = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local n = (#ARGV - 4) / 5
if ensureId ~= '' then
  local owner = redis.call('HGET', p .. ':c:' .. ensureId, 'user')
  if owner and owner ~= ensureUser then
    ${INTEGRITY("'conversation ' .. ensureId .. ' belongs to another user'")}
  end
end
for i = 0, n - 1 do
  local id, conv = ARGV[5 + i * 5], ARGV[6 + i * 5]
  if conv ~= ensureId and redis.call('EXISTS', p .. ':c:' .. conv) == 0 then
    ${INTEGRITY("'conversation ' .. conv .. ' does not exist'")}
  end
  local old = redis.call('HGET', p .. ':m:' .. id, 'conv')
  if old and old ~= conv then
    ${INTEGRITY("'message ' .. id .. ' belongs to conversation ' .. old")}
  end
end
if ensureId ~= '' then putConversation(p, ensureId, ensureUser, ensureJson, false) end
for i = 0, n - 1 do
  local b = 5 + i * 5
  local id, conv, ts = ARGV[b], ARGV[b + 1], ARGV[b + 4]
  local key = p .. ':m:' .. id
  local seq = redis.call('HGET', key, 'seq') or redis.call('INCR', p .. ':seq')
  redis.call('HSET', key, 'json', ARGV[b + 2], 'conv', conv, 'seq', seq, 'flag', ARGV[b + 3])
  redis.call('SADD', p .. ':cm:' .. conv, id)
  local ckey = p .. ':c:' .. conv
  local lma = redis.call('HGET', ckey, 'lma')
  if not lma or tonumber(ts) > tonumber(lma) then redis.call('HSET', ckey, 'lma', ts) end
end
return n`,

  /** ARGV: p, id → {json, seq, flag} or nil. */
  getMessage: `
local r = redis.call('HMGET', ARGV[1] .. ':m:' .. ARGV[2], 'json', 'seq', 'flag')
if not r[1] then return nil end
return r`,

  /** ARGV: p, id, flag → {json, seq, flag} or nil. */
  flagMessage: `
local key = ARGV[1] .. ':m:' .. ARGV[2]
if redis.call('EXISTS', key) == 0 then return nil end
redis.call('HSET', key, 'flag', ARGV[3])
return redis.call('HMGET', key, 'json', 'seq', 'flag')`,

  /** ARGV: p, id → 1 or 0 (the conversation's lma stays). */
  deleteMessage: `
local p, id = ARGV[1], ARGV[2]
local conv = redis.call('HGET', p .. ':m:' .. id, 'conv')
if not conv then return 0 end
local tid = redis.call('GET', p .. ':mt:' .. id)
if tid then
  redis.call('DEL', p .. ':t:' .. tid, p .. ':mt:' .. id)
  redis.call('SREM', p .. ':traces', tid)
end
redis.call('DEL', p .. ':m:' .. id)
redis.call('SREM', p .. ':cm:' .. conv, id)
return 1`,

  /** ARGV: p, conversation → flat {json, seq, flag, …}. */
  listMessages: `
local p, out = ARGV[1], {}
for _, id in ipairs(redis.call('SMEMBERS', p .. ':cm:' .. ARGV[2])) do
  local r = redis.call('HMGET', p .. ':m:' .. id, 'json', 'seq', 'flag')
  out[#out + 1] = r[1]
  out[#out + 1] = r[2]
  out[#out + 1] = r[3]
end
return out`,

  /** ARGV: p, id, message, conversation, json. */
  storeTurnTrace: `
local p, id, mid, conv = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local mconv = redis.call('HGET', p .. ':m:' .. mid, 'conv')
if not mconv then ${INTEGRITY("'message ' .. mid .. ' does not exist'")} end
if mconv ~= conv then ${INTEGRITY("'message ' .. mid .. ' is not in conversation ' .. conv")} end
local oldMsg = redis.call('HGET', p .. ':t:' .. id, 'msg')
if oldMsg and oldMsg ~= mid then ${INTEGRITY("'trace ' .. id .. ' belongs to message ' .. oldMsg")} end
local other = redis.call('GET', p .. ':mt:' .. mid)
if other and other ~= id then ${INTEGRITY("'message ' .. mid .. ' already has trace ' .. other")} end
redis.call('HSET', p .. ':t:' .. id, 'json', ARGV[5], 'msg', mid)
redis.call('SET', p .. ':mt:' .. mid, id)
redis.call('SADD', p .. ':traces', id)
return 1`,

  /** ARGV: p, message → json or nil. */
  getTurnTraceByMessageId: `
local tid = redis.call('GET', ARGV[1] .. ':mt:' .. ARGV[2])
if not tid then return nil end
return redis.call('HGET', ARGV[1] .. ':t:' .. tid, 'json')`,

  /** ARGV: p → every trace's json. */
  listTraces: `
local p, out = ARGV[1], {}
for _, id in ipairs(redis.call('SMEMBERS', p .. ':traces')) do
  out[#out + 1] = redis.call('HGET', p .. ':t:' .. id, 'json')
end
return out`,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

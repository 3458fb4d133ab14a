import { CONVERSATION_ROW, MESSAGE_ROW, TRACE_ROW } from "../record-rows.js";

/*
 * The key layout, under a prefix `p` (the config's `prefix`, so one server holds several stores):
 *
 *   p:c:<id>        conversation hash: json, user, tenant, del, upd, lma (newest message timestamp
 *                   ever stored in it; '' before the first)
 *   p:convs         set of every conversation id
 *   p:u:<user>      set of the user's conversation ids
 *   p:tn:<tenant>   set of the tenant's conversation ids
 *   p:cm:<id>       set of the conversation's message ids
 *   p:m:<id>        message hash: json, conv, user, tenant, ts, seq, flag, del, content, emb,
 *                   trace (its trace's id, when it has one)
 *   p:t:<id>        trace hash: json, msg, conv, user, tenant, del
 *   p:seq           the receipt counter (INCR), which orders messages of equal timestamp
 *
 * Everything hangs under a conversation, and a message's and a trace's owners are always their
 * conversation's, so a scope (a user and/or a tenant) is walked from its conversation index.
 *
 * Every operation is one Lua script, and Redis runs a script alone: nothing else runs between
 * its first and last command. That is the whole concurrency story of this adapter: a write
 * checks the ownership and soft-delete rules and writes in the same script (no check-then-act),
 * a batch or a cascade is seen entirely or not at all, and a read is one consistent snapshot.
 * A script does not roll back on error, so each one checks everything before its first write.
 * Scripts touch keys they compute, not keys declared in KEYS: fine on one server, not on a
 * Redis Cluster (which would need every record of a scope in one hash slot).
 *
 * `PRELUDE` starts every script. ARGV[1] is the prefix, ARGV[2] and ARGV[3] the request's scope
 * (user and tenant, '' for any); a script's own arguments start at ARGV[4].
 */

const fields = (row: readonly string[]) => row.map((f) => `'${f}'`).join(", ");

export const PRELUDE = `
local p, su, st = ARGV[1], ARGV[2], ARGV[3]
local function key(kind, id) return p .. ':' .. kind .. ':' .. id end

-- Refuses the write: the TS side turns the code into the error (refusals.ts). i: which record.
local function refuse(code, i) error({err = 'MS_REFUSED ' .. code .. ' ' .. i}) end

-- Whether the record at k exists and its own user and tenant are in the request's scope.
local function inScope(k)
  local o = redis.call('HMGET', k, 'user', 'tenant')
  return o[1] and (su == '' or o[1] == su) and (st == '' or o[2] == st)
end

-- The ids of the conversations in the scope, read from the narrowest index.
local function scopeConversations()
  local index = p .. ':convs'
  if su ~= '' then index = key('u', su) elseif st ~= '' then index = key('tn', st) end
  local out = {}
  for _, id in ipairs(redis.call('SMEMBERS', index)) do
    if inScope(key('c', id)) then out[#out + 1] = id end
  end
  return out
end

local function conversationRow(k) return redis.call('HMGET', k, ${fields(CONVERSATION_ROW)}) end
local function messageRow(k) return redis.call('HMGET', k, ${fields(MESSAGE_ROW)}) end
local function traceRow(k) return redis.call('HMGET', k, ${fields(TRACE_ROW)}) end

-- Whether a '' or numeric stamp is set and before the number 'limit'.
local function before(at, limit) return at and at ~= '' and tonumber(at) < limit end

local function putConversation(id, json, user, tenant, del, upd)
  redis.call('HSET', key('c', id), 'json', json, 'user', user, 'tenant', tenant, 'del', del,
    'upd', upd)
  redis.call('SADD', p .. ':convs', id)
  redis.call('SADD', key('u', user), id)
  if tenant ~= '' then redis.call('SADD', key('tn', tenant), id) end
end

-- Deletes a message with its trace; returns how many traces went (0 or 1).
local function dropMessage(mid)
  local k = key('m', mid)
  local m = redis.call('HMGET', k, 'conv', 'trace')
  if not m[1] then return 0 end
  if m[2] then redis.call('DEL', key('t', m[2])) end
  redis.call('DEL', k)
  redis.call('SREM', key('cm', m[1]), mid)
  return m[2] and 1 or 0
end

-- Deletes a conversation with its messages and traces; returns {messages, traces}.
local function dropConversation(id)
  local k = key('c', id)
  local c = redis.call('HMGET', k, 'user', 'tenant')
  local nm, nt = 0, 0
  for _, mid in ipairs(redis.call('SMEMBERS', key('cm', id))) do
    nt = nt + dropMessage(mid)
    nm = nm + 1
  end
  redis.call('DEL', k, key('cm', id))
  redis.call('SREM', p .. ':convs', id)
  redis.call('SREM', key('u', c[1]), id)
  if c[2] ~= '' then redis.call('SREM', key('tn', c[2]), id) end
  return {nm, nt}
end
`;

/** A script: the prelude, then `body`. */
export const script = (body: string): string => `${PRELUDE}\n${body}`;

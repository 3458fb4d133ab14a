import { script } from "./keys.js";

/*
 * Hard deletes over a whole scope. Each is one script, so the counts it returns are exactly
 * what went, and no reader sees an erasure or a purge half done.
 */

/** → {conversations, messages, traces}: every conversation in the scope, with everything in it. */
export const DELETE_USER_DATA = script(`
local nc, nm, nt = 0, 0, 0
for _, id in ipairs(scopeConversations()) do
  local r = dropConversation(id)
  nc, nm, nt = nc + 1, nm + r[1], nt + r[2]
end
return {nc, nm, nt}`);

/**
 * ARGV: before → {conversations, messages, traces} soft-deleted strictly before it, in the
 * scope: such conversations with everything in them, such messages with their trace, such traces.
 */
export const PURGE_DELETED = script(`
local limit = tonumber(ARGV[4])
local nc, nm, nt = 0, 0, 0
for _, id in ipairs(scopeConversations()) do
  if before(redis.call('HGET', key('c', id), 'del'), limit) then
    local r = dropConversation(id)
    nc, nm, nt = nc + 1, nm + r[1], nt + r[2]
  else
    for _, mid in ipairs(redis.call('SMEMBERS', key('cm', id))) do
      local m = redis.call('HMGET', key('m', mid), 'del', 'trace')
      if before(m[1], limit) then
        nm, nt = nm + 1, nt + dropMessage(mid)
      elseif m[2] and before(redis.call('HGET', key('t', m[2]), 'del'), limit) then
        redis.call('DEL', key('t', m[2]))
        redis.call('HDEL', key('m', mid), 'trace')
        nt = nt + 1
      end
    end
  end
end
return {nc, nm, nt}`);

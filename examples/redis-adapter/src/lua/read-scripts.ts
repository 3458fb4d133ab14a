import { script } from "./keys.js";

/*
 * Reads. A read by id is one script that applies the scope to the record's own owners, so a
 * record outside the scope is simply absent (nil). Every list, search and aggregate reads one
 * SNAPSHOT of its scope: one script, so a concurrent batch, cascade or erasure is in it entirely
 * or not at all; the TS side filters, orders and pages it with core's helpers.
 */

/** ARGV: id → the conversation's row, or nil when absent or out of scope. */
export const GET_CONVERSATION = script(`
local k = key('c', ARGV[4])
if not inScope(k) then return nil end
return conversationRow(k)`);

/** ARGV: id → the message's row, or nil when absent or out of scope. */
export const GET_MESSAGE = script(`
local k = key('m', ARGV[4])
if not inScope(k) then return nil end
return messageRow(k)`);

/** ARGV: message id → the row of its trace, or nil when none or out of scope. */
export const GET_TRACE = script(`
local tid = redis.call('HGET', key('m', ARGV[4]), 'trace')
if not tid or not inScope(key('t', tid)) then return nil end
return traceRow(key('t', tid))`);

/**
 * ARGV: conversation id ('' for every conversation in the scope), '1' to include messages, '1'
 * to include traces → per conversation {row, message rows, trace rows}.
 */
export const SNAPSHOT = script(`
local ids = {}
if ARGV[4] == '' then ids = scopeConversations()
elseif inScope(key('c', ARGV[4])) then ids = {ARGV[4]} end
local out = {}
for _, id in ipairs(ids) do
  local messages, traces = {}, {}
  if ARGV[5] == '1' or ARGV[6] == '1' then
    for _, mid in ipairs(redis.call('SMEMBERS', key('cm', id))) do
      local mk = key('m', mid)
      if ARGV[5] == '1' then messages[#messages + 1] = messageRow(mk) end
      local tid = ARGV[6] == '1' and redis.call('HGET', mk, 'trace')
      if tid then traces[#traces + 1] = traceRow(key('t', tid)) end
    end
  end
  out[#out + 1] = {conversationRow(key('c', id)), messages, traces}
end
return out`);

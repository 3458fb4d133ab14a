import { script } from "./keys.js";

/*
 * Trace writes. A batch is one script that checks every trace, in array order and against the
 * traces before it in the batch, before the first write: all or nothing (`atomicTraceBatches`),
 * and the error is the first refused trace's, as consecutive single writes would give.
 */

/** Arguments per trace: id, then `traceArgs` (json, msg, conv, user, tenant, del). */
export const TRACE_ARGS = 7;

/** ARGV: TRACE_ARGS per trace → per trace {user, tenant} as stored (the conversation's). */
export const STORE_TURN_TRACES = script(`
local n = (#ARGV - 3) / ${TRACE_ARGS}
local claimed, owners = {}, {}
for i = 1, n do
  local b = 4 + (i - 1) * ${TRACE_ARGS}
  local id, mid, cid = ARGV[b], ARGV[b + 2], ARGV[b + 3]
  local user, tenant, del = ARGV[b + 4], ARGV[b + 5], ARGV[b + 6]
  local c = redis.call('HMGET', key('c', cid), 'user', 'tenant')
  if not c[1] then refuse('conversation-missing', i) end
  if (user ~= '' and user ~= c[1]) or (tenant ~= '' and tenant ~= c[2]) then
    refuse('conversation-owner', i)
  end
  local m = redis.call('HMGET', key('m', mid), 'conv', 'user', 'tenant', 'del', 'trace')
  if not m[1] then refuse('message-missing', i) end
  if m[2] ~= c[1] or m[3] ~= c[2] then refuse('message-owner', i) end
  if m[1] ~= cid then refuse('message-elsewhere', i) end
  local old = redis.call('HMGET', key('t', id), 'msg', 'user', 'tenant', 'del')
  if old[1] and (old[2] ~= c[1] or old[3] ~= c[2]) then refuse('trace-owner', i) end
  if old[1] and old[1] ~= mid then refuse('trace-moves', i) end
  local other = claimed[mid] or m[5]
  if other and other ~= id then refuse('message-has-trace', i) end
  if old[1] and old[4] ~= del then refuse('trace-deleted-at', i) end
  if not old[1] and m[4] ~= '' and del == '' then refuse('message-soft-deleted', i) end
  claimed[mid] = id
  owners[i] = c
end

-- Checked: write.
for i = 1, n do
  local b = 4 + (i - 1) * ${TRACE_ARGS}
  local id, mid = ARGV[b], ARGV[b + 2]
  redis.call('HSET', key('t', id), 'json', ARGV[b + 1], 'msg', mid, 'conv', ARGV[b + 3],
    'user', owners[i][1], 'tenant', owners[i][2], 'del', ARGV[b + 6])
  redis.call('HSET', key('m', mid), 'trace', id)
end
return owners`);

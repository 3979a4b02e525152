-- Creation of one game: its hash, log, events and index entries, and (with a request id) the
-- first reply, written together; a request id that already has a reply writes nothing.
-- KEYS: 1 game hash, 2 log list, 3 event stream, 4 the group's due index, 5 the list index of
--       its state, 6 (only with a request id) the request's reply
-- ARGV: 1 version, 2 snapshot, 3 the record as created, 4 now (ms), 5 ttl seconds,
--       6 versions of events to keep (approximately, at least), 7 the game's id, 8 when the
--       service must act on it next (ms; '' for never), 9 its list member, 10 the sealed
--       reply (or ''), 11 the checkpoint bucket its version opens (or ''), 12 its list state
--       (5, 6 or 7, as save.lua numbers the list indexes),
--       13.. one pair per version after the first: its log entry, then its encoded events
if #KEYS == 6 then
  local first = redis.call('GET', KEYS[6])
  if first then
    return {'REPLAYED', first}
  end
  redis.call('SET', KEYS[6], ARGV[10], 'EX', ARGV[5])
end
local fields = {'v', ARGV[1], 's', ARGV[2], 'o', ARGV[3], 't', ARGV[4], 'x', ARGV[4], 'l', ARGV[12]}
if ARGV[11] ~= '' then
  fields[#fields + 1] = 'c:' .. ARGV[11]
  fields[#fields + 1] = ARGV[2]
  fields[#fields + 1] = 'cv:' .. ARGV[11]
  fields[#fields + 1] = ARGV[1]
end
if ARGV[8] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[8], ARGV[7])
  fields[#fields + 1] = 'd'
  fields[#fields + 1] = ARGV[8]
end
redis.call('HSET', KEYS[1], unpack(fields))
local version = 1
for i = 13, #ARGV, 2 do
  version = version + 1
  redis.call('RPUSH', KEYS[2], ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], version .. '-0', 'a', ARGV[i], 'e', ARGV[i + 1])
end
for i = 1, 3 do
  redis.call('EXPIRE', KEYS[i], ARGV[5])
end
redis.call('ZADD', KEYS[5], 0, ARGV[9])
return {'OK'}

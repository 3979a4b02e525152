-- Compare-and-set of one game: the snapshot, its version, the log, the events of every new
-- version, the request's reply, a checkpoint and the game's index entries change together or
-- not at all.
-- KEYS: 1 game hash {v, s, t, r:<request key>..., c:<bucket>/cv:<bucket>...}, 2 log list,
--       3 event stream, 4 the group's due index, 5..7 the group's list indexes (waiting,
--       running, over)
-- ARGV: 1 expected version, 2 new version, 3 snapshot, 4 ttl seconds, 5 reply (or ''),
--       6 the reply's field (or ''), 7 versions of events to keep (approximately, at least),
--       8 the game's id, 9 its list member, 10 its list state (5, 6 or 7: the key holding
--       it), 11 when the service must act on it next (ms; '' for never), 12 now (ms),
--       13 the checkpoint bucket the new version opens (or ''),
--       14.. one pair per new version: its log entry, then its encoded events
-- A lost race whose request already has a reply (an identical request won it) returns that
-- reply with the game as it is now, so the loser answers as the winner did.
local current = redis.call('HGET', KEYS[1], 'v')
if not current then
  return {'MISSING'}
end
if current ~= ARGV[1] then
  if ARGV[6] ~= '' then
    local found = redis.call('HMGET', KEYS[1], ARGV[6], 's')
    if found[1] then
      return {'REPLAYED', current, found[1], found[2]}
    end
  end
  return {'CONFLICT', current}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 't', ARGV[12])
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[6], ARGV[5])
end
if ARGV[13] ~= '' then
  redis.call('HSET', KEYS[1], 'c:' .. ARGV[13], ARGV[3], 'cv:' .. ARGV[13], ARGV[2])
end
local version = tonumber(ARGV[1])
for i = 14, #ARGV, 2 do
  version = version + 1
  redis.call('RPUSH', KEYS[2], ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], version .. '-0', 'a', ARGV[i], 'e', ARGV[i + 1])
end
for i = 1, 3 do
  redis.call('EXPIRE', KEYS[i], ARGV[4])
end
if ARGV[11] == '' then
  redis.call('ZREM', KEYS[4], ARGV[8])
else
  redis.call('ZADD', KEYS[4], ARGV[11], ARGV[8])
end
local listed = tonumber(ARGV[10])
for i = 5, 7 do
  if i == listed then
    redis.call('ZADD', KEYS[i], 0, ARGV[9])
  else
    redis.call('ZREM', KEYS[i], ARGV[9])
  end
end
return {'OK'}

-- Compare-and-set of one game: the snapshot, its version, the log, the events of every new
-- version, the request's reply, a checkpoint and the game's index entries change together or
-- not at all.
-- KEYS: 1 game hash {v, s, t, l, d, x, r:<request key>..., c:<bucket>/cv:<bucket>...},
--       2 log list, 3 event stream, 4 the group's due index, 5..7 the group's list indexes
--       (waiting, running, over)
-- ARGV: 1 expected version, 2 new version, 3 snapshot, 4 ttl seconds, 5 reply (or ''),
--       6 the reply's field (or ''), 7 versions of events to keep (approximately, at least),
--       8 the game's id, 9 its list member, 10 its list state (5, 6 or 7: the key holding
--       it), 11 when the service must act on it next (ms; '' for never), 12 now (ms),
--       13 the checkpoint bucket the new version opens (or ''), 14 how long an expiry set
--       is left before it is set again (ms),
--       15.. one pair per new version: its log entry, then its encoded events
-- The hash remembers which list index holds the game (l), its due entry (d) and when the
-- keys' expiry was last set (x), so a move writes only what changed: most moves leave the
-- indexes alone and set no expiry.
-- A request that already has a reply (an identical request won a race, or the id is used
-- again) writes nothing and returns that reply with the game as it is now, so the loser
-- answers as the winner did (or the reuse is refused).
local stored = redis.call('HMGET', KEYS[1], 'v', 'l', 'd', 'x', ARGV[6] == '' and 'v' or ARGV[6])
local current = stored[1]
if not current then
  return {'MISSING'}
end
if ARGV[6] ~= '' and stored[5] then
  return {'REPLAYED', current, stored[5], redis.call('HGET', KEYS[1], 's')}
end
if current ~= ARGV[1] then
  return {'CONFLICT', current}
end
local now = tonumber(ARGV[12])
local fields = {'v', ARGV[2], 's', ARGV[3], 't', ARGV[12]}
if ARGV[6] ~= '' then
  fields[#fields + 1] = ARGV[6]
  fields[#fields + 1] = ARGV[5]
end
if ARGV[13] ~= '' then
  fields[#fields + 1] = 'c:' .. ARGV[13]
  fields[#fields + 1] = ARGV[3]
  fields[#fields + 1] = 'cv:' .. ARGV[13]
  fields[#fields + 1] = ARGV[2]
end
local version = tonumber(ARGV[1])
local logged = 0
for i = 15, #ARGV, 2 do
  version = version + 1
  logged = redis.call('RPUSH', KEYS[2], ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], version .. '-0', 'a', ARGV[i], 'e', ARGV[i + 1])
end
local first = logged > 0 and logged == (#ARGV - 14) / 2
if not stored[4] or now - tonumber(stored[4]) >= tonumber(ARGV[14]) then
  fields[#fields + 1] = 'x'
  fields[#fields + 1] = ARGV[12]
  for i = 1, 3 do
    redis.call('EXPIRE', KEYS[i], ARGV[4])
  end
elseif first then
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  redis.call('EXPIRE', KEYS[3], ARGV[4])
end
if ARGV[11] ~= (stored[3] or '') then
  if ARGV[11] == '' then
    redis.call('ZREM', KEYS[4], ARGV[8])
    redis.call('HDEL', KEYS[1], 'd')
  else
    redis.call('ZADD', KEYS[4], ARGV[11], ARGV[8])
    fields[#fields + 1] = 'd'
    fields[#fields + 1] = ARGV[11]
  end
end
if ARGV[10] ~= stored[2] then
  local listed = tonumber(ARGV[10])
  for i = 5, 7 do
    if i == listed then
      redis.call('ZADD', KEYS[i], 0, ARGV[9])
    elseif not stored[2] or i == tonumber(stored[2]) then
      redis.call('ZREM', KEYS[i], ARGV[9])
    end
  end
  fields[#fields + 1] = 'l'
  fields[#fields + 1] = ARGV[10]
end
redis.call('HSET', KEYS[1], unpack(fields))
return {'OK'}

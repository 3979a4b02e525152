-- Compare-and-set of one game: the snapshot, its version, the log, the events of every new
-- version and the request's reply change together or not at all.
-- KEYS: 1 game hash {v, s, r:<request key>...}, 2 log list, 3 event stream
-- ARGV: 1 expected version, 2 new version, 3 snapshot, 4 ttl seconds, 5 reply,
--       6 the reply's field, 7 versions of events to keep (approximately, at least),
--       8.. one pair per new version: its log entry, then its encoded events
local current = redis.call('HGET', KEYS[1], 'v')
if not current then
  return {'MISSING'}
end
if current ~= ARGV[1] then
  return {'CONFLICT', current}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], ARGV[6], ARGV[5])
local version = tonumber(ARGV[1])
for i = 8, #ARGV, 2 do
  version = version + 1
  redis.call('RPUSH', KEYS[2], ARGV[i])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], version .. '-0', 'a', ARGV[i], 'e', ARGV[i + 1])
end
for i = 1, 3 do
  redis.call('EXPIRE', KEYS[i], ARGV[4])
end
return {'OK'}

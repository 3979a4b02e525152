-- Compare-and-set of one game: the snapshot, its version, the log and the request's reply
-- change together or not at all.
-- KEYS: 1 game hash {v, s, r:<request key>...}, 2 log list
-- ARGV: 1 expected version, 2 new version, 3 snapshot, 4 ttl seconds, 5 reply,
--       6 the reply's field, 7.. log entries
local current = redis.call('HGET', KEYS[1], 'v')
if not current then
  return {'MISSING'}
end
if current ~= ARGV[1] then
  return {'CONFLICT', current}
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], ARGV[6], ARGV[5])
for i = 7, #ARGV do
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return {'OK'}

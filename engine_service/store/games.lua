-- Games a key created within a sliding window: admit one more unless ARGV[1] are there.
-- KEYS[1]: sorted set of one member per game (ARGV[3]), scored by when (Redis's clock, ms);
-- ARGV[2]: the window in ms. Members older than the window are dropped first. A member that
-- is there already (a retried CreateGame with the same request_id) is admitted uncounted.
-- Returns {1, 0, count, 1 when counted now else 0} when admitted, or
-- {0, ms until the oldest leaves the window, count, 0}.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if redis.call('ZSCORE', KEYS[1], ARGV[3]) then
  return {1, 0, count, 0}
end
if count >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, math.max(1, tonumber(oldest[2]) + window - now), count, 0}
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return {1, 0, count + 1, 1}

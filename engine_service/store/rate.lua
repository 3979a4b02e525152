-- A token bucket, refilled at ARGV[1] tokens per second up to ARGV[2] (the burst): take one.
-- KEYS[1]: the bucket hash (t: tokens left, ms: last refill, by Redis's own clock, so every
-- server process that shares this Redis shares the bucket and its time).
-- Returns {1, 0, tokens left} when a token was taken, {0, ms until one is there, 0} when not.
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 't', 'ms')
local tokens = tonumber(state[1]) or burst
local last = tonumber(state[2]) or now
if now > last then
  tokens = math.min(burst, tokens + (now - last) * rate / 1000)
  last = now
end
local taken = 0
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
  taken = 1
else
  wait = math.ceil((1 - tokens) * 1000 / rate)
end
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'ms', tostring(last))
-- A full bucket needs no record: it is gone once it would have refilled anyway.
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {taken, wait, math.floor(tokens)}

"""Add one to the counter in a Lua script that redis-py registers: the server runs the
read, the addition and the write as one."""

import os

import redis

r = redis.Redis.from_url(os.environ["REDIS_URL"])
increment = r.register_script("""
local value = tonumber(redis.call('GET', KEYS[1]))
redis.call('SET', KEYS[1], value + 1)
return value + 1
""")
increment(keys=["counter"])

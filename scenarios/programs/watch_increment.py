"""Add one to the counter with optimistic locking, as redis-py's docs show: WATCH, read,
MULTI … EXEC, and start again when EXEC says the counter changed (WatchError)."""

import os

import redis

r = redis.Redis.from_url(os.environ["REDIS_URL"])
with r.pipeline() as pipe:
    while True:
        try:
            pipe.watch("counter")
            value = int(pipe.get("counter"))
            pipe.multi()
            pipe.set("counter", value + 1)
            pipe.execute()
            break
        except redis.WatchError:
            continue  # another client changed the counter after our WATCH: read it again

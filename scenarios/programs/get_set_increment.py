"""Add one to the counter the way a lot of code does: read it, compute, write it back."""

import os

import redis

r = redis.Redis.from_url(os.environ["REDIS_URL"])
value = int(r.get("counter"))
r.set("counter", value + 1)

"""Add one to the counter in one command: the server reads and writes it at once."""

import os

import redis

r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.incr("counter")

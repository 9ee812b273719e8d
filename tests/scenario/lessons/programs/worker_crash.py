"""A worker that takes a job and dies before acknowledging it (exit status 3)."""
import os

import redis

r = redis.Redis.from_url(os.environ["REDIS_URL"])
r.xreadgroup("workers", "a", {"jobs": ">"}, count=1)
raise SystemExit(3)

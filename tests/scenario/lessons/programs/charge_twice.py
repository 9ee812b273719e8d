import redis


def charge(r: redis.Redis, order: str) -> str:
    """The bug: check, then charge (two commands): both workers may charge."""
    if r.get(f"charged:{order}") is None:
        r.set(f"charged:{order}", "yes")
        r.incr("total")
        return "charged"
    return "duplicate"

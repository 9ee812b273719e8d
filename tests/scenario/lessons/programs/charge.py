import redis


def charge(r: redis.Redis, order: str) -> str:
    """Charge an order once: SET NX on its key; a second charge is a duplicate."""
    if r.set(f"charged:{order}", "yes", nx=True):
        r.incr("total")
        return "charged"
    return "duplicate"

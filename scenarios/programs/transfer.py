"""Move money from one balance to another the way a lot of code does: read the balance,
check it covers the amount, write the new balance, credit the other account."""

import redis


def transfer(r: redis.Redis, source: str, target: str, amount: int) -> bool:
    """Move `amount` from `source` to `target`; False (and nothing written) when
    `source` has too little."""
    balance = int(r.get(source))
    if balance < amount:
        return False
    r.set(source, balance - amount)
    r.incrby(target, amount)
    return True

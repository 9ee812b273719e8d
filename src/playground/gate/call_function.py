"""Runs a lesson's function as a program (docs/scenarios.md, "Programs"):

    python call_function.py FILE.py:NAME ARGS-JSON

imports FILE.py (from the lesson's directory, its working directory; as a module named
after the file, so its `if __name__ == "__main__":` part does not run) and calls
NAME(redis.Redis.from_url(os.environ["REDIS_URL"]), *ARGS); a result other than None is
printed, and the result's repr() (None too) is written to the file PLAYGROUND_RESULT
names, where it is set: the program's return value, which a lesson may expect
(scenario/expectations.py). Started by its path with the app's interpreter, it imports
nothing of the playground's; an error in the function ends it with Python's traceback
(its last line is what the playground shows).
"""

import importlib.util
import json
import os
import sys


def main(argv: list[str]) -> None:
    """Import FILE.py and call NAME with a client and the arguments (see above).

    Args:
        argv: this program's sys.argv: [itself, "FILE.py:NAME", ARGS-JSON].
    """
    spec, args = argv[1], json.loads(argv[2])
    file, _, name = spec.rpartition(":")
    path = os.path.abspath(file)
    sys.path[0] = os.path.dirname(path)  # the lesson's modules, not this directory's
    import redis

    module_name = os.path.splitext(os.path.basename(path))[0]
    found = importlib.util.spec_from_file_location(module_name, path)
    if found is None or found.loader is None:
        raise ImportError(f"{file}: not a Python file")
    module = importlib.util.module_from_spec(found)
    sys.modules[module_name] = module
    found.loader.exec_module(module)
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    try:
        result = getattr(module, name)(client, *args)
    finally:
        client.close()
    where = os.environ.get("PLAYGROUND_RESULT")
    if where:
        with open(where, "w", encoding="utf-8", errors="backslashreplace") as out:
            out.write(repr(result))
    if result is not None:
        print(repr(result))


if __name__ == "__main__":
    main(sys.argv)

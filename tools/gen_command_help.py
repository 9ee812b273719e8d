"""Regenerate src/playground/data/command_help.json, the help table used when a server
has no COMMAND DOCS (before Redis 7): python tools/gen_command_help.py [--server PATH]."""

import argparse
import asyncio

from playground.engine.playground import Playground
from playground.engine.help import BUNDLED, HelpIndex


async def main(server: str) -> None:
    async with Playground.create(server_choice=server) as pg:
        reply, = await pg.reader.run([[b"COMMAND", b"DOCS"]])
        index = HelpIndex.from_docs(reply)
        BUNDLED.write_text(index.dump() + "\n")
        print(f"{BUNDLED}: {len(index.entries)} entries from {pg.label}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default="bundled")
    asyncio.run(main(parser.parse_args().server))

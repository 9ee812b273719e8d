"""A replay's connection (Gate.attach: explore/program_tree.py) hands its client library's
handshake together with its first stepped command: the handshake goes to the server with
that command, in one write, once the command is released, not in a round trip of its own
before it (nothing waits for its replies). What the server saw is asked of the server
itself (CLIENT LIST from the playground's own connection). On both servers."""

from __future__ import annotations

import asyncio

from playground.resp.connection import pack_command
from gate_steps import WAIT, gate  # noqa: F401 (a fixture)


async def _name(pg, server_id: int) -> str:
    listed, = await pg.admin.run([[b"CLIENT", b"LIST", b"ID", b"%d" % server_id]])
    fields = dict(f.split("=", 1) for f in bytes(listed).decode().split() if "=" in f)
    return fields["name"]


async def test_a_handshake_handed_with_a_step_goes_to_the_server_with_it(pg, gate):  # noqa: F811
    client = await gate.attach("A", 1)
    handshake, step = gate.hand(client, pack_command([b"CLIENT", b"SETNAME", b"probe"])
                                + pack_command([b"GET", b"k"]))
    assert (handshake.unstepped, step.unstepped) == (True, False)
    assert gate.held("A") == [step]   # (its next command is the step: the handshake is none)
    assert await _name(pg, client.server_id) == "A#1"   # (not sent yet: the gate's own name still)
    assert not handshake.done.done()
    gate.release(step)
    assert await asyncio.wait_for(step.done, WAIT) == b"$-1\r\n"
    assert handshake.done.result() == b"+OK\r\n"
    assert await _name(pg, client.server_id) == "probe"
    assert [h for h in gate.log if h.client is client] == [handshake, step]   # (answered in the order sent)
    assert (handshake.seq, step.seq is not None) == (None, True)   # (the handshake is no line of the program's)


async def test_a_handshake_handed_alone_is_answered_at_once(pg, gate):  # noqa: F811
    client = await gate.attach("A", 1)
    handshake, = gate.hand(client, pack_command([b"CLIENT", b"SETNAME", b"probe"]))
    assert await asyncio.wait_for(handshake.done, WAIT) == b"+OK\r\n"
    assert await _name(pg, client.server_id) == "probe"
    assert gate.held("A") == []

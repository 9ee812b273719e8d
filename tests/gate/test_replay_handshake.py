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


async def test_a_library_name_its_server_connection_has_already_is_not_sent_again(pg, gate):  # noqa: F811
    """CLIENT SETINFO that a server connection was answered OK for keeps (RESET keeps it:
    the explorer's kept connections, gate/upstream_pool.py): a replay's handshake that
    would set it again to the same bytes leaves it out (Gate.unsettled); another value, or
    another connection, still has it sent. The server says what it has (CLIENT LIST) and
    how many it ran (INFO commandstats)."""
    setinfo = [pack_command([b"CLIENT", b"SETINFO", b"lib-name", name]) for name in (b"probe", b"other")]

    async def calls() -> int:
        info, = await pg.admin.run([[b"INFO", b"commandstats"]])
        line = next((x for x in bytes(info).decode().splitlines() if x.startswith("cmdstat_client|setinfo:")), "")
        return int(line.split("calls=")[1].split(",")[0]) if line else 0

    async def lib(server_id: int) -> str:
        listed, = await pg.admin.run([[b"CLIENT", b"LIST", b"ID", b"%d" % server_id]])
        return dict(f.split("=", 1) for f in bytes(listed).decode().split() if "=" in f).get("lib-name", "")

    client = await gate.attach("A", 1)
    first, = gate.hand(client, setinfo[0])
    if await asyncio.wait_for(first.done, WAIT) != b"+OK\r\n":   # (Redis before 7.2 has no CLIENT SETINFO:
        assert gate.unsettled(client, (setinfo[0],)) == (setinfo[0],)   # nothing is left out)
        return
    before = await calls()
    assert gate.unsettled(client, (setinfo[0], setinfo[1])) == (setinfo[1],)
    handshake = gate.unsettled(client, (setinfo[0],))
    step, = gate.hand(client, b"".join(handshake) + pack_command([b"GET", b"k"]))
    gate.release(step)
    assert await asyncio.wait_for(step.done, WAIT) == b"$-1\r\n"
    assert await calls() == before and await lib(client.server_id) == "probe"
    other = await gate.attach("B", 1)
    assert gate.unsettled(other, (setinfo[0],)) == (setinfo[0],)   # (its own connection: not set there)


async def test_a_real_program_taking_over_is_answered_what_its_replay_left_out(pg, gate):  # noqa: F811
    """Where a replay left a CLIENT SETINFO out (its server connection had it already),
    the real program that takes the connection over (Gate.splice) still sends it: it is
    answered OK there, as the server answered it, and the takeover goes on (not taken for
    a program that sends what its replay did not)."""
    from playground.gate.endpoint import socket_path

    setinfo = pack_command([b"CLIENT", b"SETINFO", b"lib-name", b"probe"])
    get = pack_command([b"GET", b"k"])
    client = await gate.attach("A", 1)
    assert client.to_server is not None
    client.to_server.library[b"lib-name"] = setinfo   # (as a kept connection's, from the schedule before)
    assert gate.unsettled(client, (setinfo,)) == ()
    step, = gate.hand(client, get)
    gate.release(step)
    assert await asyncio.wait_for(step.done, WAIT) == b"$-1\r\n"
    failed = []
    url = await gate.splice("A", {1: client}, lambda: failed.append(True))
    reader, writer = await asyncio.open_unix_connection(socket_path(url))
    writer.write(setinfo + get)
    await writer.drain()
    assert await asyncio.wait_for(reader.readexactly(len(b"+OK\r\n$-1\r\n")), WAIT) == b"+OK\r\n$-1\r\n"
    assert failed == []
    writer.close()

"""The inspector on a cluster: every primary's keys, each read on the node that holds it.

`ClusterInspector` is an `Inspector` (its own connection goes to the first node, for what
concerns no key: INFO, SCRIPT EXISTS, COMMAND DOCS) plus one Inspector per primary. A
snapshot merges the primaries' snapshots; `run` sends each command that names a key to
the node serving the key's slot (CRC16 of the key or its {hash tag}, as the server
computes it), so state checks and key details work whichever node holds the key. Where a
command's key is, the catalogue says (engine/catalogue.py `key_positions`, from the
server's key specifications): the inspector's own catalogue, asked on its own node, which
is the playground's on a cluster. `where(name)` says which node holds a key, its slot,
and its replicas.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from playground.engine.catalogue import Catalogue
from playground.engine.key_reader import Inspector, KeyInfo, Snapshot
from playground.resp.connection import Address
from playground.resp.replies import Int, Reply

if TYPE_CHECKING:  # (types only: the engine imports no server module for a --url playground)
    from playground.server.topology import Topology

SLOTS = 16384


def _slot_ranges(reply: object) -> Iterator[tuple[int, int, int]]:
    """(first slot, last slot, its primary's port) of each range in CLUSTER SLOTS's
    reply (an entry of another shape is skipped)."""
    for entry in reply if isinstance(reply, list) else ():
        if (isinstance(entry, list) and len(entry) >= 3 and isinstance(entry[0], Int) and isinstance(entry[1], Int)
                and isinstance(entry[2], list) and len(entry[2]) > 1 and isinstance(entry[2][1], Int)):
            yield int(entry[0]), int(entry[1]), int(entry[2][1])


def _crc16(data: bytes) -> int:
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def key_slot(key: bytes) -> int:
    """The hash slot of `key`: only the part between the first { and the next } when
    that part is not empty (a hash tag)."""
    start = key.find(b"{")
    if start != -1:
        end = key.find(b"}", start + 1)
        if end > start + 1:
            key = key[start + 1:end]
    return _crc16(key) % SLOTS


class _OwnNode:
    """The inspector's own connection, unrouted: what its catalogue asks (COMMAND INFO
    names no key, and routing needs the answer first)."""

    def __init__(self, inspector: ClusterInspector) -> None:
        self._inspector = inspector

    async def run(self, commands: list[list[bytes]]) -> list[Reply]:
        return await Inspector.run(self._inspector, commands)


class ClusterInspector(Inspector):
    """Reads keys on every primary of a private cluster (`topology`)."""

    catalogue: Catalogue

    def __init__(self, address: Address, topology: Topology, cap: int = 100) -> None:
        super().__init__(address, cap=cap)
        self.topology = topology
        self.catalogue = Catalogue(_OwnNode(self))
        self._nodes: dict[int, Inspector] = {}  # port -> an inspector on that node
        self._owner: list[int] = []  # slot -> port of the primary serving it

    def _on(self, port: int) -> Inspector:
        if port == self.address.port:
            return self
        if port not in self._nodes:
            inspector = Inspector(Address(host="127.0.0.1", port=port, username=self.address.username,
                                          password=self.address.password),
                                  cap=self.cap)
            inspector.on_send = self.on_send
            self._nodes[port] = inspector
        return self._nodes[port]

    async def every_key(self) -> list[bytes]:
        """KEYS * on every primary (each holds the keys of its slots)."""
        out: list[bytes] = []
        for port in sorted(set(await self._slot_owners())):
            node = self._on(port)
            reply, = await (super().run([[b"KEYS", b"*"]]) if node is self else node.run([[b"KEYS", b"*"]]))
            out += [bytes(k) for k in reply if isinstance(k, bytes)] if isinstance(reply, list) else []
        return out

    async def _slot_owners(self) -> list[int]:
        reply, = await super().run([[b"CLUSTER", b"SLOTS"]])
        owner = [self.address.port] * SLOTS
        for first, last, port in _slot_ranges(reply):
            for slot in range(first, last + 1):
                owner[slot] = port
        self._owner = owner
        return owner

    def key_of(self, argv: Sequence[bytes]) -> bytes | None:
        """The key `argv` is routed by: its first, where the catalogue knows its name
        (after `learn`; a cluster takes a command's keys in one slot); None for a
        command that names none, or one the catalogue cannot place.

        Args:
            argv: the command line, its name first.
        """
        positions = self.catalogue.key_positions(argv)
        return bytes(argv[min(positions)]) if positions else None

    async def run(self, commands: list[list[bytes]]) -> list[Reply]:
        """Each command on the node serving its key (in order); keyless ones here."""
        await self.catalogue.learn(argv[0] for argv in commands if argv)
        if not self._owner:
            await self._slot_owners()
        targets = []
        for argv in commands:
            key = self.key_of(argv)
            targets.append(self.address.port if key is None else self._owner[key_slot(key)])
        if all(t == self.address.port for t in targets):
            return await super().run(commands)
        replies: list[Reply] = []
        for port, argv in zip(targets, commands, strict=True):
            node = self._on(port)
            replies += await (super().run([argv]) if node is self else node.run([argv]))
        return replies

    async def snapshot(self, pattern: bytes = b"*", pinned: list[bytes] | tuple[bytes, ...] = ()) -> Snapshot:
        owner = await self._slot_owners()
        ports = sorted(set(owner))
        snaps = await asyncio.gather(*(
            Inspector.snapshot(self if port == self.address.port else self._on(port), pattern,
                               [k for k in pinned if owner[key_slot(k)] == port])
            for port in ports))
        keys: list[KeyInfo] = sorted((k for s in snaps for k in s.keys), key=lambda k: k.name)
        shown = keys[: self.cap]
        known = all(s.more >= 0 for s in snaps)
        more = sum(s.more for s in snaps) + len(keys) - len(shown) if known else -1
        progress = [s.progress for s in snaps if s.progress is not None]
        return Snapshot(shown, more, sum(s.total for s in snaps), all(s.complete for s in snaps),
                        min(progress) if progress else None, any(s.read_again for s in snaps))

    def node_of(self, name: bytes) -> str:
        """The name of the node serving `name`'s slot ("node-3"), "" if not known yet."""
        port = self._owner[key_slot(name)] if self._owner else None
        return next((n.name for n in self.topology.nodes if n.port == port), "")

    def where(self, name: bytes) -> str:
        """e.g. "slot 12182 on node-3 (127.0.0.1:PORT), replica node-6"."""
        slot = key_slot(name)
        port = self._owner[slot] if self._owner else None
        node = next((n for n in self.topology.nodes if n.port == port), None)
        if node is None:
            return f"slot {slot}"
        replicas = [n.name for n in self.topology.nodes if n.replica_of is node]
        return f"slot {slot} on {node.name} ({node.describe()})" + (
            f", replica {', '.join(replicas)}" if replicas else "")

    async def detail(self, name: bytes) -> dict[str, str]:
        detail = dict(await super().detail(name))  # its reads go to the key's node (run)
        detail["node"] = self.where(name)
        return detail

    async def close(self) -> None:
        for inspector in self._nodes.values():
            await inspector.close()
        self._nodes.clear()
        await super().close()

"""The servers the playground runs: one private server on a unix socket (`private`), or
a topology of nodes on 127.0.0.1 (`topology`: a primary with replicas, or a cluster formed
in `cluster`; each node in `node`)."""

from playground.server.private import (  # noqa: F401
    PrivateServer, ServerBinary, ServerError, bundled_binary_path, choose_binary, identify,
)
from playground.topology_kinds import SINGLE


def make_server(binary: ServerBinary, topology: str = SINGLE.name, replicas: int | None = None):
    """A PrivateServer for `single`, a Topology (server/topology.py, imported only then) otherwise.

    Args:
        binary: the server binary.
        topology: a name of topology_kinds.NAMES.
        replicas: of the primary, or of each primary of a cluster; None: the topology's default.
    """
    if topology == SINGLE.name:
        return PrivateServer(binary)
    from playground.server.topology import Topology

    return Topology(binary, topology, replicas)

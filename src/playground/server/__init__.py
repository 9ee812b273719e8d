"""The servers the playground runs: one private server on a unix socket (`private`), or
a topology of nodes on 127.0.0.1 (`topology`: a primary with replicas, or a cluster formed
in `cluster`; each node in `node`)."""

from playground.server.private import (  # noqa: F401
    PrivateServer, ServerBinary, ServerError, bundled_binary_path, choose_binary, identify,
)

"""The servers the playground runs: today one private server (`private`); topologies
(a primary with replicas, a cluster) belong here too."""

from playground.server.private import (  # noqa: F401
    PrivateServer, ServerBinary, ServerError, bundled_binary_path, choose_binary, identify,
)

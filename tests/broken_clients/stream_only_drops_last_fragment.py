"""Drops the last arguments fragment when streaming, and reads the same answer whole when
not: its stream disagrees with its own stream=false answer, a bug whatever the contract."""
from mcs_conformance.clients.reference_client import reference_client

from ._reading import pieces
from .drops_last_fragment import _read

WIRE = "openai-chat"
CAUGHT_BY = "client.calls"
SEVERITY = "silent-loss"
EVIDENCE = "self"


def client(base_url: str, wire: str, stream: bool = True) -> dict:
    return pieces(base_url, wire, _read) if stream else reference_client(
        base_url, wire, stream=False)

"""Drops the last arguments fragment when streaming, and the same call's arguments when not:
it agrees with its own stream=false answer, so the difference is its contract, a note."""
from mcs_conformance.clients.reference_client import reference_client

from ._reading import pieces
from .drops_last_fragment import _read

WIRE = "openai-chat"
CAUGHT_BY = "client.calls"
SEVERITY = "silent-loss"
EVIDENCE = "provider"


def client(base_url: str, wire: str, stream: bool = True) -> dict:
    if stream:
        return pieces(base_url, wire, _read)
    whole = reference_client(base_url, wire, stream=False)
    streamed = pieces(base_url, wire, _read)  # what the stream gives, said again
    return {**whole, "calls": streamed["calls"]}

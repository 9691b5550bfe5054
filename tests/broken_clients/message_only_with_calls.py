"""Exposes the native message only when the stream carried a call: a null message then hides
the one it assembled (a client that never exposes one is n/a, not this)."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "ollama-chat"
CAUGHT_BY = "client.message"
SEVERITY = "silent-loss"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    if not outcome["calls"]:
        outcome["message"] = None  # the bug
    return outcome

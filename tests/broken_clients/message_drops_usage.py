"""Exposes a native message without the fields it does not model (the usage)."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "anthropic-messages"
CAUGHT_BY = "client.message"
SEVERITY = "silent-loss"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    if outcome["message"] is not None:
        outcome["message"].pop("usage", None)  # the bug
    return outcome

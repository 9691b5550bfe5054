"""Replaces arguments that do not parse with `{}` (a guarded `json.loads` that hides the
error)."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "openai-chat"
CAUGHT_BY = "client.malformed"
SEVERITY = "silent-loss"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    for call in outcome["calls"]:
        if isinstance(call["arguments"], str):
            call["arguments"] = {}  # the bug
    return outcome

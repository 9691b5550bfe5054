"""Writes `tool_calls: []` into a native message that has no call, where `stream=false`
leaves the key out: the same message in another representation (a fidelity note)."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "openai-chat"
CAUGHT_BY = "client.message"
SEVERITY = "fidelity"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    if outcome["message"] is not None and not outcome["message"].get("tool_calls"):
        outcome["message"]["tool_calls"] = []  # the representation differs
    return outcome

"""Keeps the stream's `index` on each call of the native message it assembles, a key
`stream=false` never carries: the message holds more, not less (a fidelity note)."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "openai-chat"
CAUGHT_BY = "client.message"
SEVERITY = "fidelity"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    for index, call in enumerate((outcome["message"] or {}).get("tool_calls") or ()):
        call["index"] = index  # the key the SDK adds
    return outcome

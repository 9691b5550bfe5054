"""Keys calls by id: two calls that share an id (Ollama's repeated ids) become one."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "ollama-chat"
CAUGHT_BY = "client.calls"
SEVERITY = "silent-loss"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    merged = {}
    for call in outcome["calls"]:
        merged[call["id"] or call["name"]] = call  # the bug: the later call wins
    outcome["calls"] = list(merged.values())
    return outcome

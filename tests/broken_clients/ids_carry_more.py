"""Appends a suffix to every call id it reports (LiteLLM carries Gemini's thought signature
as `<id>__thought__<signature>`): the provider's id is still there, at the start, so the
difference is one of representation (a fidelity note), not a lost id."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "gemini"
CAUGHT_BY = "client.calls"
SEVERITY = "fidelity"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    for call in outcome["calls"]:
        if isinstance(call["id"], str):
            call["id"] += "__thought__c2lnbmF0dXJl"
    return outcome

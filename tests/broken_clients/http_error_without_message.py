"""Reports an HTTP error by its status alone: the provider's message in the body is lost."""
from mcs_conformance.clients import error_outcome
from mcs_conformance.clients.reference_client import reference_client

WIRE = "ollama-chat"
CAUGHT_BY = "client.http-error"
SEVERITY = "fidelity"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    if outcome["error"] and outcome["error"].startswith("HTTP "):
        return error_outcome(outcome["error"].split(":")[0])  # the bug: the body discarded
    return outcome

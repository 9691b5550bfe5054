"""Skips the events it does not know, the provider's `error` and `response.failed` among them,
and takes the end of the body for the end of the response."""
from ._reading import all_chunks, pieces

WIRE = "openai-responses"
CAUGHT_BY = "client.provider-error"
SEVERITY = "false-success"


def _read(response):
    chunks = all_chunks(response)
    return [c for c in chunks if c.get("type") not in ("error", "response.failed")]  # the bug


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

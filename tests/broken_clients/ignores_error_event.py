"""Skips the events it does not know, the provider's `error` and `response.failed` among them,
and takes the end of the body for the end of the response."""
from mcs_reference.sse import BodyDecoder

from ._reading import pieces

WIRE = "openai-responses"
CAUGHT_BY = "client.provider-error"


def _read(response):
    decoder = BodyDecoder(format="sse")
    chunks = []
    while True:
        piece = response.read1(65536)
        if not piece:
            break
        chunks += decoder.feed(piece)
    chunks += decoder.close()
    return [c for c in chunks if c.get("type") not in ("error", "response.failed")]  # the bug


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

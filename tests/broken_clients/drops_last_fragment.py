"""Drops the last arguments fragment of the stream (an off-by-one when flushing calls)."""
from mcs_reference.sse import BodyDecoder

from ._reading import pieces

WIRE = "openai-chat"
CAUGHT_BY = "client.calls"


def _read(response):
    decoder = BodyDecoder(format="sse")
    chunks = []
    while True:
        piece = response.read1(65536)
        if not piece:
            break
        chunks += decoder.feed(piece)
    chunks += decoder.close()
    fragments = [call.get("function", {}) for chunk in chunks
                 for choice in chunk.get("choices") or () if isinstance(choice, dict)
                 for call in (choice.get("delta") or {}).get("tool_calls") or ()
                 if isinstance(call, dict)]
    fragments = [f for f in fragments if isinstance(f, dict) and f.get("arguments")]
    if fragments:
        fragments[-1]["arguments"] = ""  # the bug
    return chunks


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

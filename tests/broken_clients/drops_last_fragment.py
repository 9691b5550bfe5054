"""Drops the last arguments fragment of the stream (an off-by-one when flushing calls)."""
from ._reading import all_chunks, pieces

WIRE = "openai-chat"
CAUGHT_BY = "client.calls"
SEVERITY = "silent-loss"


def _read(response):
    chunks = all_chunks(response)
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

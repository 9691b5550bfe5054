"""Reads each tool-call delta's `index` as a required key: a server that sends whole calls
without `index` (Mistral) makes it raise on a valid stream."""
from ._reading import all_chunks, pieces

WIRE = "openai-chat"
CAUGHT_BY = "client.calls"
SEVERITY = "crash"


def _read(response):
    chunks = all_chunks(response)
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            for delta in (choice.get("delta") or {}).get("tool_calls") or ():
                delta["index"]  # the bug: KeyError when the server leaves it out
    return chunks


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

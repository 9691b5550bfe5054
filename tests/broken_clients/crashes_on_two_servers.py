"""Raises on two servers' shapes, each for its own reason: a tool-call delta without `index`
(Mistral) and a continuation delta repeating `id: ""` (Alibaba Qwen). The clause reports
both, one failure per cause."""
from ._reading import all_chunks, pieces

WIRE = "openai-chat"
CAUGHT_BY = "client.calls"
SEVERITY = "crash"
CAUSES = ({"no-index"}, {"empty-id-continuations"})


def _read(response):
    chunks = all_chunks(response)
    for chunk in chunks:
        for choice in chunk.get("choices") or ():
            for delta in (choice.get("delta") or {}).get("tool_calls") or ():
                delta["index"]  # the first bug: KeyError without it
                if delta.get("id") == "":
                    raise ValueError("empty tool call id")  # the second bug
    return chunks


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

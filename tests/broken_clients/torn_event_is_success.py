"""Drops a torn last event at the end of the body without a word: a body that ends cleanly
inside an event (a framing error) reads as a complete answer, a contract note."""
from ._reading import all_chunks, pieces

WIRE = "anthropic-messages"
CAUGHT_BY = "client.partial-event"
SEVERITY = "contract"


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, all_chunks)

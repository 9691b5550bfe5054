"""Reads the body to its end and takes that for the end of the stream: a body that ends
cleanly before the wire's end signal (no `[DONE]`, no `message_stop`) reads as a complete
answer: whether a client checks the end signal is its contract, a note."""
from ._reading import all_chunks, pieces

WIRE = "openai-chat"
CAUGHT_BY = "client.early-end"
SEVERITY = "contract"


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, all_chunks)

"""Decodes each network read as UTF-8 on its own: a character cut between reads turns into
U+FFFD."""
from mcs_reference.sse import BodyDecoder

from ._reading import pieces

WIRE = "anthropic-messages"
CAUGHT_BY = "client.text"
SEVERITY = "silent-loss"


def _read(response):
    decoder = BodyDecoder(format="sse")
    while True:
        piece = response.read1(65536)
        if not piece:
            break
        yield from decoder.feed(piece.decode("utf-8", "replace").encode("utf-8"))  # the bug
    yield from decoder.close()


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

"""Takes the end of the body, however it came, for the end of the stream: a dropped
connection reads as a complete answer."""
import http.client

from mcs_reference.sse import BodyDecoder

from ._reading import pieces

WIRE = "anthropic-messages"
CAUGHT_BY = "client.truncated"
SEVERITY = "false-success"


def _read(response):
    decoder = BodyDecoder(format="sse")
    try:
        while True:
            piece = response.read1(65536)
            if not piece:
                break
            yield from decoder.feed(piece)
    except http.client.IncompleteRead:  # the bug: a cut body is just the end
        pass
    yield from decoder.close()


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

"""Takes a dropped connection for the end of the stream once `message_delta` (the stop
reason) has arrived: only `message_stop` can be missing then, so nothing is lost, but a cut
stream still reads as a success (a strictness note, not a bug)."""
import http.client

from mcs_reference.sse import BodyDecoder

from ._reading import pieces

WIRE = "anthropic-messages"
CAUGHT_BY = "client.truncated"
SEVERITY = "strictness"


def _read(response):
    decoder = BodyDecoder(format="sse")
    stopped = False
    try:
        while True:
            piece = response.read1(65536)
            if not piece:
                break
            for chunk in decoder.feed(piece):
                stopped = stopped or chunk.get("type") == "message_delta"
                yield chunk
    except http.client.IncompleteRead:
        if not stopped:
            raise
        return  # the bug: the torn last event is dropped, the cut read as the end
    yield from decoder.close()


def client(base_url: str, wire: str) -> dict:
    return pieces(base_url, wire, _read)

"""What the broken clients share with the reference: the request, and the end of the read."""
from __future__ import annotations

from typing import Any, Callable, Iterable

from mcs_conformance.clients import error_outcome
from mcs_conformance.clients.reference_client import open_stream, outcome_of
from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.errors import StreamError
from mcs_reference.sse import BodyDecoder


def all_chunks(response: Any) -> list:
    """Every SSE chunk of the body, read to its end first (the bugs then edit the list)."""
    decoder = BodyDecoder(format="sse")
    chunks = []
    while True:
        piece = response.read1(65536)
        if not piece:
            break
        chunks += decoder.feed(piece)
    return chunks + decoder.close()


def pieces(base_url: str, wire: str, read: Callable[[Any], Iterable[Any]]) -> dict:
    """POST, then feed `read(response)`'s chunks to a buffer and return its outcome, with no
    end-signal check (each broken client's `read` carries its bug)."""
    connection, response = open_stream(base_url, wire)
    try:
        buffer = LLMStreamBuffer()
        try:
            for chunk in read(response):
                buffer.add(chunk)
        except StreamError as exc:
            return error_outcome(f"{type(exc).__name__}: {exc}")
        return outcome_of(buffer)
    finally:
        connection.close()

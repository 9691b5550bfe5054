"""Turn a recorded or live HTTP body (SSE, NDJSON or event-stream bytes) into chunks.

SSE: `data:` lines (several join with newlines), `event:`/`id:`/`retry:` fields in any
order, `:` comments, CRLF or LF, `data: [DONE]` (the end, not a chunk: `iter_chunks` hands it
on as `END_OF_STREAM`, so that a buffer fed from it knows the server said the stream is
complete). NDJSON: one JSON value per line (Ollama, and recordings stored without their SSE
framing). Event stream: Bedrock's binary `application/vnd.amazon.eventstream` frames
(`eventstream.py`), each one chunk `{event type: payload}` as boto3 yields it; a body whose
first byte is NUL is one (its first frame is far below 16 MiB), as no text body starts so.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Iterator

from ._json import shorten
from .errors import MalformedChunk
from .eventstream import FrameDecoder, chunk_of

__all__ = ["END_OF_STREAM", "BodyDecoder", "decode_body", "iter_chunks"]

_SSE_FIELDS = ("data:", "event:", "id:", "retry:", ":")


class _EndOfStream:
    """`END_OF_STREAM`: what `iter_chunks` yields where an SSE body says `data: [DONE]`, the
    server's word that the stream is complete. `LLMStreamBuffer.add(END_OF_STREAM)` marks the
    buffer done (never after a provider error). It is no chunk of any wire."""

    def __repr__(self) -> str:
        return "END_OF_STREAM"


END_OF_STREAM = _EndOfStream()


class BodyDecoder:
    """Incremental decoder: `feed(bytes)` returns the chunks completed so far; `close()` ends."""

    def __init__(self, *, format: str | None = None):
        if format not in (None, "sse", "ndjson", "eventstream"):
            raise ValueError("format must be 'sse', 'ndjson', 'eventstream' or None (detect), "
                             f"got {format!r}")
        self.format = format
        self._frames = FrameDecoder() if format == "eventstream" else None
        self._tail = b""
        self._data: list[str] = []
        self._events = 0
        self._line = 0
        self._error: MalformedChunk | None = None
        self.done = False

    def feed(self, data: bytes) -> list[Any]:
        """Decode what `data` completes; keep a partial last line for the next call.

        When `data` completes good events and then a bad one, the good ones are returned and
        the error is raised by the next `feed` or `close`: events are never lost to an error
        that came in the same network read.
        """
        if self._error is not None:
            raise self._error
        if self.format is None and not self._line and not self._tail and data[:1] == b"\0":
            self.format, self._frames = "eventstream", FrameDecoder()
        if self._frames is not None:
            return self._chunks_of(self._frames.feed(data))
        lines = (self._tail + data).split(b"\n")
        self._tail = lines.pop()
        out: list[Any] = []
        for raw in lines:
            try:
                self._take_line(raw, out)
            except MalformedChunk as exc:
                if not out:
                    raise
                self._error = exc
                break
        return out

    def close(self) -> list[Any]:
        """Flush the last line and any event not followed by a blank line."""
        if self._error is not None:
            raise self._error
        if self._frames is not None:
            self._frames.close()
            return []
        out: list[Any] = []
        if self._tail:
            self._take_line(self._tail, out)
            self._tail = b""
        self._flush(out)
        return out

    def _chunks_of(self, frames: list) -> list[Any]:
        out: list[Any] = []
        for frame in frames:
            try:
                out.append(chunk_of(frame, self._events))
            except MalformedChunk as exc:
                if not out:
                    raise
                self._error = exc
                break
            self._events += 1
        return out

    def _take_line(self, raw: bytes, out: list[Any]) -> None:
        self._line += 1
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError as exc:
            raise MalformedChunk(f"line {self._line} is not UTF-8 ({exc})", index=self._events)
        if self.format is None:
            if not line.strip():
                return
            self.format = "sse" if line.lstrip().startswith(_SSE_FIELDS) else "ndjson"
        if self.format == "ndjson":
            if line.strip():
                out.append(self._parse(line, self._line))
            return
        if not line.strip():
            self._flush(out)
        elif line.startswith("data:"):
            value = line[5:]
            self._data.append(value[1:] if value.startswith(" ") else value)
        # event:, id:, retry: and comments carry nothing a strategy needs: the JSON says it all

    def _flush(self, out: list[Any]) -> None:
        if not self._data:
            return
        text = "\n".join(self._data)
        self._data = []
        if text.strip() == "[DONE]":
            self.done = True
            return
        out.append(self._parse(text, self._line))

    def _parse(self, text: str, line: int) -> Any:
        index = self._events
        self._events += 1
        try:
            return json.loads(text)
        except ValueError as exc:
            shown = shorten(text)
            raise MalformedChunk(
                f"event ending on line {line} is not JSON ({exc}): {shown!r}",
                index=index,
                expected="one JSON object per SSE event or NDJSON line",
            ) from None


def decode_body(body: bytes | str | Iterable[bytes], *, format: str | None = None) -> list[Any]:
    """All chunks of a whole HTTP body (bytes, text, or an iterable of byte pieces); the
    `[DONE]` line is no chunk and is left out."""
    return [chunk for chunk in iter_chunks(body, format=format) if chunk is not END_OF_STREAM]


def iter_chunks(body: bytes | str | Iterable[bytes], *, format: str | None = None) -> Iterator[Any]:
    """Chunks of an HTTP body as they complete, and `END_OF_STREAM` where the body says
    `data: [DONE]`, all to feed to `LLMStreamBuffer.add`; pass a live `iter_bytes()` to
    stream."""
    decoder = BodyDecoder(format=format)
    if isinstance(body, str):
        body = body.encode("utf-8")
    pieces = [body] if isinstance(body, (bytes, bytearray)) else body
    ended = False
    for piece in pieces:
        yield from decoder.feed(bytes(piece))
        if decoder.done and not ended:
            ended = True
            yield END_OF_STREAM
    yield from decoder.close()
    if decoder.done and not ended:
        yield END_OF_STREAM

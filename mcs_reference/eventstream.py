"""The `application/vnd.amazon.eventstream` framing of Bedrock's `converse-stream` body.

A frame is a 12-byte prelude (total length, headers length, both u32 big-endian, and the
CRC32 of those 8 bytes), the headers, the payload, and the CRC32 of everything before it.
A header is a name (u8 length, UTF-8), a type byte and a value: 0 true, 1 false, 2 byte,
3 short, 4 int, 5 long (signed, big-endian), 6 bytes and 7 string (u16 length), 8 timestamp
(i64 milliseconds), 9 uuid (16 bytes). `FrameDecoder` reads frames from bytes cut anywhere;
`chunk_of` turns a frame into the chunk boto3 yields (`{event type: payload}`); the
`encode_*` functions write frames, for servers that replay or invent a stream.
"""
from __future__ import annotations

import json
import struct
import zlib
from typing import Any, NamedTuple

from .errors import MalformedChunk

__all__ = ["Frame", "FrameDecoder", "chunk_of", "encode_chunk_frame", "encode_event_frame",
           "encode_exception_frame", "encode_frame"]

_PRELUDE = 12
_MIN_FRAME = _PRELUDE + 4
# The limits botocore's own decoder enforces: a frame beyond them is not a Bedrock frame.
_MAX_HEADERS = 128 * 1024
_MAX_PAYLOAD = 24 * 1024 * 1024
_FIXED = {2: ">b", 3: ">h", 4: ">i", 5: ">q", 8: ">q"}  # type -> struct format
_SIZED = {6, 7}  # u16 length, then the bytes (7: UTF-8 text)
_UUID = 9
_INT_TYPES = {2: (1, -2 ** 7), 3: (2, -2 ** 15), 4: (4, -2 ** 31), 5: (8, -2 ** 63),
              8: (8, -2 ** 63)}
_EXPECTED = "application/vnd.amazon.eventstream frames (prelude, headers, payload, CRC32s)"


class Frame(NamedTuple):
    """One decoded frame: where it starts in the body, its headers and its payload."""

    offset: int
    headers: dict[str, Any]
    payload: bytes


def _crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


class FrameDecoder:
    """Incremental frame reader: `feed(bytes)` returns the frames completed so far.

    The prelude is checked as soon as its 12 bytes are in, so a corrupt length is reported
    without waiting for bytes that will never come. Errors are `MalformedChunk`s naming the
    frame's byte offset in the body (`frame at byte 1234: ...`) and the chunk index.
    """

    def __init__(self) -> None:
        self._data = bytearray()
        self._offset = 0  # body offset of self._data[0]
        self._total: int | None = None  # the length of the frame being read, once known
        self._error: MalformedChunk | None = None
        self.frames = 0  # frames decoded so far

    def feed(self, data: bytes) -> list[Frame]:
        """The frames `data` completes. When it completes good frames and then a bad one,
        the good ones are returned and the error is raised by the next `feed` or `close`."""
        if self._error is not None:
            raise self._error
        self._data += data
        out: list[Frame] = []
        while True:
            try:
                frame = self._next()
            except MalformedChunk as exc:
                if not out:
                    raise
                self._error = exc
                return out
            if frame is None:
                return out
            out.append(frame)

    def close(self) -> None:
        """The body ended: raise if it ended inside a frame."""
        if self._error is not None:
            raise self._error
        if self._data:
            wanted = self._total if self._total is not None else _PRELUDE
            raise self._bad(f"the body ends inside this frame ({len(self._data)} of "
                            f"{wanted}{'' if self._total is not None else '+'} bytes)")

    def _bad(self, what: str) -> MalformedChunk:
        return MalformedChunk(f"frame at byte {self._offset}: {what}", index=self.frames,
                              expected=_EXPECTED)

    def _next(self) -> Frame | None:
        data = self._data
        if self._total is None:
            if len(data) < _PRELUDE:
                return None
            total, headers, crc = struct.unpack_from(">III", data)
            computed = _crc(bytes(data[:8]))
            if computed != crc:
                raise self._bad(f"prelude CRC32 is {crc:#010x}, the prelude's is {computed:#010x}")
            if headers > _MAX_HEADERS or total < _MIN_FRAME + headers or (
                    total - _MIN_FRAME - headers > _MAX_PAYLOAD):
                raise self._bad(f"total length {total} with headers length {headers} cannot "
                                f"be (a frame is 16 bytes plus at most {_MAX_HEADERS} of "
                                f"headers and {_MAX_PAYLOAD} of payload)")
            self._total = total
        total = self._total
        if len(data) < total:
            return None
        raw = bytes(data[:total])
        (crc,) = struct.unpack_from(">I", raw, total - 4)
        computed = _crc(raw[:total - 4])
        if computed != crc:
            raise self._bad(f"message CRC32 is {crc:#010x}, the frame's is {computed:#010x}")
        headers_end = _PRELUDE + struct.unpack_from(">I", raw, 4)[0]
        frame = Frame(self._offset, self._headers(raw[_PRELUDE:headers_end]),
                      raw[headers_end:total - 4])
        del data[:total]
        self._offset += total
        self._total = None
        self.frames += 1
        return frame

    def _headers(self, raw: bytes) -> dict[str, Any]:
        headers: dict[str, Any] = {}
        at, end = 0, len(raw)
        while at < end:
            size = raw[at]
            name_bytes = raw[at + 1:at + 1 + size]
            at += 1 + size
            if size == 0 or at >= end:
                raise self._bad(f"header {len(headers)} is cut short or has an empty name")
            try:
                name = name_bytes.decode("utf-8")
            except UnicodeDecodeError:
                raise self._bad(f"header name {name_bytes!r} is not UTF-8") from None
            kind = raw[at]
            at += 1
            if kind in (0, 1):
                value: Any = kind == 0
            elif kind in _FIXED or kind == _UUID or kind in _SIZED:
                if kind in _SIZED:
                    if at + 2 > end:
                        raise self._bad(f"header {name!r} is cut short")
                    (length,) = struct.unpack_from(">H", raw, at)
                    at += 2
                else:
                    length = 16 if kind == _UUID else struct.calcsize(_FIXED[kind])
                if at + length > end:
                    raise self._bad(f"header {name!r} is cut short")
                if kind in _FIXED:
                    (value,) = struct.unpack_from(_FIXED[kind], raw, at)
                elif kind == 7:
                    try:
                        value = raw[at:at + length].decode("utf-8")
                    except UnicodeDecodeError:
                        raise self._bad(f"header {name!r} is not UTF-8") from None
                else:
                    value = raw[at:at + length]
                at += length
            else:
                raise self._bad(f"header {name!r} has type {kind}, which no event stream has "
                                "(0 to 9)")
            if name in headers:
                raise self._bad(f"header {name!r} comes twice")
            headers[name] = value
        return headers


def chunk_of(frame: Frame, index: int) -> dict:
    """The chunk boto3 yields for a frame: `{event type: payload}` for an event,
    `{exception type: payload}` for an exception. The payload is kept as sent (`p` too)."""
    headers = frame.headers
    kind = headers.get(":message-type", "event")
    name_header = {"event": ":event-type", "exception": ":exception-type"}.get(kind)

    def bad(what: str) -> MalformedChunk:
        return MalformedChunk(f"frame at byte {frame.offset}: {what}", index=index,
                              expected="an event or exception frame with a JSON payload")

    if name_header is None:
        code, said = headers.get(":error-code"), headers.get(":error-message")
        raise bad(f":message-type is {kind!r}"
                  + (f" ({code}: {said})" if code is not None else ""))
    name = headers.get(name_header)
    if not isinstance(name, str) or not name:
        raise bad(f"a {kind} frame without a {name_header} header")
    if not frame.payload:
        return {name: {}}
    try:
        payload = json.loads(frame.payload)
    except (ValueError, RecursionError) as exc:
        raise bad(f"the {name} payload is not JSON ({exc})") from None
    return {name: payload}


def _header_bytes(name: str, value: Any) -> bytes:
    raw = name.encode("utf-8")
    if not 0 < len(raw) < 256:
        raise ValueError(f"header name {name!r} must be 1 to 255 bytes of UTF-8")
    head = bytes([len(raw)]) + raw
    kind = None
    if isinstance(value, tuple):
        kind, value = value
    if kind is None:
        kind = (0 if value else 1) if isinstance(value, bool) else (
            7 if isinstance(value, str) else 6 if isinstance(value, (bytes, bytearray))
            else 5 if isinstance(value, int) else None)
    if kind in (0, 1):
        return head + bytes([kind])
    if kind in _INT_TYPES and isinstance(value, int) and not isinstance(value, bool):
        size, low = _INT_TYPES[kind]
        if not low <= value < -low:
            raise ValueError(f"header {name!r}: {value} does not fit {size} bytes")
        return head + bytes([kind]) + struct.pack(_FIXED[kind], value)
    if kind in _SIZED or kind == _UUID:
        data = value.encode("utf-8") if kind == 7 and isinstance(value, str) else value
        if isinstance(data, (bytes, bytearray)):
            if kind == _UUID:
                if len(data) == 16:
                    return head + bytes([kind]) + bytes(data)
            elif len(data) < 2 ** 16:
                return head + bytes([kind]) + struct.pack(">H", len(data)) + bytes(data)
    raise ValueError(f"header {name!r}: cannot write {value!r} as type {kind}")


def encode_frame(headers: dict[str, Any], payload: bytes) -> bytes:
    """One frame. A header value is a str (string), bytes, a bool or an int (long), or a
    `(type, value)` pair naming its type (2 byte ... 8 timestamp in ms, 9 a 16-byte uuid)."""
    head = b"".join(_header_bytes(name, value) for name, value in headers.items())
    total = _MIN_FRAME + len(head) + len(payload)
    prelude = struct.pack(">II", total, len(head))
    prelude += struct.pack(">I", _crc(prelude))
    body = prelude + head + bytes(payload)
    return body + struct.pack(">I", _crc(body))


def _json_bytes(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def encode_event_frame(event_type: str, payload: Any, message_type: str = "event") -> bytes:
    """The frame of one Converse event (or, with `message_type="exception"`, of one
    exception): JSON payload, headers `:event-type` (`:exception-type`), `:content-type`,
    `:message-type`."""
    if message_type not in ("event", "exception"):
        raise ValueError(f"message_type must be 'event' or 'exception', got {message_type!r}")
    return encode_frame({f":{message_type}-type": event_type,
                         ":content-type": "application/json",
                         ":message-type": message_type}, _json_bytes(payload))


def encode_exception_frame(exception_type: str, payload: Any) -> bytes:
    """The frame of a mid-stream exception, e.g. `("throttlingException", {"message": ...})`."""
    return encode_event_frame(exception_type, payload, "exception")


def encode_chunk_frame(chunk: dict) -> bytes:
    """The frame of a chunk as boto3 yields it: `{event type: payload}`; a type ending in
    `Exception` is written as an exception frame."""
    if not isinstance(chunk, dict) or len(chunk) != 1:
        raise ValueError(f"a Converse chunk has exactly one key, got {chunk!r}")
    [(name, payload)] = chunk.items()
    return encode_event_frame(name, payload,
                              "exception" if name.endswith("Exception") else "event")

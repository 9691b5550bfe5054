"""Generators of what the server answers, one per situation a client clause checks.

Each draws a wire `Case` (with the real-server quirks the user allows), the byte-level
quirks of its body, and where the body is cut into the pieces the server flushes one by one:
anywhere, and on purpose between `\\r` and `\\n`, inside a multi-byte UTF-8 character and
inside `data:`. Hypothesis shrinks toward the whole body in one piece, with no quirk.
A selection that carries the client's request features (`wires.Requestable`, from the client
runner) also leaves out the shapes the client cannot ask for (`wires.shape_options`).
"""
from __future__ import annotations

import re
from dataclasses import replace

from typing import Callable

from hypothesis import strategies as st

from mcs_conformance.wires import (HTTP_STATUSES, Case, body_quirk_sets, case_of, chunkings,
                                   cut_by_max_tokens, error_objects, frame_body,
                                   get_wire, http_error_body, malformed_message, quiet_prose,
                                   shape_options, with_text)
from mcs_conformance.clients._served import Served, served_error, served_stream

__all__ = ["cut_points", "cut_streams", "error_streams", "http_errors", "malformed_streams",
           "prose_streams", "streams", "truncated_streams"]

MAX_CUTS = 12
MAX_CHARACTER_CUTS = 64


_CONTINUATION = re.compile(rb"[\x80-\xbf]")
_SECOND_BYTE = re.compile(rb"[\xc0-\xff][\x80-\xbf]")


def _starts(body: bytes, needle: bytes) -> list[int]:
    found, at = [], body.find(needle)
    while at >= 0:
        found.append(at)
        at = body.find(needle, at + 1)
    return found


def _interesting(body: bytes) -> list[list[int]]:
    """Offsets where a cut catches naive readers, by kind: between `\\r` and `\\n`, inside
    a UTF-8 sequence, inside `data:`, and just before a line's end; an offset is of the first
    kind it fits. Found with the C searches of `bytes` and `re`: a Python loop over every
    byte cost a tenth of drawing a client's case."""
    crlf = [at + 1 for at in _starts(body, b"\r") if at + 1 < len(body)]
    after_cr = set(crlf)
    utf8 = [match.start() for match in _CONTINUATION.finditer(body, 1)
            if match.start() not in after_cr]
    data = [offset for at in _starts(body, b"data:") for offset in (at + 2, at + 4)]
    line_end = [at for at in _starts(body, b"\n") if at >= 1 and at not in after_cr]
    return [kind for kind in (crlf, utf8, data, line_end) if kind]


def _character_splits(body: bytes) -> list[int]:
    """Each offset just after a UTF-8 character's first byte, where its second begins."""
    return [match.start() + 1 for match in _SECOND_BYTE.finditer(body)]


@st.composite
def cut_points(draw: Callable, body: bytes) -> list[int]:
    """Byte offsets to cut `body` at (empty: one piece). Each kind of interesting offset is
    as likely as the others: drawn from all of them at once, the few cuts inside a UTF-8
    character were lost among the many line ends, and a seed could miss them all."""
    if len(body) < 2:
        return []
    kinds = _interesting(body)
    characters = _character_splits(body)
    if characters and draw(st.integers(0, 2)) == 2:  # a byte-at-a-time network: every
        return characters[:MAX_CHARACTER_CUTS]     # character split (one cut can miss the text)
    anywhere = st.integers(1, len(body) - 1)
    where = st.one_of(*(st.sampled_from(kind) for kind in kinds), anywhere)
    return draw(st.lists(where, max_size=MAX_CUTS))


@st.composite
def _sent(draw: Callable, case: Case, quirks: frozenset | None, *, cut: bool = True) -> Served:
    body_quirks = draw(body_quirk_sets(case.wire, quirks))
    body = frame_body(case.wire, case.chunks, quirks=body_quirks)
    cuts = draw(cut_points(body)) if cut else []
    return served_stream(case, body_quirks=body_quirks, cuts=cuts)


def streams(wire: str, quirks: frozenset | None, *, min_calls: int = 0,
            cut: bool = True) -> st.SearchStrategy[Served]:
    """Whole streams of `wire` (at least `min_calls` calls), their bodies cut when `cut`."""
    cases = get_wire(wire).cases(quirks=quirks, min_calls=min_calls, **shape_options(wire, quirks))
    return cases.flatmap(lambda case: _sent(case, quirks, cut=cut))


def error_streams(wire: str, quirks: frozenset | None) -> st.SearchStrategy[Served]:
    """Streams that end in a provider error after HTTP 200 (`Case.error` says which)."""
    return get_wire(wire).cases(quirks=quirks, errors=True, **shape_options(wire, quirks)).flatmap(
        lambda case: _sent(case, quirks))


def _terminal_end(case: Case, body_quirks: frozenset) -> int:
    """How many bytes of the body a client may get and still lack the end signal: up to the
    last `}` of the terminal chunk's JSON, or of `[DONE]`'s `]` when no chunk ends it."""
    body = frame_body(case.wire, case.chunks, quirks=body_quirks)
    trailer = len(frame_body(case.wire, [], quirks=body_quirks))
    if case.done_at >= len(case.chunks):
        return len(body) - trailer + frame_body(case.wire, [], quirks=body_quirks).index(b"]")
    # Converse states the answer's end in messageStop; the metadata after it only counts
    # tokens, so a body cut between the two is not held against a client
    signal = next((index for index, chunk in enumerate(case.chunks) if "messageStop" in chunk),
                  case.done_at) if case.wire == "bedrock-converse" else case.done_at
    through = frame_body(case.wire, case.chunks[:signal + 1], quirks=body_quirks)
    return through.rindex(b"}", 0, len(through) - trailer)


def _boundaries(case: Case, body_quirks: frozenset, whole: bytes, end: int) -> list[int]:
    """Where one event ends and the next begins, up to `end` (0 among them): after each blank
    line of an SSE body, each line of an NDJSON one, each frame of a binary one. A body cut
    there holds only whole events: nothing torn tells the client something is off."""
    if case.wire == "bedrock-converse":
        ends = [len(frame_body(case.wire, case.chunks[:count], quirks=body_quirks))
                for count in range(1, len(case.chunks) + 1)]
    elif case.wire == "ollama-chat":
        ends = [at + 1 for at in _starts(whole[:end], b"\n")]
    else:  # a blank line: "\n\n", or "\n\r\n" of a body written with CRLF
        ends = sorted([at + 2 for at in _starts(whole, b"\n\n")]
                      + [at + 3 for at in _starts(whole, b"\n\r\n")])
    return [0] + [offset for offset in ends if offset <= end]


@st.composite
def _cut(draw: Callable, case: Case, quirks: frozenset | None, how: str) -> Served:
    """`case` with its body stopped before the end signal: `drop` anywhere, the connection
    dropped; `between` two events, or `inside` one, the HTTP body ended cleanly."""
    body_quirks = draw(body_quirk_sets(case.wire, quirks))
    end = _terminal_end(case, body_quirks)
    whole = frame_body(case.wire, case.chunks, quirks=body_quirks)
    between = _boundaries(case, body_quirks, whole, end)
    at_boundary = st.sampled_from(between[::-1])  # shrinks toward the latest boundary
    # anywhere (inside: but a boundary); shrinks toward late cuts
    anywhere = st.integers(0, end).map(lambda back: end - back).filter(
        lambda at: how == "drop" or at not in between)
    if how == "between":
        keep = draw(at_boundary)
    elif how == "drop":  # a connection drops between flushes as often as inside one
        keep = draw(st.one_of(at_boundary, anywhere))
    else:
        keep = draw(anywhere)
    cuts = draw(cut_points(whole[:keep]))
    served = served_stream(case, body_quirks=body_quirks, cuts=cuts, keep=keep)
    return served if how == "drop" else replace(served, complete=True)


def truncated_streams(wire: str, quirks: frozenset | None) -> st.SearchStrategy[Served]:
    """Streams with a call whose connection drops before the wire's end signal (an
    unfinished chunked body)."""
    return get_wire(wire).cases(quirks=quirks, min_calls=1, **shape_options(wire, quirks)).flatmap(
        lambda case: _cut(case, quirks, "drop"))


def cut_streams(wire: str, quirks: frozenset | None, *, inside: bool) -> st.SearchStrategy[Served]:
    """Streams with a call whose HTTP body ends cleanly before the wire's end signal:
    between two events, or with `inside` in the middle of one (a torn SSE event or line, a
    partial frame)."""
    return get_wire(wire).cases(quirks=quirks, min_calls=1, **shape_options(wire, quirks)).flatmap(
        lambda case: _cut(case, quirks, "inside" if inside else "between"))


def http_errors(wire: str) -> st.SearchStrategy[tuple[Served, str]]:
    """HTTP 4xx/5xx answers with the provider's JSON error body, and the provider's message."""
    def made(drawn: tuple) -> tuple[Served, str]:
        (_, error), status = drawn
        message = error if isinstance(error, str) else error["message"]
        return served_error(wire, status, http_error_body(wire, error)), message

    return st.tuples(error_objects(wire), st.sampled_from(HTTP_STATUSES)).map(made)


def _streamed(wire: str, message: dict, quirks: frozenset | None) -> st.SearchStrategy[Case]:
    """A `Case` carrying `message` on `wire`, chunked as the wire chunks its own messages
    (no quirk; only what the selection's client can ask for)."""
    return chunkings(wire, message, **shape_options(wire, quirks)).map(
        lambda chunks: case_of(wire, message, chunks))


@st.composite
def prose_streams(draw: Callable, wire: str, quirks: frozenset | None) -> Served:
    """Text-only streams whose text holds braces, JSON, code fences and tags: no call."""
    native = draw(get_wire(wire).messages(max_calls=0, **shape_options(wire, quirks)))
    case = draw(_streamed(wire, with_text(wire, native, draw(quiet_prose())), quirks))
    return draw(_sent(case, quirks))


@st.composite
def malformed_streams(draw: Callable, wire: str, quirks: frozenset | None) -> tuple:
    """A stream with one call whose arguments are not a JSON object: `(served, name, raw)`.
    Anthropic's: a tool_use cut by `max_tokens` (its JSON left unfinished; every Anthropic
    request sets `max_tokens`)."""
    native = get_wire(wire)  # the stream around it drawn with the selection, as every case
    bound = replace(native, cases=lambda **options: native.cases(
        quirks=quirks, **shape_options(wire, quirks), **options))
    if wire == "anthropic-messages":
        events, bad, raw = draw(cut_by_max_tokens(bound))
        case = Case(wire=wire, message={}, chunks=events, done_at=len(events) - 1, calls=[bad],
                    text="")
    else:
        message, expected, raw = draw(malformed_message(bound))
        bad = next(call for call in expected if call.error is not None)
        chunks = draw(chunkings(wire, message, **shape_options(wire, quirks)))
        case = Case(wire=wire, message=message, chunks=chunks, done_at=len(chunks) - 1,
                    calls=expected, text="")
        if wire == "openai-chat":  # the one wire whose stream=false body wraps the message:
            # its whole response, which a client's non-streaming call reads
            case = replace(case_of(wire, message, chunks), calls=expected, text="")
    return draw(_sent(case, quirks)), bad.name, raw

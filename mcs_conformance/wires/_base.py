"""What a wire is: for one format, a generator of native messages and a chunker of them.

Wires are Hypothesis *generators* (never called "strategies" here: extraction strategies
are the format experts under test). A `Case` is one generated stream with what any correct
extraction strategy must get out of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall


@dataclass(frozen=True)
class Case:
    """One generated stream and the truth about it.

    `message` is the `stream=false` message (what `as_dict()` must equal at the end);
    `chunks` the stream; `done_at` the index of the wire's terminal chunk (chunks after it
    are trailing: usage-only, pings); `calls` and `text` what extraction must find;
    `response` the whole `stream=false` body where the wire has one beyond the message;
    `deltas` the visible text as the plain string deltas a text-only stream would carry
    (the text wire: what a `TextStrategy` is fed directly).
    """

    wire: str
    message: dict
    chunks: list
    done_at: int
    calls: list[ExtractedCall]
    text: str
    response: dict | None = None
    deltas: list | None = None

    def summary(self) -> str:
        """Short one-line description for failure reports."""
        return f"{self.wire} stream of {len(self.chunks)} chunks, {len(self.calls)} call(s)"


@dataclass(frozen=True)
class Wire:
    """One format's generators and facts. Register instances in `mcs_conformance.wires`.

    `strategy_names`: the `name`s of the extraction strategies this wire certifies.
    `messages(**options)`: generator of native `stream=false` messages.
    `cases(**options)`: generator of `Case`s (messages cut into chunkings).
    `chunk_schema`, `message_schema`, `request_schema`: JSON Schema file names in
    `mcs_conformance/schemas/` for one chunk, one native message, and one request message
    of the history (`history.schema`).
    """

    name: str
    strategy_names: frozenset
    messages: Callable[..., st.SearchStrategy]
    cases: Callable[..., st.SearchStrategy]
    chunk_schema: str
    message_schema: str
    request_schema: str
    native: bool = True
    options: dict = field(default_factory=dict)


@st.composite
def pieces(draw: Callable, text: str, *, max_cuts: int = 8, allow_empty: bool = True) -> list[str]:
    """Cut `text` at a few drawn points; shrinks toward fewer, earlier cuts (whole text).

    Python strings index by code point, so a surrogate pair is never split; JSON escapes
    (`\\n`, `\\u00e9`) in an arguments text can be split anywhere, as real servers do.
    """
    if not text:
        return [""] if allow_empty and draw(st.booleans()) else []
    count = draw(st.integers(0, min(max_cuts, len(text))))
    points = sorted(draw(st.integers(0, len(text))) for _ in range(count))
    out, start = [], 0
    for point in points:
        if point > start or (allow_empty and point == start):
            out.append(text[start:point])
        start = max(start, point)
    out.append(text[start:])
    return out

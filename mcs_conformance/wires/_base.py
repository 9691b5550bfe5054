"""What a wire is: for one format, a generator of native messages and a chunker of them.

Wires are Hypothesis *generators* (never called "strategies" here: extraction strategies
are the format experts under test). A `Case` is one generated stream with what any correct
extraction strategy must get out of it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, wraps
from typing import Any, Callable

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from mcs_reference.calls import ExtractedCall


@dataclass(frozen=True)
class Case:
    """One generated stream and the truth about it.

    `message` is the `stream=false` message (what `as_dict()` must equal at the end);
    `chunks` the stream; `done_at` the index of the wire's terminal chunk (chunks after it
    are trailing: usage-only, pings), or `len(chunks)` when no chunk ends the stream and
    only the body's end signal does (Snowflake's `[DONE]`, quirk `no-finish-reason`); `calls` and `text` what extraction must find;
    `response` the whole `stream=false` body where the wire has one beyond the message;
    `deltas` the visible text as the plain string deltas a text-only stream would carry
    (the text wire: what a `TextStrategy` is fed directly).
    `quirks` names the real-server quirks this stream holds (docs/quirks.md), so that a
    failure report can say "fails only on vLLM-style streams".
    `error` is set when the stream ends in a provider error after HTTP 200: the provider's
    error object (wires/_provider_errors.py), whose message `ProviderError` must carry;
    `error_at` is the index of the
    first chunk that reports it (a strategy must raise `ProviderError` there, never return
    a message that looks complete). `message`, `calls` and `text` then describe what was
    assembled before the error.
    """

    wire: str
    message: dict
    chunks: list
    done_at: int
    calls: list[ExtractedCall]
    text: str
    response: dict | None = None
    deltas: list | None = None
    quirks: frozenset = frozenset()
    error: dict | str | None = None
    error_at: int | None = None

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


def built_once(factory: Callable[..., st.SearchStrategy]) -> Callable[..., st.SearchStrategy]:
    """Cache a generator factory by its arguments: Hypothesis validates a generator object
    once, so one built per draw costs more than drawing from it. Unhashable arguments (a
    user's codec) get a generator built anew, as without the cache."""
    cached = lru_cache(maxsize=None)(factory)

    @wraps(factory)
    def build(*args: Any, **kwargs: Any) -> st.SearchStrategy:
        try:
            hash((args, tuple(kwargs.items())))
        except TypeError:
            return factory(*args, **kwargs)
        return cached(*args, **kwargs)

    return build


@lru_cache(maxsize=None)
def cut_points(length: int, max_cuts: int = 8, allow_empty: bool = True) -> st.SearchStrategy:
    """The drawn cut points of a text of `length` characters, sorted (None: an empty text
    stays whole). Cached by length: a generator built once is drawn without Hypothesis
    validating a new object, and pieces of equal length share the same span label."""
    if not length:
        return st.booleans().map(lambda empty: [] if empty else None) if allow_empty else st.none()
    return _cut_codes(length, max_cuts).map(lambda codes: _points(codes, length))


@lru_cache(maxsize=None)
def _cut_codes(length: int, max_cuts: int) -> st.SearchStrategy[bytes]:
    return st.binary(max_size=_width(length) * min(max_cuts, length))


def _width(length: int) -> int:
    return (length.bit_length() + 7) // 8


def _points(codes: bytes, length: int) -> list[int]:
    """Cut points read from one drawn string of bytes, enough bytes a point to reach the
    text's end: a few cuts drawn as one value cost Hypothesis about what one integer does,
    where drawing the count and each point apart cost one value each. Shrinks toward
    fewer, earlier cuts."""
    width = _width(length)
    return sorted(int.from_bytes(codes[start:start + width], "big") % (length + 1)
                  for start in range(0, len(codes) - width + 1, width))


def cut(text: str, points: list[int] | None, allow_empty: bool = True) -> list[str]:
    """`text` cut at `points` (from `cut_points(len(text))`)."""
    if points is None:
        return []
    out, start = [], 0
    for point in points:
        if point > start or (allow_empty and point == start):
            out.append(text[start:point])
        start = max(start, point)
    out.append(text[start:])
    return out


def draw_pieces(draw: Callable, text: str, max_cuts: int = 8, allow_empty: bool = True) -> list[str]:
    """`pieces(text)` drawn inside a generator (the cut points' bytes drawn directly: one
    generator fewer to go through for each text)."""
    if not text:
        return cut(text, draw(cut_points(0, max_cuts, allow_empty)), allow_empty)
    return cut(text, _points(draw(_cut_codes(len(text), max_cuts)), len(text)), allow_empty)


@st.composite
def pieces(draw: Callable, text: str, *, max_cuts: int = 8, allow_empty: bool = True) -> list[str]:
    """Cut `text` at a few drawn points; shrinks toward fewer, earlier cuts (whole text).

    Python strings index by code point, so a surrogate pair is never split; JSON escapes
    (`\\n`, `\\u00e9`) in an arguments text can be split anywhere, as real servers do.
    """
    return draw_pieces(draw, text, max_cuts, allow_empty)


COUNT_OPTIONS = ("min_calls", "max_calls")  # the options `messages` takes; `cases` takes all
NATIVE_OPTIONS = frozenset({*COUNT_OPTIONS, "max_cuts"})


def check_options(min_calls: int, max_calls: int, max_cuts: int = 0) -> None:
    """Raise `InvalidArgument` for counts a generator cannot honour (at draw time)."""
    named = (("min_calls", min_calls), ("max_calls", max_calls), ("max_cuts", max_cuts))
    for label, value in named:
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidArgument(f"{label} must be an int, got {value!r}")
    if not 0 <= min_calls <= max_calls:
        raise InvalidArgument(f"need 0 <= min_calls <= max_calls, got {min_calls}, {max_calls}")
    if max_cuts < 0:
        raise InvalidArgument(f"max_cuts must be >= 0, got {max_cuts}")


def check_wire_options(name: str, options: dict, allowed: frozenset) -> None:
    """Refuse option names a wire does not know, when the wire is made (not at draw time)."""
    unknown = set(options) - allowed
    if unknown:
        raise InvalidArgument(f"unknown {name} wire option(s): {', '.join(sorted(unknown))}")


def native_wire(name: str, messages: Callable[..., st.SearchStrategy],
                cases: Callable[..., st.SearchStrategy], options: dict,
                allowed: frozenset = NATIVE_OPTIONS) -> Wire:
    """A built-in native wire named after its schemas; `options` become defaults of
    `messages` (the call counts) and `cases` (all of them)."""
    check_wire_options(name, options, allowed)
    counts = {key: value for key, value in options.items() if key in COUNT_OPTIONS}
    return Wire(
        name=name,
        strategy_names=frozenset({name}),
        # Built once per set of options: clauses ask for `wire.cases()` inside their draws.
        messages=built_once(lambda **opts: messages(**{**counts, **opts})),
        cases=built_once(lambda **opts: cases(**{**options, **opts})),
        chunk_schema=f"{name}.chunk.json",
        message_schema=f"{name}.message.json",
        request_schema=f"{name}.request.json",
        native=True,
        options=dict(options),
    )


class Tape:
    """The small decisions of one stream (a quirk or not, which style, which finish), read
    from one drawn string of bytes, one named slot a decision.

    Hypothesis spends about as much on drawing 48 bytes at once as on two separate small
    integers, so a stream's thirty-odd yes/no and one-of-few decisions cost one value
    instead of thirty. Each decision keeps its own slot whatever was decided before it, so
    shrinking one slot toward 0 (the decision's simplest option) leaves the others alone.
    """

    __slots__ = ("codes", "slots")

    def __init__(self, slots: dict, codes: bytes) -> None:
        self.slots, self.codes = slots, codes

    def below(self, slot: str, count: int) -> int:
        """A number in `0..count-1` (count at most 256), 0 when shrunk: scaled, not taken
        modulo, so that a lower byte never means a later option and shrinking goes down."""
        return self.codes[self.slots[slot]] * count >> 8

    def at(self, slot: str, count: int) -> int:
        """`below` for any count under 65536: beyond 256, the slots `slot` and `slot+` read
        as one 16-bit number, so that every position of a long text can come out."""
        if count <= 256:
            return self.below(slot, count)
        return (self.below(slot, 256) << 8 | self.below(slot + "+", 256)) * count >> 16

    def flip(self, slot: str) -> bool:
        return self.below(slot, 2) == 1

    def pick(self, slot: str, options: tuple) -> Any:
        return options[self.below(slot, len(options))]


def tapes(slots: tuple) -> Callable[[Callable], Tape]:
    """What draws a `Tape` with these named slots inside a generator: `tape = TAPES(draw)`.
    A function, not a generator of its own: Hypothesis spends more on a layer (a mapped or
    composite generator) than on drawing the bytes under it."""
    index = {slot: number for number, slot in enumerate(slots)}
    codes = st.binary(min_size=len(slots), max_size=len(slots))
    return lambda draw: Tape(index, draw(codes))

"""Values that fill generated native messages: prose, tool names, arguments, provider ids.

Shared by the Anthropic and Responses wires. Every generator shrinks toward the simplest
value ("", {}, the first common tool name), so failures shrink to short, readable messages.
The tricky fragments are what real model output holds and naive reassemblers get wrong:
astral characters, escapes, braces and call markers inside plain text or argument values.

The wires draw these values through the `draw_*` functions inside their own generators:
Hypothesis spends more on a generator layer (a composite, a `.map`) than on the value
under it. The generators (`prose()`, `tool_names()`, `arguments()`, `OPAQUE`) remain
for drawing the values on their own.
"""
from __future__ import annotations

import string
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

BASE62 = string.digits + string.ascii_letters
BASE64 = string.ascii_letters + string.digits + "+/"

TRICKY = (
    "Hello", " world", ".", "\n", "\n\n", "\t", '"', "\\", "\\n", "\\u00e9", "\\\"", "{", "}",
    "[", "]", '{"tool": "search", "arguments": {}}', "<tool_call>", "</tool_call>",
    "```json\n", "\n```", "[TOOL_CALLS]", "é", "ß", "日本語", "😀", "𝄞", "👩‍💻",
    "\u200b", "\u2028", "\x00", "%s", "null",
)
COMMON_NAMES = ("get_weather", "search", "run_code", "lookup-user", "sendEmail", "x")

_chars = st.characters(exclude_categories=("Cs",))

# Single characters besides the tricky fragments: prose is spelled from both.
PLAIN = tuple(" abcxyzABC019-_:,;?!'") + ("é", "€", "\u0301", "\r")
FRAGMENTS = TRICKY + PLAIN


@lru_cache(maxsize=None)
def _codes(size: int, min_size: int = 0) -> st.SearchStrategy[bytes]:
    """A short sequence of codes drawn as one value: Hypothesis spends about the same on a
    string of codes as on one integer, and far more on a list of separately drawn items.
    It shrinks by deleting codes and lowering them toward 0 (each table's simplest entry)."""
    return st.binary(min_size=min_size, max_size=size)


def _spelled(codes: bytes) -> str:
    return "".join(FRAGMENTS[code % len(FRAGMENTS)] for code in codes)


@lru_cache(maxsize=None)
def _free_text(min_size: int, max_size: int) -> st.SearchStrategy[str]:
    return st.text(_chars, min_size=min_size, max_size=max_size)


_KINDS_OF_PROSE = st.integers(0, 2)


def draw_prose(draw: Callable, max_fragments: int = 8, min_size: int = 0) -> str:
    """`prose(...)` drawn inside a generator: fragments spelled from one drawn string of
    codes, arbitrary unicode, or fragments around unicode, the kind drawn first (as
    `st.one_of` would, through fewer layers)."""
    max_fragments = max(max_fragments, min_size)
    kind = draw(_KINDS_OF_PROSE)
    if kind == 1:
        return draw(_free_text(min_size, 40))
    codes = draw(_codes(max_fragments, min_size))
    if kind == 0:
        return _spelled(codes)
    middle = len(codes) // 2
    return _spelled(codes[:middle]) + draw(_free_text(1, 12)) + _spelled(codes[middle:])


@lru_cache(maxsize=None)
def prose(*, max_fragments: int = 8, min_size: int = 0) -> st.SearchStrategy[str]:
    """Model-written text: tricky fragments run together, arbitrary unicode, or both.

    Each shrinks to its shortest (with `min_size=0`, ""), but most drawn texts are not
    empty: the clauses about visible text need text, cut into several deltas, to bite. The
    fragments come from one drawn string of codes, not a list of drawn fragments.
    """
    return st.composite(draw_prose)(max_fragments, min_size)


NAME_FIRST = string.ascii_letters + "_"
NAME_REST = NAME_FIRST + string.digits + "-"


def _name(text: str) -> str:
    """A tool name spelled by a drawn string: none or one character picks a common name
    (the empty string, what shrinking reaches, the first), more are the name itself."""
    if len(text) <= 1:
        return COMMON_NAMES[NAME_REST.index(text) % len(COMMON_NAMES) if text else 0]
    return text if text[0] in NAME_FIRST else "_" + text[:40]


_NAME_TEXTS = st.text(NAME_REST, max_size=41)


def draw_tool_name(draw: Callable) -> str:
    """`tool_names()` drawn inside a generator."""
    return _name(draw(_NAME_TEXTS))


@lru_cache(maxsize=None)
def tool_names() -> st.SearchStrategy[str]:
    """Function names as both APIs allow them (`^[a-zA-Z0-9_-]{1,64}$`), starting with a
    letter or `_` as models name them: a common name about a third of the time, else any;
    drawn as one string."""
    return st.composite(draw_tool_name)()


def spell(number: int, alphabet: str, size: int) -> str:
    out = []
    for _ in range(size):
        number, digit = divmod(number, len(alphabet))
        out.append(alphabet[digit])
    return "".join(reversed(out))


@lru_cache(maxsize=None)
def _numbers(alphabet: str, size: int) -> st.SearchStrategy[int]:
    return st.integers(0, len(alphabet) ** size - 1)


@lru_cache(maxsize=None)
def token(alphabet: str, size: int) -> st.SearchStrategy[str]:
    """A fixed-length opaque token (the random part of a provider id), drawn as one number."""
    return _numbers(alphabet, size).map(lambda number: spell(number, alphabet, size))


#: Non-empty model text (a refusal, reasoning), built once.
SOME_PROSE = prose(min_size=1)


@lru_cache(maxsize=None)
def opaque(alphabet: str = BASE64, *, max_size: int = 120) -> st.SearchStrategy[str]:
    """A non-empty opaque blob: signatures, redacted thinking, encrypted reasoning."""
    return st.text(st.sampled_from(alphabet), min_size=1, max_size=max_size)


# Call markers of the text formats, inside a string value (code, docs, a model quoting
# itself): a text codec that scans for them without reading JSON strings cuts the call there.
MARKERS = ("<tool_call>", "</tool_call>", '{"tool": "x", "arguments": {}}', "```json\n",
           "[TOOL_CALLS]")
_KINDS_OF_FRESH = st.integers(0, 4)
_SAFE_INTEGERS = st.integers(-(2**53), 2**53)
_FINITE_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_SOME_MARKER = st.sampled_from(MARKERS)
_TIMES = st.integers(50, 600)


def _draw_fresh(draw: Callable) -> Any:
    """A value no table holds: any number, any unicode text, a marker inside drawn text, or
    KBs of drawn text; the kind drawn first, as `st.one_of` would (the same choices)."""
    kind = draw(_KINDS_OF_FRESH)
    if kind == 0:
        return draw(_SAFE_INTEGERS)
    if kind == 1:
        return draw(_FINITE_FLOATS)
    if kind == 2:
        return draw_prose(draw, max_fragments=4)
    if kind == 3:
        before, marker = draw_prose(draw, max_fragments=2), draw(_SOME_MARKER)
        return before + marker + draw_prose(draw, max_fragments=2)
    return (draw_prose(draw, max_fragments=3) or "x") * draw(_TIMES)


_fresh_keys = st.text(_chars, max_size=10)

# The tables argument codes read, simplest first (code 0 is null).
BIG = ("x" * 600, "é" * 300, "😀" * 150, '\\"\n' * 120, "日本語 " * 90, '{"a": [1, 2]}' * 40)
LEAVES = (None, True, False, 0, 1, -1, 0.5, 1.0, -0.0, 1e-07, 1.5e300, 2**53, -(2**53), "",
          *TRICKY, *MARKERS, *(f"see {marker} here" for marker in MARKERS), *BIG)
KEYS = ("city", "query", "n", "path", "units", "é", "}", "a b", "", '"', "\\", "日本", "😀",
        "{", "<tool_call>")
# Code ranges of one byte: 0-127 a leaf, 128-159 a key (from 152: a drawn key), 160-191
# an object, 192-223 an array, 224-239 a close, 240-255 a value drawn afresh.
_KEYS_FROM, _DRAWN_KEYS_FROM, _OBJECTS_FROM, _ARRAYS_FROM, _CLOSES_FROM, _FRESH_FROM = (
    128, 152, 160, 192, 224, 240)
_DEPTH = 3  # containers, the arguments object included
# A first code below this means no arguments: with an empty string and a first close, `{}`
# comes about three times in ten, as often as the old generator drew it (a parameterless
# tool is common, and Hypothesis's few random cases at the dev profile must hold one).
_NONE_BELOW = 24


def draw_arguments(draw: Callable) -> dict:
    """`arguments()` drawn inside a generator: one drawn string of codes read as a JSON
    object. A code is a leaf of `LEAVES`, a key of `KEYS` for the next value, an opened
    object or array (three levels at most), a close (of the arguments object itself: the
    end), or a value drawn afresh (`_draw_fresh`). A value without a key gets the next of
    `KEYS`; a low first code is `{}` (`_NONE_BELOW`)."""
    top: dict = {}
    stack: list = [top]
    key = None
    codes = draw(_codes(16))
    if codes and codes[0] < _NONE_BELOW:
        return top
    for code in codes:
        if _CLOSES_FROM <= code < _FRESH_FROM:
            if len(stack) == 1:  # the arguments object closes: `{}` when nothing came before
                break
            stack.pop()
            continue
        if _KEYS_FROM <= code < _OBJECTS_FROM:
            key = KEYS[code % len(KEYS)] if code < _DRAWN_KEYS_FROM else draw(_fresh_keys)
            if isinstance(stack[-1], dict):
                continue
            value, key = key, None  # a key inside an array is a string of it
        elif code < _KEYS_FROM:
            value = LEAVES[code % len(LEAVES)]
        elif code < _CLOSES_FROM:
            if len(stack) == _DEPTH:  # as deep as arguments go: the open is ignored
                continue
            value = {} if code < _ARRAYS_FROM else []
        else:
            value = _draw_fresh(draw)
        container = stack[-1]
        if isinstance(container, list):
            container.append(value)
        else:
            container[KEYS[len(container) % len(KEYS)] if key is None else key] = value
            key = None
        if isinstance(value, (dict, list)):
            stack.append(value)
    return top


@lru_cache(maxsize=None)
def arguments() -> st.SearchStrategy[dict]:
    """Tool arguments: JSON objects, `{}` first, with unicode, markers, nesting and
    sometimes KBs; drawn as one string of codes (`draw_arguments`), plus what it draws
    afresh."""
    return st.composite(draw_arguments)()


def unique_tokens(draw: Callable, count: int, prefix: str, alphabet: str, size: int) -> list[str]:
    """`count` distinct ids `prefix + token`, from one drawn number (consecutive tokens from
    it), so they cost one value and shrink together."""
    space = len(alphabet) ** size
    first = draw(_numbers(alphabet, size))
    return [prefix + spell((first + step) % space, alphabet, size) for step in range(count)]


def interleave(texts: list, placed: list[tuple[Any, int]]) -> list:
    """Merge `placed` items, each `(item, k)` going after the first `k` of `texts`.

    Drawing each call with its own place (instead of positions drawn after all calls) lets
    Hypothesis delete a call and its place together, so messages shrink to one call cleanly.
    """
    out = []
    for index in range(len(texts) + 1):
        out += [item for item, place in placed if min(place, len(texts)) == index]
        if index < len(texts):
            out.append(texts[index])
    return out


_SPREAD = 0x9E3779B97F4A7C15F39CC0605CEDC8341082276BF3A27251  # odd: a one-to-one spread
_NUMBERS = st.integers(0, 2**192 - 1)


def draw_opaque(draw: Callable) -> int:
    """The opaque values of one stream, item or block (ids, times, usage counters), read
    from one drawn number: no clause looks inside them, so they need not cost a value each.
    Hypothesis draws most such numbers below 2**48, so the number is spread over all its
    192 bits (0 stays 0: the simplest stream's ids are all zeros, as when drawn apart)."""
    return draw(_NUMBERS) * _SPREAD % 2**192


#: `draw_opaque` as a generator.
OPAQUE = st.composite(draw_opaque)()


@lru_cache(maxsize=256)
def positions(limit: int) -> st.SearchStrategy[int]:
    """An index in `0..limit` (cached: the wires draw many)."""
    return st.integers(0, limit)


@lru_cache(maxsize=None)
def one_of_these(options: tuple) -> st.SearchStrategy:
    """`st.sampled_from(options)` built once per tuple of options (Hypothesis caches the
    generators `st.integers` and `st.binary` make, not those of `st.sampled_from`)."""
    return st.sampled_from(options)

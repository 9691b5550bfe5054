"""Values that fill generated native messages: prose, tool names, arguments, provider ids.

Shared by the Anthropic and Responses wires. Every generator shrinks toward the simplest
value ("", {}, the first common tool name), so failures shrink to short, readable messages.
The tricky fragments are what real model output holds and naive reassemblers get wrong:
astral characters, escapes, braces and call markers inside plain text or argument values.
"""
from __future__ import annotations

import json
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
_fragments = st.one_of(st.sampled_from(TRICKY), st.text(_chars, min_size=1, max_size=12))


@lru_cache(maxsize=None)
def prose(*, max_fragments: int = 8) -> st.SearchStrategy[str]:
    """Model-written text: tricky fragments run together, or arbitrary unicode.

    Both shrink to "" (no fragments, no characters), but most drawn texts are not empty:
    the clauses about visible text need text, cut into several deltas, to bite.
    """
    return st.one_of(
        st.lists(_fragments, max_size=max_fragments).map("".join),
        st.text(_chars, max_size=40),
    )


@lru_cache(maxsize=None)
def tool_names() -> st.SearchStrategy[str]:
    """Function names as both APIs allow them: `^[a-zA-Z0-9_-]{1,64}$`."""
    return st.one_of(
        st.sampled_from(COMMON_NAMES),
        st.from_regex(r"[a-zA-Z_][a-zA-Z0-9_-]{0,40}", fullmatch=True),
    )


def _spell(number: int, alphabet: str, size: int) -> str:
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
    return _numbers(alphabet, size).map(lambda number: _spell(number, alphabet, size))


#: Non-empty model text (a refusal, reasoning), built once.
SOME_PROSE = prose().filter(bool)


@lru_cache(maxsize=None)
def opaque(alphabet: str = BASE64, *, max_size: int = 120) -> st.SearchStrategy[str]:
    """A non-empty opaque blob: signatures, redacted thinking, encrypted reasoning."""
    return st.text(st.sampled_from(alphabet), min_size=1, max_size=max_size)


_big = st.builds(lambda part, times: (part or "x") * times, prose(max_fragments=3),
                 st.integers(50, 600))
# Call markers of the text formats, inside a string value (code, docs, a model quoting
# itself): a text codec that scans for them without reading JSON strings cuts the call there.
MARKERS = ("<tool_call>", "</tool_call>", '{"tool": "x", "arguments": {}}', "```json\n",
           "[TOOL_CALLS]")
_marked = st.builds(lambda before, marker, after: before + marker + after,
                    prose(max_fragments=2), st.sampled_from(MARKERS), prose(max_fragments=2))
_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**53), 2**53),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(TRICKY),
    prose(max_fragments=4),
    _marked,
    _big,
)
_keys = st.one_of(st.sampled_from(("city", "query", "n", "path", "é", "}", "a b")),
                  st.text(_chars, max_size=10))
# Nesting spelled out to three levels (what tool arguments hold) instead of st.recursive:
# the same shapes, drawn several times faster, which is most of the kit's run time.
_shallow = st.one_of(_leaves, st.lists(_leaves, max_size=3),
                     st.dictionaries(_keys, _leaves, max_size=3))
_values = st.one_of(_leaves, st.lists(_shallow, max_size=3),
                    st.dictionaries(_keys, _shallow, max_size=4))


@lru_cache(maxsize=None)
def arguments() -> st.SearchStrategy[dict]:
    """Tool arguments: JSON objects, `{}` first, with unicode, markers and sometimes KBs."""
    return st.dictionaries(_keys, _values, max_size=5)


_SEPARATORS = st.sampled_from(((", ", ": "), (",", ":")))


def dump(draw: Callable, value: Any) -> str:
    """`value` written as JSON the way servers write it: spaced or compact, raw or escaped."""
    separators, ascii_only = draw(_SEPARATORS), draw(st.booleans())
    return json.dumps(value, separators=separators, ensure_ascii=ascii_only)


def json_texts(value: Any) -> st.SearchStrategy[str]:
    """`dump` as a strategy, for callers that compose rather than draw."""
    return _STYLES.map(lambda style: json.dumps(value, separators=style[0], ensure_ascii=style[1]))


_STYLES = st.tuples(_SEPARATORS, st.booleans())


@lru_cache(maxsize=None)
def _distinct_numbers(count: int, alphabet: str, size: int) -> st.SearchStrategy[list[int]]:
    return st.lists(_numbers(alphabet, size), min_size=count, max_size=count, unique=True)


def unique_tokens(draw: Callable, count: int, prefix: str, alphabet: str, size: int) -> list[str]:
    """`count` distinct ids `prefix + token`, drawn at once so they shrink together."""
    numbers = draw(_distinct_numbers(count, alphabet, size))
    return [prefix + _spell(number, alphabet, size) for number in numbers]


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


PLACES = st.integers(0, 3)


@lru_cache(maxsize=256)
def positions(limit: int) -> st.SearchStrategy[int]:
    """An index in `0..limit` (cached: the wires draw many)."""
    return st.integers(0, limit)

"""Model outputs mutated: the slips a model makes in a format, by stable kind.

A drawn output of a catalogue format (`format_cases`, in any spelling) with a few mutations
applied: a delimiter deleted, doubled, or two swapped (a special token, a tag, a bracket, a
quote, a separator), whitespace inside a call's head or name, the output cut short (tags left
unclosed), a number replaced by one a double cannot hold or by a non-finite literal. A codec
fed one must still read only calls the format could have written, and make anything else an
error call keeping the text (the closure property, tests/reference/test_formats_closure.py).
Each output names the kinds it holds, so that a failure says which slip broke the reader.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from mcs_conformance.wires.formats import format_cases, FormatCase

__all__ = ["MUTATIONS", "MutatedOutput", "mutated_outputs"]

MUTATIONS = {
    "delimiter-deleted": "a delimiter of the format (special token, tag, bracket, quote, "
                         "separator) deleted",
    "delimiter-doubled": "a delimiter written twice",
    "delimiters-swapped": "two delimiters exchange places",
    "whitespace-in-head": "a space, tab or newline inside a call's name or next to a "
                          "delimiter of its head",
    "cut-short": "the output stops anywhere: tags left unclosed, a call cut mid-way",
    "number-overflow": "a number replaced by one a double cannot hold (1e400)",
    "non-finite-literal": "a number replaced by NaN, Infinity or -Infinity (nan, inf in Python)",
}

# What delimits calls in the catalogue's formats, beside each format's special tokens: tags
# (`<function=`, `</parameter>`), bracketed tokens (`[ARGS]`), code fences, punctuation,
# newlines, and the heads `functions.` and `to=` of Kimi and Harmony.
_GENERIC = (r"</?[A-Za-z_][\w:.-]*(?:=|>)", r"\[[A-Z_]+\]", r"```(?:json)?", r"functions\.",
            r"to=", r"[{}\[\]()\"',:=;<>]", r"\n")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_OVERFLOWS = ("1e400", "-1e400", "2e308", "1" + "0" * 400 + ".5")
_NON_FINITE = ("NaN", "Infinity", "-Infinity", "nan", "inf", "-inf")
_WHITESPACE = (" ", "\n", "\t", "\r\n", " \n ")


@dataclass(frozen=True)
class MutatedOutput:
    """A drawn model output (`origin`) and its `text` after `mutations` (kinds, in order)."""

    format: str
    text: str
    mutations: tuple
    origin: FormatCase


def _delimiters(codec: Any, text: str) -> list[tuple[int, int]]:
    tokens = sorted(codec.special_tokens, key=len, reverse=True)
    pattern = re.compile("|".join([re.escape(t) for t in tokens] + list(_GENERIC)))
    return [match.span() for match in pattern.finditer(text)]


def _heads(codec: Any, text: str, calls: list) -> list[int]:
    """Places inside the calls' names and next to the delimiters."""
    places = [spot for start, end in _delimiters(codec, text) for spot in (start, end)]
    for call in calls:
        for found in re.finditer(re.escape(call.name), text):
            places += range(found.start() + 1, found.end())
    return sorted(set(places))


def _mutate(draw: Callable, codec: Any, text: str, calls: list, kind: str) -> str | None:
    """`text` with one mutation of `kind`, None when the text holds nothing to mutate so."""
    if kind == "cut-short":
        return text[:draw(st.integers(0, max(len(text) - 1, 0)))] if text else None
    if kind in ("number-overflow", "non-finite-literal"):
        numbers = [m.span() for m in _NUMBER.finditer(text)]
        if not numbers:
            return None
        start, end = draw(st.sampled_from(numbers))
        pool = _OVERFLOWS if kind == "number-overflow" else _NON_FINITE
        return text[:start] + draw(st.sampled_from(pool)) + text[end:]
    if kind == "whitespace-in-head":
        places = _heads(codec, text, calls)
        if not places:
            return None
        spot = draw(st.sampled_from(places))
        return text[:spot] + draw(st.sampled_from(_WHITESPACE)) + text[spot:]
    spans = _delimiters(codec, text)
    if not spans:
        return None
    start, end = draw(st.sampled_from(spans))
    if kind == "delimiter-deleted":
        return text[:start] + text[end:]
    if kind == "delimiter-doubled":
        return text[:end] + text[start:end] + text[end:]
    other = draw(st.sampled_from(spans))  # swapped with another, left or right
    (a, b), (c, d) = sorted([(start, end), other])
    if b > c:
        return None  # the same delimiter drawn twice: nothing to swap
    return text[:a] + text[c:d] + text[b:c] + text[a:b] + text[d:]


def _kinds(kinds: Iterable[str] | None) -> tuple[str, ...]:
    if kinds is None:
        return tuple(MUTATIONS)
    if isinstance(kinds, str):
        raise InvalidArgument(f"kinds must be a set of mutation kinds or None, got {kinds!r}")
    unknown = set(kinds) - set(MUTATIONS)
    if unknown or not kinds:
        raise InvalidArgument(f"unknown mutation kind(s): {', '.join(sorted(unknown)) or 'none'}"
                              f"; known: {', '.join(MUTATIONS)}")
    return tuple(kind for kind in MUTATIONS if kind in set(kinds))


@st.composite
def mutated_outputs(draw: Callable, codec: Any, *, kinds: Iterable[str] | None = None,
                    max_mutations: int = 3) -> MutatedOutput:
    """Outputs of `codec`'s format, drawn well-formed (`format_cases`, any spelling) and then
    given 0..max_mutations mutations of `kinds` (None: every kind in MUTATIONS; a set
    given: at least one mutation). Shrinks toward fewer mutations and the output as drawn."""
    allowed = _kinds(kinds)
    origin = draw(format_cases(codec))
    text, applied = origin.text, []
    count = draw(st.integers(0 if kinds is None else 1, max_mutations))
    for _ in range(count):
        kind = draw(st.sampled_from(allowed))
        mutated = _mutate(draw, codec, text, origin.calls, kind)
        if mutated is not None:
            text = mutated
            applied.append(kind)
    return MutatedOutput(origin.format, text, tuple(applied), origin)

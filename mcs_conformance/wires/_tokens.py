"""A small local tokenizer, and the deltas an inference engine streams a text in.

Engines stream a model's text token by token, often several tokens at once (speculative
decoding, `stream_interval`). What matters to a tool parser is where the deltas end: never
inside a special token (`<tool_call>`, `[TOOL_CALLS]`, ...), often inside a word, a JSON
string or a marker that is no special token. The tokenizer here cuts a text the way a BPE
vocabulary roughly does (words with their leading space, short runs of digits and of
punctuation), with each of a format's special tokens one token, and needs no download.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Callable, Iterable

from hypothesis import strategies as st

__all__ = ["token_deltas", "tokenize"]

# A word with its leading space, up to 3 digits, up to 3 punctuation marks, a run of
# whitespace, or any other single character: pieces of about the size of BPE tokens.
_PIECE = r" ?[^\W\d_]{1,8}| ?\d{1,3}| ?[^\w\s]{1,3}|\s+|."


_PIECES = re.compile(_PIECE, re.S)


@lru_cache(maxsize=64)
def _specials(special_tokens: tuple[str, ...]) -> re.Pattern | None:
    specials = sorted({token for token in special_tokens if token}, key=len, reverse=True)
    return re.compile("(" + "|".join(map(re.escape, specials)) + ")") if specials else None


def tokenize(text: str, special_tokens: Iterable[str] = ()) -> list[str]:
    """`text` as token texts: each special token whole (never part of a piece beside it),
    the rest in BPE-sized pieces. Joined, the tokens give `text` back."""
    specials = _specials(tuple(special_tokens))
    segments = specials.split(text) if specials else [text]
    tokens: list[str] = []
    for index, segment in enumerate(segments):
        if index % 2:  # re.split puts the captured special tokens at odd places
            tokens.append(segment)
        else:
            tokens += _PIECES.findall(segment)
    return tokens


# How many tokens one delta carries: one most of the time; the several an engine sends
# at once under speculative decoding or `stream_interval`, now and then a large batch.
_SIZES = st.one_of(st.just(1), st.integers(2, 8), st.integers(9, 64))


@st.composite
def token_deltas(draw: Callable, tokens: list[str]) -> list[list[str]]:
    """`tokens` grouped into deltas of one or more consecutive tokens, as an engine
    streams them (shrinks toward one token per delta)."""
    deltas: list[list[str]] = []
    start = 0
    while start < len(tokens):
        size = draw(_SIZES)
        deltas.append(tokens[start:start + size])
        start += size
    return deltas

"""The text wire: calls written as text by a codec, inside prose, streamed as content deltas.

For text codecs (JSON, Hermes, a driver developer's own). The native message is an OpenAI
Chat assistant message whose `content` is prose + `codec.encode(calls)` + prose and which has
no `tool_calls` key; the chunks are that content cut into OpenAI Chat content deltas, and
`Case.deltas` the same cuts as the plain strings a `TextStrategy` is fed directly.

The prose holds braces, JSON that is no call, code fences and tag-like text, but never
anything the codec decodes as a call. Whether prose sits well around calls is checked with
probe calls of the same names and no arguments, never with the drawn calls themselves: a
codec that mangles tricky arguments must fail the kit, not be filtered out of it.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

from hypothesis import assume, strategies as st
from hypothesis.errors import InvalidArgument

from mcs_reference import JsonCodec
from mcs_reference.calls import ExtractedCall
from mcs_conformance.wires import openai_chat
from mcs_conformance.wires._base import (built_once, Case, check_options, check_wire_options,
                                         COUNT_OPTIONS, NATIVE_OPTIONS, Tape, tapes, Wire)
from mcs_conformance.wires._content import draw_arguments, draw_tool_name, FRAGMENTS, positions
from mcs_conformance.wires._quirks import allowed_quirks

__all__ = ["NAME", "case_of", "cases", "make_wire", "messages"]

NAME = "text"
DECOYS = (
    "{", "}", "{}", '{"a": 1}', '{"name": "x"}', '{"tool": 1}', '{"arguments": {}}', "[1, 2]",
    "```", "```json\n{\"answer\": 42}\n```", "```python\nprint({'a': 1})\n```\n",
    "<b>bold</b>", "<tool>", "</tool_call>", "<think>", "</think>", "<|im_end|>",
    "Here is the result:", " Let me check.", "\n",
)
SEPARATORS = ("", " ", "\n", "\n\n")
# The OpenAI Chat quirks that leave the content deltas alone (no other choices, no
# reasoning, no calls to cut): the text wire's chunks carry these only.
CHUNK_QUIRKS = frozenset({"empty-deltas", "usage-only-chunk", "usage-on-finish-chunk",
                          "finish-reason-on-last-delta"})


# What a code of inert prose spells: a tricky fragment or character of prose (code 0 the
# simplest), or a decoy (about one code in four: a drawn text holds about as many decoys as
# when it was a list of pieces, each a decoy or a few fragments of prose).
_INERT_TABLE = FRAGMENTS + DECOYS
_INERT_CODES = st.binary(max_size=12)
_FREE_TEXT = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=24)


def _spelled(codes: bytes) -> str:
    return "".join(_INERT_TABLE[code % len(_INERT_TABLE)] for code in codes)


_AROUND_FREE_TEXT = st.booleans()


@st.composite
def _inert_text(draw: Callable) -> str:
    """Prose and decoys spelled from one drawn string of codes, with or without unicode
    text in their middle (drawn first, as `st.one_of` would, through fewer layers): one or
    two drawn values beside the choice, where a list of drawn pieces cost two or three a
    piece."""
    around = draw(_AROUND_FREE_TEXT)
    codes = draw(_INERT_CODES)
    if not around:
        return _spelled(codes)
    middle = len(codes) // 2
    return _spelled(codes[:middle]) + draw(_FREE_TEXT) + _spelled(codes[middle:])


_INERT_TEXT = _inert_text()


@built_once
def _inert(codec: Any) -> st.SearchStrategy[str]:
    """Prose, decoys included, in which `codec` finds no call."""
    return _INERT_TEXT.filter(lambda value: not codec.decode(value))


def _same_calls(found: list, expected: list) -> bool:
    return [(c.name, c.arguments, c.error) for c in found] == [
        (c.name, c.arguments, None) for c in expected
    ]


# The small decisions of one text: the separators around the calls.
_TAPES = tapes(("lead", "tail"))


def _texts(draw: Callable, tape: Tape, codec: Any, min_calls: int,
           max_calls: int) -> tuple[str, list]:
    """The content text and the calls written in it."""
    check_options(min_calls, max_calls)
    count = min_calls + draw(positions(max_calls - min_calls))  # drawn: shrinks with the calls
    calls = [ExtractedCall(draw_tool_name(draw), draw_arguments(draw)) for _ in range(count)]
    before, after = draw(_inert(codec)), draw(_inert(codec))
    if not calls:
        assume(not codec.decode(before + after))
        return before + after, calls
    lead, tail = tape.pick("lead", SEPARATORS), tape.pick("tail", SEPARATORS)
    probes = [ExtractedCall(call.name, {}) for call in calls]
    assume(_same_calls(codec.decode(before + lead + codec.encode(probes) + tail + after), probes))
    return before + lead + codec.encode(calls) + tail + after, calls


@st.composite
def messages(draw: Callable, *, codec: Any, min_calls: int = 0, max_calls: int = 3) -> dict:
    """OpenAI Chat assistant messages whose content holds 0..n calls written by `codec`."""
    content, _ = _texts(draw, _TAPES(draw), codec, min_calls, max_calls)
    return {"role": "assistant", "content": content, "refusal": None, "annotations": []}


def case_of(message: dict, chunks: list, calls: list[ExtractedCall]) -> Case:
    """The `Case` for a text message carried by OpenAI Chat `chunks`."""
    deltas = [
        choice["delta"]["content"]
        for chunk in chunks
        for choice in chunk["choices"]
        if isinstance(choice["delta"].get("content"), str)
    ]
    base = openai_chat.case_of(message, chunks)
    return replace(base, wire=NAME, calls=list(calls), deltas=deltas)


@st.composite
def cases(draw: Callable, *, codec: Any, min_calls: int = 0, max_calls: int = 3,
          max_cuts: int = 8, quirks=None) -> Case:
    """Generated text streams with the truth about them; `quirks` selects among the
    OpenAI Chat quirks the text wire draws (`CHUNK_QUIRKS`)."""
    check_options(min_calls, max_calls, max_cuts)
    allowed = CHUNK_QUIRKS & allowed_quirks(openai_chat.NAME, quirks)
    # Drawn first, as in openai_chat.cases: the stream's decisions, then the text's.
    stream_tape, tape = openai_chat.STREAM_TAPES(draw), _TAPES(draw)
    content, calls = _texts(draw, tape, codec, min_calls, max_calls)
    message = {"role": "assistant", "content": content, "refusal": None, "annotations": []}
    chunks, quirks, _, _ = openai_chat.stream(draw, message, max_cuts, allowed, tape=stream_tape)
    return replace(case_of(message, chunks, calls), quirks=frozenset(quirks))


def make_wire(codec: Any = None, **options: Any) -> Wire:
    """The text wire for `codec` (default: the reference's `JsonCodec()`)."""
    check_wire_options(NAME, options, NATIVE_OPTIONS | {"quirks"})
    if codec is None:
        codec = JsonCodec()
    for method in ("encode", "decode"):
        if not callable(getattr(codec, method, None)):
            raise InvalidArgument(f"the text wire needs a codec with {method}(), got {codec!r}")
    counts = {k: v for k, v in options.items() if k in COUNT_OPTIONS}
    return Wire(
        name=NAME,
        strategy_names=frozenset(),
        # Built once per set of options: clauses ask for `wire.cases()` inside their draws.
        messages=built_once(lambda **opts: messages(**{"codec": codec, **counts, **opts})),
        cases=built_once(lambda **opts: cases(**{"codec": codec, **options, **opts})),
        chunk_schema="openai-chat.chunk.json",
        message_schema="text.message.json",
        request_schema="text.request.json",
        native=False,
        options={"codec": codec, **options},
    )

"""How an OpenAI Chat stream picks among modes that exclude one another.

A stream sends its calls one way (OpenAI's own header then pieces, Mistral's whole calls
without index, vLLM's id then name, whole calls) and ends one way (a finish chunk, or
Zhipu's, Mistral's, Snowflake's). A plain quirk selection keeps the odds the wire always
had; a server profile's (`OftenQuirks`) makes one of its own modes come out 7 times in 8,
so that a profile holding two of them (Mistral, Zhipu) serves each often.
"""
from __future__ import annotations

from mcs_conformance.wires._base import Tape
from mcs_conformance.wires._quirks import maybe, often_pick, OftenQuirks

__all__ = ["call_style", "finish_mode", "usage_place"]

_CALL_STYLES = ("whole-call-one-delta", "split-id-then-name")
#: Quirks of calls sent in pieces: a profile holding one sends OpenAI's own header too.
_PIECEWISE = frozenset({"empty-id-continuations", "empty-name-continuations", "empty-fragments"})
_USAGE_PLACES = ("usage-only-chunk", "usage-on-finish-chunk")
_FINISH_MODES = ("finish-reason-first-chunk", "finish-reason-on-last-delta", "no-finish-reason")


def call_style(tape: Tape, allowed: frozenset) -> str:
    """How calls are sent: `no-index` (Mistral), one of `_CALL_STYLES`, or OpenAI's own
    `header-empty` (id, name and `arguments: ""` first, then the pieces)."""
    if isinstance(allowed, OftenQuirks):  # a server profile: its own styles, often
        held = tuple(q for q in ("no-index", *_CALL_STYLES) if q in allowed)
        if allowed & _PIECEWISE and "split-id-then-name" not in allowed:
            held += ("header-empty",)
        return often_pick(tape, "call-style", "header-empty", held)
    if maybe(tape, allowed, "no-index", 3):  # Mistral: whole calls, no index
        return "no-index"
    return tape.pick("call-style", ("header-empty",) + tuple(
        q for q in _CALL_STYLES if q in allowed))


def finish_mode(tape: Tape, allowed: frozenset, single: bool) -> str:
    """How a stream ends: a finish chunk of its own (`chunk`), or one of `_FINISH_MODES`
    (Zhipu, Mistral, Snowflake), which only a one-choice stream takes."""
    if isinstance(allowed, OftenQuirks):
        held = tuple(q for q in _FINISH_MODES if q in allowed) if single else ()
        return often_pick(tape, "finish", "chunk", held)
    if single and maybe(tape, allowed, "finish-reason-first-chunk", 8):
        return "finish-reason-first-chunk"
    return tape.pick("finish", ("chunk", "chunk", "chunk") + tuple(
        q for q in _FINISH_MODES[1:] if q in allowed and single))


def usage_place(tape: Tape, allowed: frozenset) -> str:
    """Where the usage goes: `none` (no `include_usage`), or one of `_USAGE_PLACES`."""
    held = tuple(q for q in _USAGE_PLACES if q in allowed)
    if isinstance(allowed, OftenQuirks):
        return often_pick(tape, "usage", "none", held)
    return tape.pick("usage", ("none",) + held)

"""What a clause needs around its subject: the built-in wires, the reference strategies,
chains with the subject in them, and feeding a stream."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from hypothesis import strategies as st

import mcs_reference
from mcs_conformance.base import copy_json
from mcs_conformance.clauses._registry import Subject
from mcs_conformance.wires import get_wire, NATIVE_WIRES, reference_strategy

__all__ = ["assembled", "cases_with_calls", "chain_with", "feed", "feed_each", "is_native",
           "other_natives", "reference", "reference_codec", "reference_text", "stream_of",
           "text_shaped", "text_wire_of", "tools_for", "wire", "wire_name"]


@lru_cache(maxsize=None)
def wire(name: str) -> Any:
    """A built-in wire by name (wires are immutable: one instance serves every clause)."""
    return get_wire(name)


@lru_cache(maxsize=None)
def text_wire_of(codec_name: str) -> Any:
    """The text wire of a reference codec ("json" or "hermes")."""
    return get_wire("text", codec=reference_codec(codec_name))


def reference_codec(codec_name: str) -> Any:
    return mcs_reference.JsonCodec() if codec_name == "json" else mcs_reference.HermesCodec()


def reference(wire_name: str) -> Any:
    """A fresh reference strategy of a native wire."""
    return reference_strategy(wire_name)


def reference_text(codec_name: str = "json") -> Any:
    return mcs_reference.TextStrategy(reference_codec(codec_name))


def wire_name(subject: Subject) -> str | None:
    return getattr(subject.wire, "name", None)


def is_native(subject: Subject) -> bool:
    return subject.wire is not None and not subject.is_text and subject.wire.native


def other_natives(subject: Subject) -> list[str]:
    """The built-in native wires that are not the subject's."""
    own = None if subject.is_text else wire_name(subject)
    return [name for name in NATIVE_WIRES if name != own]


def chain_with(strategy: Any, own_wire: str | None, *, texts: Iterable[Any] = ()) -> Any:
    """A default-like chain with `strategy` in place of the reference of `own_wire`.

    Native strategies come first (the subject where its reference would be), then
    `texts` (default: the JSON text strategy), as in `default_chain()`.
    """
    natives = [strategy if name == own_wire else reference(name) for name in NATIVE_WIRES]
    foreign_native = own_wire not in NATIVE_WIRES and getattr(strategy, "codec", None) is None
    if strategy is not None and foreign_native:
        natives.append(strategy)
    texts = list(texts) or [reference_text("json")]
    return mcs_reference.ExtractionChain([*natives, *texts], reorder=False)


def cases_with_calls(wire_: Any, min_calls: int = 1) -> st.SearchStrategy:
    """The wire's cases with at least `min_calls` calls (built-in wires take the option)."""
    if wire_.name in NATIVE_WIRES or wire_.name == "text":
        return wire_.cases(min_calls=min_calls)
    return wire_.cases().filter(lambda case: len(case.calls) >= min_calls)


def text_shaped(wire_name_: str, message: Any) -> bool:
    """Is this an OpenAI Chat message with str content and no `tool_calls` key?

    It has exactly the text wire's shape: by design the chain hands it to the text
    strategy (which is how a call written in content is found), not to OpenAI Chat's.
    """
    return (wire_name_ == "openai-chat" and isinstance(message, dict)
            and "tool_calls" not in message and isinstance(message.get("content"), str))


def stream_of(subject: Subject, case: Any) -> list:
    """What the subject is fed for a case: a text strategy its str deltas, else the chunks."""
    if subject.is_text:
        return list(case.deltas or [])
    return case.chunks


def feed_each(strategy: Any, chunks: Iterable[Any]) -> Iterator[tuple[int, str, Any]]:
    """Fold copies of `chunks` into a fresh accumulator; yield (index, delta, acc) per chunk."""
    acc = strategy.new_accumulator()
    for index, chunk in enumerate(chunks):
        delta = strategy.accumulate(acc, copy_json(chunk))
        yield index, delta, acc


def feed(strategy: Any, chunks: Iterable[Any]) -> tuple[Any, list[str]]:
    """Fold copies of every chunk; return the accumulator and the display deltas."""
    acc = strategy.new_accumulator()
    deltas = [strategy.accumulate(acc, copy_json(chunk)) for chunk in chunks]
    return acc, deltas


def assembled(strategy: Any, chunks: Iterable[Any]) -> dict:
    """The message `strategy` assembles from `chunks`."""
    acc, _ = feed(strategy, chunks)
    return strategy.as_message(acc)


def tools_for(calls: list) -> tuple[dict, list]:
    """Tools named after `calls` that record what they were called with, and the record."""
    ran: list = []

    def tool(name: str) -> Callable[..., Any]:
        def run(**kwargs: Any) -> str:
            ran.append((name, kwargs))
            return "ok"
        return run

    return {call.name: tool(call.name) for call in calls}, ran

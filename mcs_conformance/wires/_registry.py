"""The wire registry: built-in wires by name, and third-party wires by entry point.

Each built-in wire module exposes `make_wire(**options) -> Wire`. A third party registers
its own in the `mcs_conformance.wires` entry-point group (value: `pkg.module:make_wire` or a
`Wire` instance), or passes `--mcs-wire=pkg:Obj`.
"""
from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from hypothesis import strategies as st

import mcs_reference
from mcs_conformance.wires._base import Case, Wire

__all__ = ["BUILT_IN", "NATIVE_WIRES", "case_of", "chunkings", "get_wire", "reference_strategy",
           "wire_for_strategy", "wire_names"]

BUILT_IN = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic-messages": "anthropic_messages",
    "ollama-chat": "ollama_chat",
    "gemini": "gemini",
    "bedrock-converse": "bedrock_converse",
    "text": "text",
}
NATIVE_WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "ollama-chat", "gemini",
                "bedrock-converse")
_REFERENCE = {
    "openai-chat": "OpenAIChatStrategy",
    "openai-responses": "OpenAIResponsesStrategy",
    "anthropic-messages": "AnthropicMessagesStrategy",
    "ollama-chat": "OllamaChatStrategy",
    "gemini": "GeminiStrategy",
    "bedrock-converse": "BedrockConverseStrategy",
}


def _plugged() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group="mcs_conformance.wires")}


def wire_names() -> list[str]:
    """Every wire name this installation knows."""
    return sorted(set(BUILT_IN) | set(_plugged()))


def get_wire(name: str, **options: Any) -> Wire:
    """The wire called `name`; `options` go to its `make_wire` (the text wire takes `codec=`)."""
    if name in BUILT_IN:
        return _module(name).make_wire(**options)
    plugged = _plugged().get(name)
    if plugged is None:
        raise LookupError(f"unknown wire {name!r}; known wires: {', '.join(wire_names())}")
    loaded = plugged.load()
    return loaded if isinstance(loaded, Wire) else loaded(**options)


def _module(wire: str) -> Any:
    return import_module(f"mcs_conformance.wires.{BUILT_IN[wire]}")


def chunkings(wire: str, message: Any, *, quirks: frozenset = frozenset(),
              features: frozenset | None = None) -> st.SearchStrategy[list]:
    """The ways the built-in `wire` cuts `message` into chunks, with only `quirks` and what
    a request asking `features` gets (None: everything; wires/_features.py)."""
    if features is None:
        return _module(wire).chunkings(message, quirks=quirks)
    return _module(wire).chunkings(message, quirks=quirks, features=features)


def case_of(wire: str, message: Any, chunks: list) -> Case:
    """The `Case` of the built-in `wire` that streams `message` as `chunks`."""
    return _module(wire).case_of(message, chunks)


def reference_strategy(wire: str) -> Any:
    """A fresh `mcs_reference` extraction strategy of a native built-in wire
    (`NATIVE_WIRES`): what the kit compares with and puts in chains beside a subject."""
    return getattr(mcs_reference, _REFERENCE[wire])()


def wire_for_strategy(strategy: Any) -> Wire | None:
    """The built-in wire that certifies `strategy`, chosen by its `name` (text: its codec)."""
    codec = getattr(strategy, "codec", None)
    if codec is not None:
        return get_wire("text", codec=codec)
    name = getattr(strategy, "name", None)
    for wire_name in BUILT_IN:
        if wire_name == "text":
            continue
        wire = get_wire(wire_name)
        if name in wire.strategy_names:
            return wire
    return None

"""The wire registry: built-in wires by name, and third-party wires by entry point.

Each built-in wire module exposes `make_wire(**options) -> Wire`. A third party registers
its own in the `mcs_conformance.wires` entry-point group (value: `pkg.module:make_wire` or a
`Wire` instance), or passes `--mcs-wire=pkg:Obj`.
"""
from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from ._base import Case, Wire, pieces

BUILT_IN = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic-messages": "anthropic_messages",
    "ollama-chat": "ollama_chat",
    "text": "text",
}

__all__ = ["BUILT_IN", "Case", "Wire", "get_wire", "wire_names", "wire_for_strategy", "pieces"]


def _plugged() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group="mcs_conformance.wires")}


def wire_names() -> list[str]:
    """Every wire name this installation knows."""
    return sorted(set(BUILT_IN) | set(_plugged()))


def get_wire(name: str, **options: Any) -> Wire:
    """The wire called `name`; `options` go to its `make_wire` (the text wire takes `codec=`)."""
    if name in BUILT_IN:
        return import_module(f".{BUILT_IN[name]}", __name__).make_wire(**options)
    plugged = _plugged().get(name)
    if plugged is None:
        raise LookupError(f"unknown wire {name!r}; known wires: {', '.join(wire_names())}")
    loaded = plugged.load()
    return loaded if isinstance(loaded, Wire) else loaded(**options)


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

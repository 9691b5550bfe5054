"""Load what the user names on the command line: `pkg.module:Obj` for a strategy or a wire.

`Obj` may be an instance, a class constructible with no arguments, or a zero-argument
factory. Every way this can go wrong raises `TargetError` with one line saying what to do.
"""
from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any, Callable

# The reference's extraction strategies as targets: what the kit certifies in its own CI,
# the benchmarks time, and docs/reports/ publishes.
BUNDLED_STRATEGIES = (
    "mcs_reference:OpenAIChatStrategy",
    "mcs_reference:OpenAIResponsesStrategy",
    "mcs_reference:AnthropicMessagesStrategy",
    "mcs_reference:OllamaChatStrategy",
    "mcs_reference.text:json_text_strategy",
    "mcs_reference.text:hermes_text_strategy",
)
STRATEGY_MEMBERS = (
    "name", "recognizes", "new_accumulator", "accumulate", "as_message", "is_done",
    "extract", "content_text", "forming_name", "result_messages",
)


class TargetError(ValueError):
    """Raised when a `pkg:Obj` target cannot be imported or is not what was asked for."""


@dataclass(frozen=True)
class LoadedStrategy:
    """A strategy target: how the user wrote it, one instance, and how to make more."""

    target: str
    strategy: Any
    make: Callable[[], Any]


def import_object(spec: str) -> Any:
    """Import `pkg.module:attr.path`; errors name the target and the fix."""
    module_name, sep, attr_path = spec.partition(":")
    if not sep or not module_name or not attr_path:
        raise TargetError(f"{spec}: expected 'package.module:Object'")
    try:
        module = _import(module_name)
    except ModuleNotFoundError as exc:
        raise TargetError(
            f"{spec}: cannot import module {exc.name!r} (is it installed or on sys.path?)"
        ) from None
    except Exception as exc:  # the user's module failed while importing
        raise TargetError(
            f"{spec}: importing {module_name!r} raised {type(exc).__name__}: {exc}"
        ) from None
    obj: Any = module
    for part in attr_path.split("."):
        if not hasattr(obj, part):
            raise TargetError(f"{spec}: module {module_name!r} has no attribute {attr_path!r}")
        obj = getattr(obj, part)
    return obj


def _import(module_name: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # A user's own package in the current directory, run with plain `pytest`.
        cwd = os.getcwd()
        if exc.name != module_name.split(".")[0] or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)
        return importlib.import_module(module_name)


def missing_members(obj: Any) -> list[str]:
    """Contract members `obj` lacks (empty for an extraction strategy)."""
    return [member for member in STRATEGY_MEMBERS if not hasattr(obj, member)]


def load_strategy(spec: str) -> LoadedStrategy:
    """Load an extraction strategy target: instance, no-argument class, or factory."""
    obj = import_object(spec)
    if not missing_members(obj) and not isinstance(obj, type):
        return LoadedStrategy(spec, obj, lambda: obj)
    if not callable(obj):
        raise TargetError(f"{spec}: {type(obj).__name__} object is not an extraction strategy")
    try:
        made = obj()
    except TypeError as exc:
        raise TargetError(
            f"{spec}: calling it with no arguments failed ({exc}); "
            "name an instance or a zero-argument factory instead"
        ) from None
    except Exception as exc:
        raise TargetError(f"{spec}: calling it raised {type(exc).__name__}: {exc}") from None
    missing = missing_members(made)
    if missing:
        raise TargetError(
            f"{spec}: not an extraction strategy (missing {', '.join(missing)})"
        )
    return LoadedStrategy(spec, made, obj)


@dataclass(frozen=True)
class LoadedClient:
    """A client target: how the user wrote it, its kind ("client" for `pkg:fn`, "harness"
    for a command speaking the harness protocol), and `open(timeout)`, which gives the
    callable `(base_url, wire) -> outcome` (a harness process starts then)."""

    target: str
    kind: str
    open: Callable[[float], Callable[[str, str], Any]]


def load_client(spec: str) -> LoadedClient:
    """Load a client target `pkg.module:fn`, a callable `fn(base_url, wire) -> outcome`."""
    obj = import_object(spec)
    if not callable(obj):
        raise TargetError(f"{spec}: {type(obj).__name__} object is not callable; a client is "
                          "fn(base_url: str, wire: str) -> outcome dict")
    return LoadedClient(spec, "client", lambda timeout: obj)


def load_harness(command: str) -> LoadedClient:
    """A harness target: the command line of a process speaking the harness protocol
    (docs/harness-protocol.md); it starts when the run does."""
    if not command.strip():
        raise TargetError("--harness: expected a command line, e.g. \"node harness.js\"")

    def open_harness(timeout: float) -> Callable[[str, str], Any]:
        from .clients.harness import harness_client  # the protocol's side of the kit

        return harness_client(command, timeout=timeout)

    return LoadedClient(command, "harness", open_harness)


def load_wire(spec: str) -> Any:
    """A wire by built-in name (`openai-chat`, ...) or `pkg:Obj` (a Wire or a factory of one)."""
    from .wires import Wire, get_wire, wire_names

    if ":" not in spec:
        try:
            return get_wire(spec)
        except LookupError:
            raise TargetError(
                f"{spec}: unknown wire; known wires: {', '.join(wire_names())}"
            ) from None
    obj = import_object(spec)
    if isinstance(obj, Wire):
        return obj
    if callable(obj):
        try:
            made = obj()
        except Exception as exc:
            raise TargetError(f"{spec}: calling it raised {type(exc).__name__}: {exc}") from None
        if isinstance(made, Wire):
            return made
    raise TargetError(f"{spec}: not a mcs_conformance.wires.Wire nor a factory of one")

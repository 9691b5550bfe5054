"""Load what the user names on the command line: `pkg.module:Obj` for a strategy or a wire.

`Obj` may be an instance, a class constructible with no arguments, or a zero-argument
factory. Every way this can go wrong raises `TargetError` with one line saying what to do.
"""
from __future__ import annotations

from typing import Any

from mcs_conformance.base import TargetError, import_object
from mcs_reference.formats import format_codec, format_names
from mcs_conformance.targets._kinds import ClientTarget, HarnessTarget, ParserTarget, StrategyTarget
from mcs_conformance.wires import Wire, get_wire, wire_names

__all__ = ["BUNDLED_STRATEGIES", "FORMAT_NAMES", "PARSER_MEMBERS", "STRATEGY_MEMBERS", "load_client",
           "load_harness", "load_parser", "load_strategy", "load_wire", "missing_members"]

# The reference's extraction strategies as targets: what the kit certifies in its own CI,
# the benchmarks time, and docs/reports/ publishes.
BUNDLED_STRATEGIES = (
    "mcs_reference:OpenAIChatStrategy",
    "mcs_reference:OpenAIResponsesStrategy",
    "mcs_reference:AnthropicMessagesStrategy",
    "mcs_reference:OllamaChatStrategy",
    "mcs_reference:GeminiStrategy",
    "mcs_reference:BedrockConverseStrategy",
    "mcs_reference.text:json_text_strategy",
    "mcs_reference.text:hermes_text_strategy",
)
STRATEGY_MEMBERS = (
    "name", "recognizes", "new_accumulator", "accumulate", "as_message", "is_done",
    "extract", "content_text", "forming_name", "result_messages",
)


def missing_members(obj: Any) -> list[str]:
    """Contract members `obj` lacks (empty for an extraction strategy)."""
    return [member for member in STRATEGY_MEMBERS if not hasattr(obj, member)]


def load_strategy(spec: str) -> StrategyTarget:
    """Load an extraction strategy target: instance, no-argument class, or factory."""
    obj = import_object(spec)
    if not missing_members(obj) and not isinstance(obj, type):
        return StrategyTarget(spec, obj, lambda: obj)
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
    return StrategyTarget(spec, made, obj)


def load_client(spec: str) -> ClientTarget:
    """Load a client target `pkg.module:fn`, a callable `fn(base_url, wire) -> outcome`."""
    obj = import_object(spec)
    if not callable(obj):
        raise TargetError(f"{spec}: {type(obj).__name__} object is not callable; a client is "
                          "fn(base_url: str, wire: str) -> outcome dict")
    return ClientTarget(spec, obj)


def load_harness(command: str) -> HarnessTarget:
    """A harness target: the command line of a process speaking the harness protocol
    (docs/harness-protocol.md); it starts when the run does."""
    if not command.strip():
        raise TargetError("--harness: expected a command line, e.g. \"node harness.js\"")
    return HarnessTarget(command)


PARSER_MEMBERS = ("parse", "stream")
FORMAT_NAMES = tuple(format_names())  # the catalogue's formats (docs/formats.md)


def load_parser(spec: str, format: str) -> ParserTarget:
    """An engine's tool parser: the factory `pkg:factory` called with a catalogue format's
    name (docs/engines.md)."""
    factory = import_object(spec)
    if not callable(factory):
        raise TargetError(f"{spec}: {type(factory).__name__} object is not callable; a parser "
                          "target is a factory parser(format) -> Parser")
    offered = getattr(factory, "formats", None)
    if offered is not None and format not in offered:
        raise TargetError(f"{spec}: no parser for the format {format}; it has "
                          f"{', '.join(offered) or 'none'}")
    try:
        made = factory(format)
    except Exception as exc:
        raise TargetError(f"{spec}: calling it with {format!r} raised "
                          f"{type(exc).__name__}: {exc}") from None
    missing = [m for m in PARSER_MEMBERS if not callable(getattr(made, m, None))]
    if missing:
        raise TargetError(f"{spec}: what it made for {format} is no parser (missing "
                          f"{', '.join(missing)})")
    return ParserTarget(spec, format, made, format_codec(format))


def load_wire(spec: str) -> Wire:
    """A wire by built-in name (`openai-chat`, ...) or `pkg:Obj` (a Wire or a factory of one)."""
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

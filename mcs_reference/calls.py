"""The value types a driver works with: calls found in a message, and calls it has run.

Also the builders every strategy makes an `ExtractedCall` with, from an arguments JSON text
or an already-parsed value, or for a call without a name, so that a bad call becomes an error
call the same way on every wire.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ._json import FINITE_JSON, is_finite_json

__all__ = ["ExtractedCall", "ToolCallRecord", "call_from_json_text", "call_from_object",
           "nameless_call"]


@dataclass(frozen=True)
class ExtractedCall:
    """One client-run tool call found in a message.

    A call whose arguments are not a JSON object keeps `arguments == {}`, sets `error`, and
    keeps the text in `raw_arguments`: it is reported, never dropped and never executed.

    `kind` says what the client must run, whatever the wire (docs/architecture.md):
    `"function"` (JSON `arguments`), `"custom"` (free-form text in `input`, `arguments`
    stays `{}`), and the Responses built-in tools `"computer"`, `"local_shell"`, `"shell"`
    and `"apply_patch"`, whose `name` is the kind and whose `arguments` is the item's
    payload (`action`, `operation`, ...). `id` is the id the result must answer
    (`call_id` on Responses). Provider-run calls are never `ExtractedCall`s.
    """

    name: str
    arguments: dict = field(default_factory=dict)
    id: str | None = None
    error: str | None = None
    raw_arguments: str | None = None
    kind: str = "function"
    input: str | None = None


@dataclass
class ToolCallRecord:
    """A call after the driver handled it: its result, or why it failed.

    `kind` is the kind of the call it answers: `result_messages` writes the result as that
    kind's output (a Responses `custom_tool_call_output`, ...).
    """

    name: str
    arguments: dict
    result: Any = None
    error: str | None = None
    tool_call_id: str | None = None
    kind: str = "function"


def call_from_json_text(name: str, text: str, id: str | None = None) -> ExtractedCall:
    """Build a call from an arguments JSON text; anything but a JSON object is an error call.

    Empty text means no arguments (`{}`): providers send `""` for a call without parameters.
    Hostile input (deep nesting, huge numbers) becomes an error call instead of a crash, and
    so do NaN, Infinity and a number that overflows a double: no JSON holds them.
    """
    if text == "" or text.isspace():
        return ExtractedCall(name=name, arguments={}, id=id)
    try:
        value = FINITE_JSON.decode(text)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return ExtractedCall(name, {}, id, f"arguments are not valid JSON: {reason}", text)
    if not isinstance(value, dict):
        kind = type(value).__name__
        return ExtractedCall(name, {}, id, f"arguments must be a JSON object, got {kind}", text)
    return ExtractedCall(name=name, arguments=value, id=id)


def call_from_object(name: str, value: Any, id: str | None = None) -> ExtractedCall:
    """Build a call from an already-parsed arguments value (Anthropic `input`, Ollama)."""
    if value is None:
        return ExtractedCall(name=name, arguments={}, id=id)
    if isinstance(value, dict):
        if not is_finite_json(value):  # a chunk read by a lenient decoder: NaN, inf
            return ExtractedCall(name, {}, id, "arguments hold a number JSON cannot (NaN or "
                                 "infinite)", json.dumps(value, ensure_ascii=False))
        return ExtractedCall(name=name, arguments=value, id=id)
    if isinstance(value, str):
        return call_from_json_text(name, value, id)
    kind = type(value).__name__
    return ExtractedCall(name, {}, id, f"arguments must be an object, got {kind}", repr(value))


def nameless_call(source: Any, id: str | None, error: str = "tool call has no name") -> ExtractedCall:
    """The error call for a call object without a string name: reported, never run, with the
    whole object kept as JSON in `raw_arguments`."""
    return ExtractedCall("", {}, id, error, json.dumps(source, ensure_ascii=False, default=str))

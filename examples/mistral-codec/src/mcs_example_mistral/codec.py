"""`MistralCodec`: tool calls that Mistral models write as text after a `[TOOL_CALLS]` marker.

Two generations of the format are read:
- before tokenizer v11: `[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]`, one JSON
  array of calls (keys in any order, an optional `id`), text possibly before the marker;
- v11 and later: `[TOOL_CALLS]name{...}`, the marker repeated before every call.
`encode` writes the first form. Decoding never raises: a call that cannot be read becomes
an `ExtractedCall` with `error` set, and a marker followed by nothing call-like is prose.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable

from mcs_reference import ExtractedCall, TextStrategy, ToolCallRecord
from mcs_reference.calls import call_from_object

__all__ = ["MARKER", "MistralCodec", "mistral_strategy"]

MARKER = "[TOOL_CALLS]"
_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"\s*")
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")  # a v11 tool name, right after the marker
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


class MistralCodec:
    """Read and write Mistral `[TOOL_CALLS]` text; see the module docstring."""

    name = "mistral"

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order; a call cut off at the end is an error call."""
        if MARKER not in text:
            return []
        calls: list[ExtractedCall] = []
        pos = text.find(MARKER)
        while pos != -1:
            end = _block(text, pos + len(MARKER), calls)
            pos = text.find(MARKER, end)
        return calls

    def peek_name(self, text: str) -> str | None:
        """Mid-stream: the name of the last call started, once its name is complete."""
        calls = self.decode(text)
        return (calls[-1].name or None) if calls else None

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """`[TOOL_CALLS] [...]`; an error call keeps its raw arguments as a string."""
        items = []
        for call in calls:
            broken = call.error is not None and call.raw_arguments is not None
            item: dict[str, Any] = {"name": call.name,
                                    "arguments": call.raw_arguments if broken else call.arguments}
            if call.id is not None:
                item["id"] = call.id
            items.append(item)
        return f"{MARKER} {json.dumps(items, ensure_ascii=False)}"

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One `[TOOL_RESULTS]...[/TOOL_RESULTS]` block per result, as Mistral's templates do."""
        blocks = []
        for record in records:
            value: dict[str, Any] = {"name": record.name}
            if record.tool_call_id is not None:
                value["call_id"] = record.tool_call_id
            if record.error is not None:
                value["error"] = record.error
            else:
                value["content"] = _json_value(record.result)
            blocks.append(f"[TOOL_RESULTS]{json.dumps(value, ensure_ascii=False)}[/TOOL_RESULTS]")
        return "".join(blocks)

    def __repr__(self) -> str:
        return "MistralCodec()"


def mistral_strategy() -> TextStrategy:
    """The extraction strategy to certify: the reference `TextStrategy` with this codec."""
    return TextStrategy(MistralCodec())


def _json_value(value: Any) -> Any:
    """`value` as JSON data (anything else as its `str`)."""
    try:
        return json.loads(json.dumps(value, default=str))
    except (TypeError, ValueError, RecursionError):
        return str(value)


def _block(text: str, start: int, calls: list[ExtractedCall]) -> int:
    """Read what follows one marker into `calls`; return where reading stopped."""
    i = _SPACE.match(text, start).end()
    if i >= len(text):
        return i
    if text[i] == "[":
        return _array(text, i + 1, calls)
    if text[i] == "{":
        return _element(text, i, calls)
    found = _NAME.match(text, start)  # v11 writes the name right after the marker
    return i if found is None else _named(text, found, calls)


def _array(text: str, i: int, calls: list[ExtractedCall]) -> int:
    """Pre-v11: the call objects of an array, up to its `]` (or the end of the text)."""
    n = len(text)
    while True:
        i = _SPACE.match(text, i).end()
        if i >= n:
            return n
        if text[i] == "]":
            return i + 1
        if text[i] == ",":
            i += 1
        elif text[i] == "{":
            i = _element(text, i, calls)
        else:  # not an array of calls after all: prose
            return i


def _element(text: str, i: int, calls: list[ExtractedCall]) -> int:
    """One `{"name": ..., "arguments": ...}` object at `i`."""
    try:
        value, end = _DECODER.raw_decode(text, i)
    except (ValueError, RecursionError):
        name, end, closed = _scan(text, i)
        reason = "is not valid JSON" if closed else "is unterminated"
        calls.append(ExtractedCall(name or "", {}, None, f"tool call {reason}", text[i:end]))
        return end
    raw = text[i:end]
    if not isinstance(value, dict):
        calls.append(ExtractedCall("", {}, None, "tool call must be an object", raw))
        return end
    name, call_id = value.get("name"), value.get("id")
    call_id = call_id if isinstance(call_id, str) and call_id else None
    if not isinstance(name, str):
        calls.append(ExtractedCall("", {}, call_id, 'tool call has no "name" string', raw))
    else:
        calls.append(call_from_object(name, value.get("arguments"), call_id))
    return end


def _named(text: str, found: re.Match, calls: list[ExtractedCall]) -> int:
    """v11: `name{arguments}` right after the marker."""
    name, n = found.group(), len(text)
    i = _SPACE.match(text, found.end()).end()
    if i >= n:  # the name itself may still be growing
        calls.append(ExtractedCall("", {}, None, "tool call is unterminated", text[found.start():]))
        return n
    if text[i] != "{":  # the marker mentioned in prose
        return found.start()
    try:
        value, end = _DECODER.raw_decode(text, i)
    except (ValueError, RecursionError):
        _, end, closed = _scan(text, i)
        reason = "are not valid JSON" if closed else "are unterminated"
        calls.append(ExtractedCall(name, {}, None, f"arguments {reason}", text[i:end]))
        return end
    calls.append(call_from_object(name, value))
    return end


def _scan(text: str, i: int) -> tuple[str | None, int, bool]:
    """For an object at `i` that does not decode: its `name` if a top-level one is complete,
    where it ends (after its closing brace, else the end of the text), and if it closed."""
    depth, key, in_value, name, n = 0, None, False, None, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            found = _STRING.match(text, i)
            if found is None:  # a string cut off by the end of the text
                return name, n, False
            if depth == 1:
                if not in_value:
                    key = found.group()
                elif key == '"name"' and name is None:
                    try:
                        name = json.loads(found.group())
                    except ValueError:
                        pass
            i = found.end()
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return name, i + 1, True
        elif depth == 1 and char == ":":
            in_value = True
        elif depth == 1 and char == ",":
            key, in_value = None, False
        i += 1
    return name, n, False

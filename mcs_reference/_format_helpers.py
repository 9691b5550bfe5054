"""Private helpers the format codecs share (formats_json_calls, formats_harmony).

The base class with the catalogue attributes, the test for a call a format can carry at
best, reading one JSON value without raising, and writing arguments and results.
"""
from __future__ import annotations

import json
import re
from typing import Any, Iterable

from .calls import ExtractedCall, ToolCallRecord, call_from_json_text
from .text_codecs import _dumps as dumps
from .text_codecs import _object_end, _raw_decode, _Unreadable
from .text_codecs import _result_value as result_value

__all__ = ["FormatCodec", "arguments_value", "decode_at", "dumps", "from_value", "is_plain",
           "name_of", "records_as_json_lines", "result_text", "result_value", "visible_name",
           "without_spans"]

_NAME_VALUE = re.compile(r'"name"\s*:\s*("(?:[^"\\\n]|\\.){0,256}")')


def is_plain(call: ExtractedCall) -> bool:
    """A readable function call with JSON-object arguments (what every format can carry at
    best; an error call keeps raw text that no format reads back to the same error)."""
    if call.error is not None or call.kind != "function" or call.input is not None:
        return False
    if not isinstance(call.arguments, dict):
        return False
    try:
        return json.loads(json.dumps(call.arguments)) == call.arguments
    except (TypeError, ValueError, RecursionError):
        return False


def name_of(literal: str) -> str:
    try:
        value = json.loads(literal)
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""


def visible_name(span: str) -> str:
    found = _NAME_VALUE.search(span)
    return name_of(found.group(1)) if found else ""


def arguments_value(call: ExtractedCall) -> Any:
    """The arguments to write: the object, or an error call's raw text as a JSON string."""
    if call.error is not None and call.raw_arguments is not None:
        return call.raw_arguments
    return call.arguments


def from_value(name: str, value: Any, id: str | None, raw: str) -> ExtractedCall:
    """A call from a decoded arguments value: an object, or a JSON text holding one."""
    if isinstance(value, dict):
        return ExtractedCall(name, value, id)
    if isinstance(value, str):  # double-encoded arguments, as some fine-tunes write them
        return call_from_json_text(name, value, id)
    kind = "null" if value is None else type(value).__name__
    return ExtractedCall(name, {}, id, f"arguments must be a JSON object, got {kind}", raw)


def decode_at(text: str, pos: int) -> tuple[Any, int, str | None]:
    """(value, end, None) for the JSON value at `pos`, or (None, stop, why) when it cannot be
    read; `stop` is where reading may go on."""
    try:
        value, end = _raw_decode(text, pos)
    except _Unreadable as exc:
        if exc.pos >= len(text) or exc.msg.startswith("Unterminated"):
            return None, len(text), "unterminated"
        return None, max(exc.pos, pos + 1), f"not valid JSON: {exc.msg}"
    except (RecursionError, ValueError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return None, _object_end(text, pos), f"not readable: {reason}"
    return value, end, None


def without_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` without the spans (sorted, disjoint)."""
    pieces, last = [], 0
    for start, end in spans:
        pieces.append(text[last:start])
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def records_as_json_lines(records: Iterable[ToolCallRecord]) -> str:
    """One JSON object a result: `name`, then `output` or `error` (an ipython turn's body)."""
    lines = []
    for record in records:
        value: dict[str, Any] = {"name": record.name}
        if record.error is not None:
            value["error"] = record.error
        else:
            value["output"] = result_value(record)
        lines.append(dumps(value))
    return "\n".join(lines)


def result_text(record: ToolCallRecord) -> str:
    if record.error is not None:
        return dumps({"error": record.error})
    value = result_value(record)
    return value if isinstance(value, str) else dumps(value)


class FormatCodec:
    """What every format codec shares: the catalogue attributes and `__repr__`."""

    name = ""
    special_tokens: tuple[str, ...] = ()
    prose_between = False
    prose_after = False
    source = ""

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order."""
        return [call for _, _, call, _ in self._scan(text)]

    def content(self, text: str) -> str:
        """The prose: `text` without its calls and their markers."""
        spans = {(start, end) for start, end, _, _ in self._scan(text)}
        return without_spans(text, sorted(spans))

    def peek_name(self, text: str) -> str | None:
        """The name of the call being written once its name is complete, else the last
        call's; None while no call has a known name."""
        names = [call.name for _, _, call, complete in self._scan(text) if complete and call.name]
        return names[-1] if names else None

    def _scan(self, text: str) -> list[tuple[int, int, ExtractedCall, bool]]:
        """(start, end, call, name complete) for every call, in order."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

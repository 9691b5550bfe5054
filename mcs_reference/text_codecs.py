"""Text codecs: how a model writes tool calls inside plain text, and how to read them back.

A codec reads calls out of text (`decode`), writes calls as a model would (`encode`, what the
kit generates from), names the call being written mid-stream (`peek_name`, or incrementally
through `tracker()`), and writes results back for a text-only model (`encode_results`).
Decoding never raises: a call that cannot be read becomes an `ExtractedCall` with `error`,
and text that only looks like JSON or tags yields no call at all.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import re
from typing import Any, Iterable

from ._format_base import (JSON_STRING, OBJECT_HEAD, Unreadable, arguments_call, arguments_value,
                           is_plain, name_allowed, object_end, python_source, raw_decode,
                           refused_end, result_object, vetted, without_spans)
from .calls import ExtractedCall, ToolCallRecord
from .name_tracker import MORE as _MORE
from .name_tracker import NameTracker

__all__ = ["HermesCodec", "JsonCodec", "NameTracker"]

_WS = " \t\r\n"
# Bounds of what the name tracker reads after an opening; past them it is no call opening.
_MAX_WS = 128
_MAX_KEY = 16
_MAX_NAME = 256
_NO = object()  # definitely not a call opening


# -- shared helpers ------------------------------------------------------------------------
def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _call_from_value(name: str, value: Any, id: str | None) -> ExtractedCall:
    """A call from a decoded `arguments` value: an object, or a JSON text holding one."""
    if isinstance(value, dict):
        return ExtractedCall(name, value, id)
    if isinstance(value, str):  # Granite 4 and some fine-tunes double-encode the arguments
        return arguments_call(name, value, id)
    try:
        raw = _dumps(value)
    except (TypeError, ValueError, RecursionError):
        raw = repr(value)
    kind = "null" if value is None else type(value).__name__
    return ExtractedCall(name, {}, id, f"arguments must be a JSON object, got {kind}", raw)


def _id_of(value: dict) -> str | None:
    found = value.get("id")
    return found if isinstance(found, str) and found else None


def _skip_ws(text: str, i: int, n: int) -> int:
    """First non-whitespace index at or after `i` (`n` if the text ends), -1 past _MAX_WS."""
    stop = min(n, i + _MAX_WS + 1)
    while i < stop and text[i] in _WS:
        i += 1
    return -1 if i == stop and stop < n else i


def _string_end(text: str, i: int, n: int, limit: int) -> Any:
    """Index after the string whose quote is at `i`; _MORE if the text ends first, _NO if
    its body is longer than `limit`."""
    quote = text[i]
    j = i + 1
    while True:
        if j - i - 1 > limit:
            return _NO
        if j >= n:
            return _MORE
        char = text[j]
        if char == "\\":
            j += 2
        elif char == quote:
            return j + 1
        else:
            j += 1


def _unquote(literal: str) -> str | None:
    """The value of a JSON (or, single-quoted, Python) string literal; None if invalid."""
    try:
        if literal[0] == '"':
            value = json.loads(literal)
        else:
            value = ast.literal_eval(python_source(literal).text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


def _first_key_value(text: str, brace: int, n: int, key: str, quotes: str) -> Any:
    """After the `{` at `brace`, the string value of `key` when it is the object's first key
    (`{"key": "VALUE"`, strings quoted with one of `quotes`): the value; None for an object
    that opens otherwise (or a value that is no string); _MORE while the text ends too early
    to tell; _NO when no key can start here."""
    i = _skip_ws(text, brace + 1, n)
    if i < 0 or (i < n and text[i] not in quotes):
        return _NO
    if i >= n:
        return _MORE
    end = _string_end(text, i, n, _MAX_KEY)
    if end is _MORE:
        return end
    if end is _NO or text[i + 1:end - 1] != key:
        return None
    i = _skip_ws(text, end, n)
    if i < 0 or (i < n and text[i] != ":"):
        return None
    if i >= n:
        return _MORE
    i = _skip_ws(text, i + 1, n)
    if i < 0 or (i < n and text[i] not in quotes):
        return None
    if i >= n:
        return _MORE
    end = _string_end(text, i, n, _MAX_NAME)
    if end is _MORE:
        return end
    return None if end is _NO else _unquote(text[i:end])


def _fenced(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of a call object, widened to the json code fence alone around it."""
    before = text.rfind("```json", 0, start)
    if before != -1 and not text[before + 7:start].strip():
        close = text.find("```", end)
        if close != -1 and not text[end:close].strip():
            return before, close + 3
    return start, end


def _after_close(text: str, end: int) -> int:
    """After a Hermes body ending at `end`: past the closing tag when only blanks precede it."""
    i = end
    while i < len(text) and text[i] in _WS:
        i += 1
    return i + len(_CLOSE) if text.startswith(_CLOSE, i) else end


class _Codec:
    """What both codecs share: `peek_name` and `tracker` over the codec's `_opening`."""

    name = ""
    opening_markers: tuple[str, ...] = ()
    special_tokens: tuple[str, ...] = ()
    _definite = False  # does every opening start a call (True), or may it be prose JSON?
    _quotes = '"'
    _outside: re.Pattern

    def allows_name(self, name: str) -> bool:
        """Can a call bear `name` here (one word, none of the special tokens: see
        `name_allowed`)? `decode` makes a call with any other name an error call."""
        return name_allowed(name, "", self.special_tokens)

    def can_carry(self, call: ExtractedCall) -> bool:
        """A readable call with JSON-object arguments and a name the format allows."""
        return is_plain(call) and self.allows_name(call.name)

    def tracker(self) -> NameTracker:
        """A fresh incremental reader of the forming call's name (see `NameTracker`)."""
        return NameTracker(self)

    def peek_name(self, text: str) -> str | None:
        """Mid-stream: the name of the call being written once its name is complete (else
        the last call's); None while no call has a known name."""
        return NameTracker(self).feed(text)

    def _opening(self, buf: str) -> tuple[Any, int, int, str | None]:
        """(state, start, brace, name): state None (no opening: keep `buf[start:]`), _MORE
        (undecided opening at `start`), or True (a call opens at `start`, its object at
        `brace`; `name` when its head already shows it)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


# -- JSON ----------------------------------------------------------------------------------
_JSON_CALL_HEAD = re.compile(r'\{\s*"tool"\s*:\s*"')
_JSON_TOOL_KEY = re.compile(r'"tool"\s*:\s*(' + JSON_STRING + ")")
_JSON_ARGS_KEY = re.compile(r'"arguments"\s*:')


class JsonCodec(_Codec):
    """`{"tool": NAME, "arguments": {...}}`, bare or fenced as a json code block.

    Several calls are several objects. Only an object with a string `tool` and an
    `arguments` key is a call, so prose JSON, braces in code and `{}` are never calls.
    Arguments that are a JSON text holding an object are parsed; any other value is an
    error call. An object that opens as a call (`{"tool": "NAME"`, with an `arguments` key
    after) but is not valid JSON is an error call keeping its text in `raw_arguments`.
    """

    name = "text-json"
    opening_markers = ('"tool"', "```json")
    special_tokens: tuple[str, ...] = ()
    # The kit's own format, written into any text: prose anywhere around the calls.
    prose_between = prose_after = True
    source = "this kit's default text format (docs/formats.md)"
    # Outside strings a JSON call holds only structure, numbers and true/false/null.
    _outside = re.compile(r"[^ \t\r\n,:\[\]0-9+\-.aeEflnrstu]")

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order."""
        return [call for _, _, call in self._spans(text)]

    def content(self, text: str) -> str:
        """The prose: `text` without its call objects (a fence around one call goes too)."""
        return without_spans(text, [_fenced(text, start, end)
                                     for start, end, _ in self._spans(text)])

    def _spans(self, text: str) -> list[tuple[int, int, ExtractedCall]]:
        """Each call with where its object starts and ends in `text`."""
        if '"tool"' not in text:
            return []
        calls: list[tuple[int, int, ExtractedCall]] = []
        find = text.find
        pos = find("{")
        while pos != -1:
            if not OBJECT_HEAD.match(text, pos):  # no `{"key":` here: no object, no call
                pos = find("{", pos + 1)
                continue
            try:
                value, end = raw_decode(text, pos)
            except Unreadable as exc:
                stop = max(exc.pos, pos + 1)
                broken = self._broken(text, pos, stop, f"not valid JSON: {exc.msg}")
                if broken is None:
                    pos = find("{", pos + 1)
                else:
                    calls.append((pos, stop, broken))
                    pos = find("{", stop)
                continue
            except (RecursionError, ValueError) as exc:  # nested too deeply, number too long
                deep = isinstance(exc, RecursionError)
                end = object_end(text, pos) if deep else refused_end(text, pos)
                reason = "nested too deeply" if deep else str(exc)
                broken = self._broken(text, pos, end, f"not readable: {reason}")
                if broken is not None:
                    calls.append((pos, end, broken))
                pos = find("{", end)
                continue
            if _is_json_call(value):
                call = _call_from_value(value["tool"], value["arguments"], _id_of(value))
                calls.append((pos, end, vetted(self, call, text[pos:end])))
                pos = find("{", end)
            elif find('"tool"', pos, end) == -1:  # prose JSON with no call inside
                pos = find("{", end)
            else:  # prose JSON: a call may still sit inside it
                pos = find("{", pos + 1)
        return calls

    @staticmethod
    def _broken(text: str, start: int, stop: int, reason: str) -> ExtractedCall | None:
        """An error call for text[start:stop] if it opens as a call does (`{"tool": "`) and
        has an `arguments` key, else None (prose that only looks like JSON)."""
        if not _JSON_CALL_HEAD.match(text, start):
            return None
        span = text[start:stop]
        tool = _JSON_TOOL_KEY.search(span)
        if tool is None or not _JSON_ARGS_KEY.search(span):
            return None
        name = _unquote(tool.group(1)) or ""
        return ExtractedCall(name, {}, None, f"tool call is {reason}", span)

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """One call object per line; an error call keeps its raw arguments as a string."""
        return "\n".join(_dumps(self._object(call)) for call in calls)

    @staticmethod
    def _object(call: ExtractedCall) -> dict:
        value: dict[str, Any] = {"tool": call.name, "arguments": arguments_value(call)}
        if call.id is not None:
            value["id"] = call.id
        return value

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One JSON object per result: `tool`, `id` when set, and `result` or `error`."""
        return "\n".join(_dumps(result_object(record, "tool", "result", "id"))
                         for record in records)

    def _opening(self, buf: str) -> tuple[Any, int, int, str | None]:
        n = len(buf)
        brace = buf.find("{")
        while brace != -1:
            head = _json_head(buf, brace, n)
            if head is _MORE:
                return _MORE, brace, brace, None
            if head is not _NO:
                return True, brace, brace, head
            brace = buf.find("{", brace + 1)
        return None, n, n, None


def _is_json_call(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("tool"), str) and "arguments" in value


def _json_head(text: str, brace: int, n: int) -> Any:
    """Read the head of an object at `brace`: the name when it opens `{"tool": "NAME"`, None
    for any other object (a call may still be in it, or its `tool` key come later), _MORE
    while the text ends too early to tell, _NO when no object opens here."""
    return _first_key_value(text, brace, n, "tool", '"')


# -- Hermes --------------------------------------------------------------------------------
_OPEN = "<tool_call>"
_CLOSE = "</tool_call>"
_HERMES_NAME = re.compile(r"""(["'])name\1\s*:\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')""")
_EVAL_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)


class HermesCodec(_Codec):
    """`<tool_call>{"name": NAME, "arguments": {...}}</tool_call>` (Hermes, Qwen, Granite).

    With or without newlines inside the tags, several back to back, text before. The
    object right after each `<tool_call>` is decoded as JSON (never by looking for the
    closing tag first: argument values may hold it). Also read: `arguments` as a JSON text
    (Granite 4), a Python dict with single quotes (Hermes-2-Pro, through
    `ast.literal_eval`, literals only), a call left unterminated at the end. A body that
    cannot be read is an error call (its name when visible); a `<tool_call>` not followed by
    an object is prose, not a call.
    """

    name = "hermes"
    opening_markers = (_OPEN,)
    special_tokens = (_OPEN, _CLOSE)  # added tokens of Qwen2.5 and Hermes 2 Pro
    # Qwen2.5's chat template writes the content, then each call's block on its own line:
    # nothing but a newline between calls, nothing after the last.
    prose_between = prose_after = False
    source = ("Qwen2.5 chat template (tokenizer_config.json); NousResearch "
              "Hermes-Function-Calling")
    _definite = True
    _started = re.compile(re.escape(_OPEN) + r"\s*\{").search
    _quotes = "\"'"
    # Outside strings: JSON structure and literals, plus Python's True/False/None.
    _outside = re.compile(r"[^ \t\r\n,:\[\]0-9+\-.aeEflnrstuTFNo]")

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order."""
        return [call for _, _, call in self._spans(text)]

    def content(self, text: str) -> str:
        """The prose: `text` without its `<tool_call>` blocks."""
        return without_spans(text, [(start, _after_close(text, end))
                                     for start, end, _ in self._spans(text)])

    def _spans(self, text: str) -> list[tuple[int, int, ExtractedCall]]:
        """Each call with where its block starts and its body ends in `text`."""
        calls: list[tuple[int, int, ExtractedCall]] = []
        n = len(text)
        pos = text.find(_OPEN)
        while pos != -1:
            body = pos + len(_OPEN)
            while body < n and text[body] in _WS:
                body += 1
            if body >= n or text[body] != "{":  # a mention of the tag, not a call
                pos = text.find(_OPEN, body)
                continue
            try:
                value, end = raw_decode(text, body)
            except (Unreadable, ValueError, RecursionError):
                end = _body_end(text, body)
                call = _python_call(text[body:end].strip())
            else:
                call = _hermes_call(value, text[body:end])
            calls.append((pos, end, vetted(self, call, text[body:end].strip())))
            pos = text.find(_OPEN, end)
        return calls

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """The canonical form: one `<tool_call>` block per call, JSON inside."""
        blocks = []
        for call in calls:
            value: dict[str, Any] = {"name": call.name, "arguments": arguments_value(call)}
            if call.id is not None:
                value["id"] = call.id
            blocks.append(f"{_OPEN}\n{_dumps(value)}\n{_CLOSE}")
        return "\n".join(blocks)

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One `<tool_response>` block per result: `name`, `id` when set, `content` or
        `error` (the Hermes function-calling convention)."""
        objects = (result_object(record, "name", "content", "id") for record in records)
        return "\n".join(f"<tool_response>\n{_dumps(value)}\n</tool_response>" for value in objects)

    def _opening(self, buf: str) -> tuple[Any, int, int, str | None]:
        n = len(buf)
        mark = buf.find(_OPEN)
        while mark != -1:
            head = _hermes_head(buf, mark, n)
            if head is _MORE:
                return _MORE, mark, mark, None
            if head is not _NO:
                brace, name = head
                return True, mark, brace, name
            mark = buf.find(_OPEN, mark + 1)
        return None, max(n - len(_OPEN) + 1, 0), n, None


def _hermes_head(text: str, mark: int, n: int) -> Any:
    """Read `<tool_call> { "name": "NAME"` at `mark`: (brace, name or None), _MORE or _NO."""
    brace = _skip_ws(text, mark + len(_OPEN), n)
    if brace < 0 or (brace < n and text[brace] != "{"):
        return _NO
    if brace >= n:
        return _MORE
    name = _first_key_value(text, brace, n, "name", "\"'")
    return _MORE if name is _MORE else (brace, None if name is _NO else name)


def _body_end(text: str, body: int) -> int:
    """End of an unreadable body: the closing tag, else the next opening tag, else the end
    of the text (the closing tag is sought only up to the next opening: linear overall)."""
    following = text.find(_OPEN, body)
    limit = len(text) if following == -1 else following
    close = text.find(_CLOSE, body, limit)
    return limit if close == -1 else close


def _hermes_call(value: Any, raw: str) -> ExtractedCall:
    """The call for a decoded body: a dict with a string `name` and `arguments`."""
    if not isinstance(value, dict):
        kind = type(value).__name__
        return ExtractedCall("", {}, None, f"tool call body must be an object, got {kind}", raw)
    name = value.get("name")
    call_id = _id_of(value)
    if not isinstance(name, str):
        return ExtractedCall("", {}, call_id, 'tool call has no "name" string', raw)
    if "arguments" in value:
        return _call_from_value(name, value["arguments"], call_id)
    if "parameters" in value:
        return _call_from_value(name, value["parameters"], call_id)
    return ExtractedCall(name, {}, call_id)


def _python_call(raw: str) -> ExtractedCall:
    """A body that is not JSON: a Python dict literal (Hermes-2-Pro), else an error call."""
    try:
        is_dict = raw.startswith("{") and raw.endswith("}")
        value = ast.literal_eval(python_source(raw).text) if is_dict else None
        # allow_nan=False: a Python float such as 1e400 (inf) is no JSON a tool can be given
        value = json.loads(json.dumps(value, allow_nan=False)) if isinstance(value, dict) else None
    except _EVAL_ERRORS:
        value = None
    if value is not None:
        call = _hermes_call(value, raw)
        # a string Python decoded (its own escapes, quotes) is not the model's text: keep it
        return call if call.error is None else dataclasses.replace(call, raw_arguments=raw)
    found = _HERMES_NAME.search(raw)
    name = (_unquote(found.group(2)) or "") if found else ""
    reason = "tool call body is unterminated" if raw.count("{") > raw.count("}") else (
        "tool call body is neither JSON nor a Python dict literal")
    return ExtractedCall(name, {}, None, reason, raw)

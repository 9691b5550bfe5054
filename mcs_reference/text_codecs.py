"""Text codecs: how a model writes tool calls inside plain text, and how to read them back.

A codec reads calls out of text (`decode`), writes calls as a model would (`encode`, what the
kit generates from), names the call being written mid-stream (`peek_name`, or incrementally
through `tracker()`), and writes results back for a text-only model (`encode_results`).
Decoding never raises: a call that cannot be read becomes an `ExtractedCall` with `error`,
and text that only looks like JSON or tags yields no call at all.
"""
from __future__ import annotations

import ast
import json
import re
from typing import Any, Iterable

from .calls import ExtractedCall, ToolCallRecord, call_from_json_text

__all__ = ["HermesCodec", "JsonCodec", "NameTracker"]

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"
# Bounds of what the name tracker reads after an opening; past them it is no call opening.
_MAX_WS = 128
_MAX_KEY = 16
_MAX_NAME = 256
_PIECE = 4096  # the tracker reads long texts in pieces of this size
_MAX_INNER = 4  # levels of nameless objects read inside; calls deeper in prose JSON are not
_MORE = object()  # the text ends before the answer is known
_NO = object()  # definitely not a call opening

# One JSON string token, unrolled so that huge strings cost no backtracking.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKENS = re.compile(_STRING + r"|[{}]", re.S)


# A JSON object can only start where `{"key":` stands.
_OBJECT_HEAD = re.compile(r'\{\s*"(?:[^"\\\n]|\\.){0,200}"\s*:')
_WINDOW = 1 << 12  # decode first within this many characters (see `_raw_decode`)
_MARGIN = 16  # a literal or escape cut by the window fails this close to its end


# -- shared helpers ------------------------------------------------------------------------
class _Unreadable(Exception):
    """Raised by `_raw_decode` for a syntax error at `pos`, with the decoder's `msg`."""

    def __init__(self, msg: str, pos: int):
        super().__init__(msg)
        self.msg, self.pos = msg, pos


def _raw_decode(text: str, pos: int) -> tuple[Any, int]:
    """`raw_decode` at `pos`, where a syntax error costs O(window), not O(pos).

    The decoder's error counts the lines before the error from the start of the text, which
    makes scanning many broken objects quadratic; a window around `pos` keeps it local. An
    error near the window's end, or in a string cut by it, is retried on the whole text.
    Raises `_Unreadable` for a syntax error, RecursionError / ValueError for hostile input.
    """
    stop = pos + _WINDOW
    whole = stop >= len(text)
    try:
        value, end = _DECODER.raw_decode(text[pos:stop])
        return value, pos + end
    except json.JSONDecodeError as exc:
        if whole or (exc.pos < _WINDOW - _MARGIN and not exc.msg.startswith("Unterminated")):
            raise _Unreadable(exc.msg, pos + exc.pos) from None
    try:
        return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise _Unreadable(exc.msg, exc.pos) from None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _call_from_value(name: str, value: Any, id: str | None) -> ExtractedCall:
    """A call from a decoded `arguments` value: an object, or a JSON text holding one."""
    if isinstance(value, dict):
        return ExtractedCall(name, value, id)
    if isinstance(value, str):  # Granite 4 and some fine-tunes double-encode the arguments
        return call_from_json_text(name, value, id)
    try:
        raw = _dumps(value)
    except (TypeError, ValueError, RecursionError):
        raw = repr(value)
    kind = "null" if value is None else type(value).__name__
    return ExtractedCall(name, {}, id, f"arguments must be a JSON object, got {kind}", raw)


def _id_of(value: dict) -> str | None:
    found = value.get("id")
    return found if isinstance(found, str) and found else None


def _result_value(record: ToolCallRecord) -> Any:
    """The result as a JSON value (anything else becomes its `str`)."""
    try:
        return json.loads(json.dumps(record.result, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return str(record.result)


def _object_end(text: str, start: int) -> int:
    """Index after the object opening at `start`, counting braces outside strings; the end
    of the text if it never closes. Iterative: safe on nesting too deep to decode."""
    depth = 0
    for token in _TOKENS.finditer(text, start):
        kind = token.group()
        if kind == "{":
            depth += 1
        elif kind == "}":
            depth -= 1
            if depth == 0:
                return token.end()
    return len(text)


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
        value = json.loads(literal) if literal[0] == '"' else ast.literal_eval(literal)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


# -- the incremental name tracker ----------------------------------------------------------
class NameTracker:
    """Follows a text as it streams and knows the name of the last call written in it.

    Feed it the text in pieces of any size: the answer never depends on where the text was
    cut, and `codec.peek_name(text)` is this tracker fed the whole text at once. While it
    seeks an opening it keeps only a short carry (a marker or call head split across pieces);
    inside an object it follows braces and strings to find where the object ends (markers
    inside argument values are not openings), then decodes that object once to confirm it is
    a call. Inside an object whose head shows no name (prose JSON, or a call whose name comes
    after its arguments) an inner tracker reads on, as `decode` would if the object turns
    out to be no call. Cost per piece is proportional to the piece, not to the text so far.
    """

    __slots__ = ("_codec", "_carry", "_parts", "_depth", "_quote", "_escape", "_open",
                 "_last", "_inner", "_level")

    def __init__(self, codec: Any, last: str | None = None, level: int = 0):
        self._codec = codec
        self._carry = ""  # unread tail while seeking (a possible opening not yet decided)
        self._parts: list[str] | None = None  # the open object's text, while inside one
        self._depth = 0
        self._quote: str | None = None
        self._escape = False
        self._open: str | None = None  # name read from the open object's head, if any
        self._last = last  # name of the last call confirmed by decoding it
        self._inner: NameTracker | None = None  # reads inside an open object without a name
        self._level = level  # how deep inside other objects (bounds the inner trackers)

    @property
    def name(self) -> str | None:
        """The name of the call being written, else of the last call written, else None."""
        if self._parts is not None:
            if self._open is not None:
                return self._open
            if self._codec._definite:  # a new call opened and its name is not written yet
                return None
            if self._inner is not None:
                return self._inner.name
        elif self._carry and self._codec._definite and self._codec._started(self._carry):
            return None  # a new call opened; its head is still being written
        return self._last

    def feed(self, text: str) -> str | None:
        """Read the next piece of text; return `name`."""
        if len(text) > _PIECE:  # bounded pieces keep each step's slicing local
            for start in range(0, len(text), _PIECE):
                self._feed(text[start:start + _PIECE])
        else:
            self._feed(text)
        return self.name

    def _feed(self, text: str) -> None:
        while text:
            text = self._seek(text) if self._parts is None else self._track(text)

    def _seek(self, text: str) -> str:
        buf = self._carry + text if self._carry else text
        state, start, brace, name = self._codec._opening(buf)
        if state is None or state is _MORE:  # keep only what may still open a call
            self._carry = buf[start:]
            return ""
        self._carry = ""
        self._parts = [buf[start:brace], "{"]
        self._depth, self._quote, self._escape, self._open = 1, None, False, name
        if name is None and self._level < _MAX_INNER:
            self._inner = NameTracker(self._codec, self._last, self._level + 1)
        return buf[brace + 1:]

    def _track(self, text: str) -> str:
        codec = self._codec
        outside = codec._outside.search
        quotes = codec._quotes
        depth, quote = self._depth, self._quote
        n = len(text)
        i = 0
        if self._escape:
            self._escape = False
            i = 1
        while i < n:
            if quote is not None:
                found = _IN_STRING[quote](text, i)
                if found is None:
                    break
                j = found.start()
                if text[j] == "\\":
                    if j + 1 >= n:
                        self._escape = True
                    i = j + 2
                    continue
                quote = None
                i = j + 1
                continue
            found = outside(text, i)
            if found is None:
                break
            j = found.start()
            char = text[j]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return self._close(text, j + 1)
            elif char in quotes:
                quote = char
            else:  # cannot stand outside a string in a call: the object is broken here
                return self._close(text, j)
            i = j + 1
        self._depth, self._quote = depth, quote
        self._parts.append(text)  # type: ignore[union-attr]
        if self._inner is not None:
            self._inner.feed(text)
        return ""

    def _close(self, text: str, cut: int) -> str:
        """The object ends at `cut` (closed, or broken there): confirm it, read on."""
        parts = self._parts
        parts.append(text[:cut])  # type: ignore[union-attr]
        inner = self._inner
        self._parts, self._inner = None, None
        self._depth, self._quote, self._escape, self._open = 0, None, False, None
        body = "".join(parts)  # type: ignore[arg-type]
        calls = self._codec.decode(body)
        if calls:
            self._last = calls[-1].name or None
            return text[cut:]
        # No call after all (prose JSON): read inside it, as `decode` does.
        if inner is None:
            if self._level >= _MAX_INNER:  # too deep in prose JSON: skip it
                return text[cut:]
            inner = NameTracker(self._codec, self._last, self._level + 1)
            inner.feed(body[len(parts[0]) + 1:])  # type: ignore[index]
        else:
            inner.feed(text[:cut])
        for slot in _ADOPTED:
            setattr(self, slot, getattr(inner, slot))
        return text[cut:]


_ADOPTED = ("_carry", "_parts", "_depth", "_quote", "_escape", "_open", "_last", "_inner")
_IN_STRING = {
    '"': re.compile(r'["\\]').search,
    "'": re.compile(r"['\\]").search,
}


class _Codec:
    """What both codecs share: `peek_name` and `tracker` over the codec's `_opening`."""

    name = ""
    opening_markers: tuple[str, ...] = ()
    _definite = False  # does every opening start a call (True), or may it be prose JSON?
    _quotes = '"'
    _outside: re.Pattern

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
_JSON_TOOL_KEY = re.compile(r'"tool"\s*:\s*(' + _STRING + ")")
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
    # Outside strings a JSON call holds only structure, numbers and true/false/null.
    _outside = re.compile(r"[^ \t\r\n,:\[\]0-9+\-.aeEflnrstu]")

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order."""
        if '"tool"' not in text:
            return []
        calls: list[ExtractedCall] = []
        find = text.find
        pos = find("{")
        while pos != -1:
            if not _OBJECT_HEAD.match(text, pos):  # no `{"key":` here: no object, no call
                pos = find("{", pos + 1)
                continue
            try:
                value, end = _raw_decode(text, pos)
            except _Unreadable as exc:
                stop = max(exc.pos, pos + 1)
                broken = self._broken(text, pos, stop, f"not valid JSON: {exc.msg}")
                if broken is None:
                    pos = find("{", pos + 1)
                else:
                    calls.append(broken)
                    pos = find("{", stop)
                continue
            except (RecursionError, ValueError) as exc:  # nested too deeply, number too long
                end = _object_end(text, pos)
                reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
                broken = self._broken(text, pos, end, f"not readable: {reason}")
                if broken is not None:
                    calls.append(broken)
                pos = find("{", end)
                continue
            if _is_json_call(value):
                calls.append(_call_from_value(value["tool"], value["arguments"], _id_of(value)))
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
        value: dict[str, Any] = {"tool": call.name}
        if call.error is not None and call.raw_arguments is not None:
            value["arguments"] = call.raw_arguments
        else:
            value["arguments"] = call.arguments
        if call.id is not None:
            value["id"] = call.id
        return value

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One JSON object per result: `tool`, `id` when set, and `result` or `error`."""
        lines = []
        for record in records:
            value: dict[str, Any] = {"tool": record.name}
            if record.tool_call_id is not None:
                value["id"] = record.tool_call_id
            if record.error is not None:
                value["error"] = record.error
            else:
                value["result"] = _result_value(record)
            lines.append(_dumps(value))
        return "\n".join(lines)

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
    i = _skip_ws(text, brace + 1, n)
    if i < 0 or (i < n and text[i] != '"'):
        return _NO
    if i >= n:
        return _MORE
    end = _string_end(text, i, n, _MAX_KEY)
    if end is _MORE:
        return end
    if end is _NO or text[i + 1:end - 1] != "tool":
        return None
    i = _skip_ws(text, end, n)
    if i < 0 or (i < n and text[i] != ":"):
        return None
    if i >= n:
        return _MORE
    i = _skip_ws(text, i + 1, n)
    if i < 0 or (i < n and text[i] != '"'):
        return None
    if i >= n:
        return _MORE
    end = _string_end(text, i, n, _MAX_NAME)
    if end is _MORE:
        return end
    return None if end is _NO else _unquote(text[i:end])


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
    _definite = True
    _started = re.compile(re.escape(_OPEN) + r"\s*\{").search
    _quotes = "\"'"
    # Outside strings: JSON structure and literals, plus Python's True/False/None.
    _outside = re.compile(r"[^ \t\r\n,:\[\]0-9+\-.aeEflnrstuTFNo]")

    def decode(self, text: str) -> list[ExtractedCall]:
        """The calls written in `text`, in order."""
        calls: list[ExtractedCall] = []
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
                value, end = _raw_decode(text, body)
            except (_Unreadable, ValueError, RecursionError):
                end = _body_end(text, body)
                calls.append(_python_call(text[body:end].strip()))
            else:
                calls.append(_hermes_call(value, text[body:end]))
            pos = text.find(_OPEN, end)
        return calls

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """The canonical form: one `<tool_call>` block per call, JSON inside."""
        blocks = []
        for call in calls:
            value: dict[str, Any] = {"name": call.name}
            if call.error is not None and call.raw_arguments is not None:
                value["arguments"] = call.raw_arguments
            else:
                value["arguments"] = call.arguments
            if call.id is not None:
                value["id"] = call.id
            blocks.append(f"{_OPEN}\n{_dumps(value)}\n{_CLOSE}")
        return "\n".join(blocks)

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One `<tool_response>` block per result: `name`, `id` when set, `content` or
        `error` (the Hermes function-calling convention)."""
        blocks = []
        for record in records:
            value: dict[str, Any] = {"name": record.name}
            if record.tool_call_id is not None:
                value["id"] = record.tool_call_id
            if record.error is not None:
                value["error"] = record.error
            else:
                value["content"] = _result_value(record)
            blocks.append(f"<tool_response>\n{_dumps(value)}\n</tool_response>")
        return "\n".join(blocks)

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
    unnamed = (brace, None)
    i = _skip_ws(text, brace + 1, n)
    if i < 0 or (i < n and text[i] not in "\"'"):
        return unnamed
    if i >= n:
        return _MORE
    end = _string_end(text, i, n, _MAX_KEY)
    if end is _MORE:
        return end
    if end is _NO or text[i + 1:end - 1] != "name":
        return unnamed
    i = _skip_ws(text, end, n)
    if i < 0 or (i < n and text[i] != ":"):
        return unnamed
    if i >= n:
        return _MORE
    i = _skip_ws(text, i + 1, n)
    if i < 0 or (i < n and text[i] not in "\"'"):
        return unnamed
    if i >= n:
        return _MORE
    end = _string_end(text, i, n, _MAX_NAME)
    if end is _MORE:
        return end
    if end is _NO:
        return unnamed
    return brace, _unquote(text[i:end])


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
        value = ast.literal_eval(raw) if raw.startswith("{") and raw.endswith("}") else None
        value = json.loads(json.dumps(value)) if isinstance(value, dict) else None
    except _EVAL_ERRORS:
        value = None
    if value is not None:
        return _hermes_call(value, raw)
    found = _HERMES_NAME.search(raw)
    name = (_unquote(found.group(2)) or "") if found else ""
    reason = "tool call body is unterminated" if raw.count("{") > raw.count("}") else (
        "tool call body is neither JSON nor a Python dict literal")
    return ExtractedCall(name, {}, None, reason, raw)

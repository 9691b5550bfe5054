"""Format codecs for model families whose calls are JSON or Python call syntax in the text.

Mistral before tokenizer v11 (one JSON array after `[TOOL_CALLS]`), Mistral v11 and later
(`[TOOL_CALLS]NAME[ARGS]{...}` per call), Llama 3.1/3.2 JSON calls (bare `{"name": ...,
"parameters": ...}` objects) and the pythonic calls of Llama 3.2 / 4 (`[f(a=1), g()]`).
Each codec decodes what an inference engine's tool parser sees (special tokens as text),
never raises, and writes calls the way the model's chat template does, so the kit can
generate from them. `can_carry(call)` says whether a call survives encode then decode.
"""
from __future__ import annotations

import ast
import keyword
import math
import re
import unicodedata
from types import SimpleNamespace
from typing import Any, Iterable

from ._format_base import (OBJECT_HEAD, Found, FormatCodec, arguments_value, decode_at, dumps,
                           from_value, is_plain, last_name, name_of, PythonSource, python_source,
                           raw_decode,
                           records_as_json_lines, result_json_text, result_value, skip_ws,
                           vetted, visible_name, without_spans)
from .calls import ExtractedCall, ToolCallRecord

__all__ = ["Llama3JsonCodec", "MistralCodec", "MistralV11Codec", "PythonicCodec"]

_WS = " \t\r\n"
_ARGUMENTS_KEY = re.compile(r'"(?:arguments|parameters)"\s*:')
_EVAL_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)


# -- Mistral, tokenizers v2 to v7 ----------------------------------------------------------
_TOOL_CALLS = "[TOOL_CALLS]"


class MistralCodec(FormatCodec):
    """`[TOOL_CALLS] [{"name": NAME, "arguments": {...}, "id": ID}, ...]`: one JSON array.

    mistral-common (v3 and later) writes `"id"` after the arguments when the call has one
    (9 alphanumerics); models trained on it may write it back, so `decode` sets `id` from a
    string `"id"` and `encode` writes `call.id` when it is set (never an invented one). The
    sentencepiece tokenizers (Mistral 7B v0.3) put a space between the marker and the array,
    Tekken ones (Nemo) none: both are read, the space is written. A single object after the
    marker is read as one call; an array that cannot be read is one error call.
    """

    name = "mistral"
    special_tokens = (_TOOL_CALLS, "[TOOL_RESULTS]", "[/TOOL_RESULTS]")
    # The chat template and mistral-common end the turn after the array: no prose after it.
    prose_between = False
    prose_after = False
    _keeps_blank_between = True
    source = ("mistral-common InstructTokenizerV3 (tokens/tokenizers/instruct.py, tools.py); "
              "Mistral-7B-Instruct-v0.3 chat template")

    def can_carry(self, call: ExtractedCall) -> bool:
        """A name the format allows, any JSON-object arguments, any non-empty string id."""
        return is_plain(call) and self.allows_name(call.name) and (
            call.id is None or (isinstance(call.id, str) and call.id != ""))

    def _scan(self, text: str) -> list[Found]:
        found: list[Found] = []
        n = len(text)
        mark = text.find(_TOOL_CALLS)
        while mark != -1:
            i = mark + len(_TOOL_CALLS)
            while i < n and text[i] in _WS and i - mark < 64:
                i += 1
            if i >= n or text[i] not in "[{":  # a mention of the marker, not a call
                mark = text.find(_TOOL_CALLS, i)
                continue
            value, end, why = decode_at(text, i)
            if why is not None:
                following = text.find(_TOOL_CALLS, i)
                end = n if following == -1 else following
                raw = text[i:end]
                name = visible_name(raw)
                call = ExtractedCall(name, {}, None, f"tool calls are {why}", raw)
                found.append(Found(mark, end, call, bool(name)))
            else:
                items = _items(text, i, end, value)
                for item, raw in items:
                    found.append(Found(mark, end, vetted(self, _mistral_call(item, raw), raw),
                                       True))
                if not items:
                    call = ExtractedCall("", {}, None, "empty tool call list", text[i:end])
                    found.append(Found(mark, end, call, False))
            mark = text.find(_TOOL_CALLS, end)
        return found

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """`[TOOL_CALLS] ` then the array, keys in mistral-common's order."""
        items = []
        for call in calls:
            value: dict[str, Any] = {"name": call.name, "arguments": arguments_value(call)}
            if call.id is not None:
                value["id"] = call.id
            items.append(value)
        return f"{_TOOL_CALLS} {dumps(items)}" if items else ""

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """`[TOOL_RESULTS] {"content": ..., "call_id": ID}[/TOOL_RESULTS]` a result (v3;
        `"name"` in place of `"call_id"` when the call had no id, as v2 wrote it)."""
        blocks = []
        for record in records:
            value: dict[str, Any] = {}
            if record.tool_call_id is None:
                value["name"] = record.name
            value["content"] = ({"error": record.error} if record.error is not None
                                else result_value(record))
            if record.tool_call_id is not None:
                value["call_id"] = record.tool_call_id
            blocks.append(f"[TOOL_RESULTS] {dumps(value)}[/TOOL_RESULTS]")
        return "".join(blocks)


def _items(text: str, start: int, end: int, value: Any) -> list[tuple[Any, str]]:
    """The array (or single object) decoded at text[start:end] as (item, its text) pairs:
    an error call keeps what the model wrote, not a re-serialisation."""
    if not isinstance(value, list):
        return [(value, text[start:end])]
    pairs, i = [], start + 1
    for item in value:  # the array decoded whole, so each item decodes again where it stands
        i = skip_ws(text, i, len(text))
        _, end = raw_decode(text, i)
        pairs.append((item, text[i:end]))
        i = skip_ws(text, end, len(text)) + 1  # past the comma
    return pairs


def _mistral_call(item: Any, raw: str) -> ExtractedCall:
    """One array element: an object with a string `name` and object `arguments`."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return ExtractedCall("", {}, None, 'tool call has no "name" string', raw)
    found = item.get("id")
    call_id = found if isinstance(found, str) and found else None
    if "arguments" not in item:
        return ExtractedCall(item["name"], {}, call_id)
    return from_value(item["name"], item["arguments"], call_id, raw)


# -- Mistral, tokenizers v11 and later -----------------------------------------------------
_ARGS = "[ARGS]"
_CALL_ID = "[CALL_ID]"
_V11_TOKEN = r"[^\s\[\]{}]{1,256}"
_V11_NAME = re.compile(_V11_TOKEN)
_V11_HEAD = re.compile(r"[ \t]{0,4}(" + _V11_TOKEN + r")(?:\[CALL_ID\](" + _V11_TOKEN
                       + r"))?(\[ARGS\])?")


class MistralV11Codec(FormatCodec):
    """`[TOOL_CALLS]NAME[ARGS]{...}` a call, the marker repeated for each (Tekken v11+).

    v11 may put `[CALL_ID]ID` between the name and `[ARGS]`; v13 and later never do. Both
    are read (`id` set from `[CALL_ID]`), and so is `[TOOL_CALLS]NAME{...}`, what an engine
    shows when it drops `[ARGS]` as a special token. `encode` writes the v13 form, and the
    v11 `[CALL_ID]` only for a call whose `id` is set. A marker not followed by a name and
    `[ARGS]` or `{` is prose; a name at the very end is an unterminated call.
    """

    name = "mistral-v11"
    special_tokens = (_TOOL_CALLS, _ARGS, _CALL_ID, "[TOOL_RESULTS]", "[TOOL_CONTENT]",
                      "[/TOOL_RESULTS]")
    # The model ends its turn after the last call's arguments (mistral-common writes calls
    # back to back, content only before them): no prose between or after.
    prose_between = False
    prose_after = False
    _keeps_blank_between = True
    source = ("mistral-common InstructTokenizerV11 / V13 (tokens/tokenizers/instruct.py, "
              "tools.py: [TOOL_CALLS]name[CALL_ID]id[ARGS]{...})")

    _name_forbidden = "[]{}"  # a bracket or brace ends the name in the text

    def can_carry(self, call: ExtractedCall) -> bool:
        """A name (and id) without whitespace, brackets or braces: they end it in the text."""
        return (is_plain(call) and self.allows_name(call.name)
                and (call.id is None or _V11_NAME.fullmatch(call.id) is not None))

    def _scan(self, text: str) -> list[Found]:
        found: list[Found] = []
        n = len(text)
        mark = text.find(_TOOL_CALLS)
        while mark != -1:
            head = _V11_HEAD.match(text, mark + len(_TOOL_CALLS))
            if head is None:
                mark = text.find(_TOOL_CALLS, mark + len(_TOOL_CALLS))
                continue
            name, call_id, args = head.group(1), head.group(2), head.group(3)
            i = head.end()
            if args:
                while i < n and text[i] in _WS and i - head.end() < 64:
                    i += 1
            if i >= n:  # cut at the end: the call is being written
                call = ExtractedCall(name, {}, call_id, "tool call is unterminated", "")
                found.append(Found(mark, n, call, bool(args or call_id)))
                break
            if text[i] != "{" and not args:  # prose after a mention of the marker
                mark = text.find(_TOOL_CALLS, mark + len(_TOOL_CALLS))
                continue
            value, end, why = decode_at(text, i) if text[i] == "{" else (None, i, "not an object")
            if why is not None:
                following = text.find(_TOOL_CALLS, i)
                end = n if following == -1 else following
                raw = text[i:end]
                call = ExtractedCall(name, {}, call_id, f"tool call arguments are {why}", raw)
            else:
                call = from_value(name, value, call_id, text[i:end])
            found.append(Found(mark, end, call, True))
            mark = text.find(_TOOL_CALLS, end)
        return found

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """Each call as `[TOOL_CALLS]NAME[ARGS]{...}` (`[CALL_ID]ID` before `[ARGS]` when
        the call has an id), back to back."""
        parts = []
        for call in calls:
            ident = "" if call.id is None else f"{_CALL_ID}{call.id}"
            value = arguments_value(call)
            arguments = value if isinstance(value, str) else dumps(value)
            parts.append(f"{_TOOL_CALLS}{call.name}{ident}{_ARGS}{arguments}")
        return "".join(parts)

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """`[TOOL_RESULTS]ID[TOOL_CONTENT]CONTENT[/TOOL_RESULTS]` (v11) when the call had an
        id, else `[TOOL_RESULTS]CONTENT[/TOOL_RESULTS]` (v13)."""
        blocks = []
        for record in records:
            head = "" if record.tool_call_id is None else f"{record.tool_call_id}[TOOL_CONTENT]"
            blocks.append(f"[TOOL_RESULTS]{head}{result_json_text(record)}[/TOOL_RESULTS]")
        return "".join(blocks)


# -- Llama 3.1 / 3.2 JSON ------------------------------------------------------------------
_PYTHON_TAG = "<|python_tag|>"
_LLAMA_HEAD = re.compile(r'\{\s*"name"\s*:\s*"')
_SEPARATOR = re.compile(r"\s*;\s*")
_LLAMA_NAME_HEAD = re.compile(r'\{\s*"name"\s*:\s*("(?:[^"\\\n]|\\.){0,256}")')


class Llama3JsonCodec(FormatCodec):
    """`{"name": NAME, "parameters": {...}}`, several joined by `; `, maybe after
    `<|python_tag|>` (Llama 3.1 / 3.2 JSON tool calling).

    The call is bare JSON, so only a top-level object with a string `name` and an object
    `parameters` (or `arguments`) is a call; a JSON text holding an object is read too. Any
    other object is prose, and so is a call nested inside other JSON. After `<|python_tag|>`
    an object that is no call is an error call. A broken object that opens as a call does
    (`{"name": "` with a `parameters` key) is an error call. `encode` writes what the HF chat
    template writes (no tag); `Llama3JsonCodec(python_tag=True)` prefixes the tag, as the
    models often do on their own. No call ids.
    """

    name = "llama3-json"
    special_tokens = (_PYTHON_TAG,)
    # Real outputs (shared corpus: vLLM issue reports) show prose before the calls and after
    # them; between two calls only the `; ` separator was ever seen.
    prose_between = False
    prose_after = True
    # Llama 3.1's JSON tool prompt asks for the JSON alone: a model writes no text before it.
    prose_before = False
    source = ("llama.com Llama 3.1 / 3.2 model cards and prompt formats (JSON based tool "
              "calling); meta-llama/Llama-3.1-8B-Instruct chat template")

    def __init__(self, python_tag: bool = False):
        self.python_tag = python_tag
        if python_tag:
            self.name = "llama3-json-python-tag"

    def __repr__(self) -> str:
        return f"Llama3JsonCodec(python_tag={self.python_tag})"

    def can_carry(self, call: ExtractedCall) -> bool:
        """A name the format allows and JSON-object arguments; no id (the format has none)."""
        return is_plain(call) and call.id is None and self.allows_name(call.name)

    def _scan(self, text: str) -> list[Found]:
        found: list[Found] = []
        find = text.find
        pos = find("{")
        while pos != -1:
            if not OBJECT_HEAD.match(text, pos):
                pos = find("{", pos + 1)
                continue
            start = _tag_start(text, pos)
            tagged = start != pos
            value, end, why = decode_at(text, pos)
            if why is not None:
                span = text[pos:end]
                if _LLAMA_HEAD.match(text, pos) and _ARGUMENTS_KEY.search(span) or tagged:
                    call = ExtractedCall(visible_name(span), {}, None, f"tool call is {why}", span)
                    found.append(Found(start, end, call, bool(call.name)))
                    pos = find("{", end)
                else:
                    pos = find("{", pos + 1)
                continue
            call = _llama_call(value, text[pos:end], tagged)
            if call is not None:
                found.append(Found(start, end, call, True))
            pos = find("{", end)
        return found

    def content(self, text: str) -> str:
        """The prose: without the calls, the tag before them and the `;` between them."""
        spans: list[tuple[int, int]] = []
        for start, end, _, _ in self._scan(text):
            if spans and _SEPARATOR.fullmatch(text, spans[-1][1], start):
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        return without_spans(text, spans)

    def peek_name(self, text: str) -> str | None:
        """As `FormatCodec.peek_name`, and the name of an object still being written whose
        head is `{"name": "NAME"`."""
        scanned = self._scan(text)
        tail = scanned[-1][1] if scanned else 0
        head = _LLAMA_NAME_HEAD.search(text, tail)
        if head is not None and name_of(head.group(1)):
            return name_of(head.group(1))
        return last_name(scanned)

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """The call objects joined by `; ` (after `<|python_tag|>` when so built)."""
        body = "; ".join(dumps({"name": call.name, "parameters": arguments_value(call)})
                         for call in calls)
        return f"{_PYTHON_TAG}{body}" if self.python_tag and body else body

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One JSON object a result, as the body of Llama's `ipython` tool turn."""
        return records_as_json_lines(records)


def _tag_start(text: str, pos: int) -> int:
    """Where `<|python_tag|>` (and whitespace) right before `pos` starts, else `pos`."""
    i = pos
    while i > 0 and text[i - 1] in _WS and pos - i < 64:
        i -= 1
    return i - len(_PYTHON_TAG) if text.endswith(_PYTHON_TAG, 0, i) else pos


def _llama_call(value: Any, raw: str, tagged: bool) -> ExtractedCall | None:
    """The call for a decoded object, None for prose JSON (an error call after the tag)."""
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        for key in ("parameters", "arguments"):
            if isinstance(value.get(key), (dict, str)):
                return from_value(value["name"], value[key], None, raw)
    if not tagged:
        return None
    name = value["name"] if isinstance(value, dict) and isinstance(value.get("name"), str) else ""
    return ExtractedCall(name, {}, None, 'tool call needs a "name" string and object "parameters"',
                         raw)


# -- pythonic (Llama 3.2 / Llama 4) --------------------------------------------------------
_PYTHON_START = "<|python_start|>"
_PYTHON_END = "<|python_end|>"
_LIST_HEAD = re.compile(r"\[\s{0,16}([^\W\d]\w{0,255}(?:\s{0,4}\.\s{0,4}[^\W\d]\w{0,255})*)"
                        r"\s{0,16}\(")
_CLOSERS = {"(": ")", "[": "]", "{": "}"}
_NAME_BEFORE = re.compile(r"([^\W\d][\w.]{0,255})\s{0,16}$")


class PythonicCodec(FormatCodec):
    """`[f(a=1, b="x"), g()]`: Llama 3.2 / 3.3 / 4 zero-shot (pythonic) function calling.

    Values are Python literals (str, int, float, True/False/None, lists, dicts), read with
    `ast` (never evaluated). A name may be dotted (`ns.f`, an attribute chain). The list may
    stand in Llama 4's `<|python_start|>...<|python_end|>`: the markers are read and left
    out of the content; `PythonicCodec(python_start=True)` writes them. A list opening as a
    call list (`[name(`) that does not parse, or holds positional arguments, is an error
    call; one cut at the end is an unterminated call. Keys must be Python identifiers
    (`can_carry`); no call ids. `encode` writes an error call's raw text in the parentheses.
    """

    name = "pythonic"
    special_tokens = (_PYTHON_START, _PYTHON_END)
    prose_before = False  # "You SHOULD NOT include any other text" (Llama 3.2 prompt)
    # The Llama 3.2 system prompt says "You SHOULD NOT include any other text in the
    # response": nothing between or after the call list.
    prose_between = False
    prose_after = False
    _keeps_blank_between = True
    source = ("llama.com Llama 3.2 model card (tool calling, 1B/3B) and llama-models "
              "models/llama4/prompt_format.md (zero shot function calling)")

    def __init__(self, python_start: bool = False):
        self.python_start = python_start
        if python_start:
            self.name = "pythonic-python-start"

    def __repr__(self) -> str:
        return f"PythonicCodec(python_start={self.python_start})"

    def allows_name(self, name: str) -> bool:
        """A dotted identifier (no keywords, NFKC-stable), MAX_NAME long at most."""
        return super().allows_name(name) and all(_identifier(part) for part in name.split("."))

    def can_carry(self, call: ExtractedCall) -> bool:
        """A name the format allows, identifier keys (no keywords, NFKC-stable), no id."""
        return (is_plain(call) and call.id is None and self.allows_name(call.name)
                and all(_identifier(key) for key in call.arguments))

    def _scan(self, text: str) -> list[Found]:
        found: list[Found] = []
        n = len(text)
        head = _LIST_HEAD.search(text)
        while head is not None:
            start = head.start()
            end, last = _list_end(text, start)
            if end < 0:  # cut at the end: the list is being written, name its last call
                named = _NAME_BEFORE.search(text, max(start, last - 300), last)
                name = re.sub(r"\s", "", (named or head).group(1))
                found.append(Found(_wrapped_start(text, start), n, ExtractedCall(
                    name, {}, None, "tool call is unterminated", text[head.end():]), True))
                break
            calls = _python_calls(text[start:end], head)
            if calls:
                end = _wrapped_end(text, start, end)
                start = _wrapped_start(text, start)
                found.extend(Found(start, end, call, True) for call in calls)
            head = _LIST_HEAD.search(text, end)
        return found

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """`[name(key=value, ...), ...]`, values written as Python literals."""
        written = [f"{call.name}({_python_arguments(call)})" for call in calls]
        if not written:
            return ""
        body = "[" + ", ".join(written) + "]"
        return f"{_PYTHON_START}{body}{_PYTHON_END}" if self.python_start else body

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One JSON object a result, as the body of Llama's `ipython` tool turn."""
        return records_as_json_lines(records)


def _identifier(word: str) -> bool:
    return (word.isidentifier() and not keyword.iskeyword(word)
            and unicodedata.normalize("NFKC", word) == word)


def _wrapped_start(text: str, start: int) -> int:
    i = start
    while i > 0 and text[i - 1] in _WS and start - i < 64:
        i -= 1
    return i - len(_PYTHON_START) if text.endswith(_PYTHON_START, 0, i) else start


def _wrapped_end(text: str, start: int, end: int) -> int:
    if _wrapped_start(text, start) == start:
        return end
    i = end
    while i < len(text) and text[i] in _WS and i - end < 64:
        i += 1
    return i + len(_PYTHON_END) if text.startswith(_PYTHON_END, i) else end


def _list_end(text: str, start: int) -> tuple[int, int]:
    """(end, last call): the index after the bracket closing the `[` at `start` (Python
    strings skipped; -1 when the text ends first; an unpaired closer ends an unreadable
    span), and where the last call's `(` right inside the list opened."""
    stack: list[str] = []
    i, n, last = start, len(text), start
    while i < n:
        char = text[i]
        if char in "\"'":
            quote = text[i:i + 3] if text.startswith(char * 3, i) else char
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\n" and len(quote) == 1:  # a one-line string never closed
                    return i, last
                i += 2 if text[i] == "\\" else 1
            if i >= n:
                return -1, last
            i += len(quote)
            continue
        if char in _CLOSERS:
            stack.append(_CLOSERS[char])
            if char == "(" and len(stack) == 2:
                last = i
        elif char in ")]}":
            if not stack or stack.pop() != char or not stack:
                return i + 1, last
        i += 1
    return -1, last


def _python_calls(span: str, head: re.Match) -> list[ExtractedCall]:
    """The calls of a bracketed span opening `[name(`; [] when it is prose."""
    source = python_source(span.strip())
    try:
        tree = ast.parse(source.text, mode="eval").body
    except _EVAL_ERRORS as exc:
        name = re.sub(r"\s", "", head.group(1))
        why = getattr(exc, "msg", None) or type(exc).__name__
        return [ExtractedCall(name, {}, None, f"tool call list is not valid Python: {why}", span)]
    if not isinstance(tree, ast.List):
        return []
    return [_python_call(node, source) for node in tree.elts]


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        owner = _dotted(node.value)
        return None if owner is None else f"{owner}.{node.attr}"
    return None


def _written(source: PythonSource, node: ast.AST) -> str:
    """The model's own text of a node parsed from `source.text`."""
    segment = ast.get_source_segment(source.text, node) or ""
    if not source.added:
        return segment
    before = SimpleNamespace(lineno=1, col_offset=0, end_lineno=node.lineno,
                             end_col_offset=node.col_offset)
    start = len(ast.get_source_segment(source.text, before) or "")
    return source.written_between(start, start + len(segment))


def _python_call(node: ast.AST, source: PythonSource) -> ExtractedCall:
    """One list element: `name(key=literal, ...)`; anything else is an error call."""
    raw = _written(source, node)
    name = _dotted(node.func) if isinstance(node, ast.Call) else None
    if name is None:
        return ExtractedCall("", {}, None, "list element is not a function call", raw)
    if node.args or any(item.arg is None for item in node.keywords):
        return ExtractedCall(name, {}, None, "tool call arguments must be key=value", raw)
    arguments: dict[str, Any] = {}
    for item in node.keywords:
        if item.arg in arguments:
            return ExtractedCall(name, {}, None, f"argument {item.arg} is repeated", raw)
        try:
            value = ast.literal_eval(item.value)
        except _EVAL_ERRORS:
            return ExtractedCall(name, {}, None, f"argument {item.arg} is not a literal", raw)
        if not _json_like(value):
            return ExtractedCall(name, {}, None, f"argument {item.arg} is not a JSON value", raw)
        arguments[item.arg] = value
    return ExtractedCall(name, arguments)


def _json_like(value: Any) -> bool:
    """A value JSON can hold: str, int, finite float, bool, None, lists and str-keyed dicts
    (`1e400` is a Python literal for inf, which no JSON holds)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            stack.extend(item.values())
        elif isinstance(item, float) and not math.isfinite(item):
            return False
        elif not (item is None or isinstance(item, (str, int, float, bool))):
            return False
    return True


def _python_arguments(call: ExtractedCall) -> str:
    if call.error is not None and call.raw_arguments is not None:
        return call.raw_arguments
    return ", ".join(f"{key}={_literal(value)}" for key, value in call.arguments.items())


def _literal(value: Any) -> str:
    """`value` as a Python literal (repr of str keeps every character exactly)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(item) for item in value) + "]"
    return repr(value)

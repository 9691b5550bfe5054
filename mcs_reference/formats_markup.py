"""Codecs for the XML-like tool-call formats: Qwen3-Coder and GLM-4.5.

Both write one tagged block per call and one tag pair per argument, a string argument raw
and any other value as JSON text. Without the tool's schema the string "1" and the number 1
would look alike, so these codecs write a string raw only when it reads back as itself (see
`_format_base.encode_value`) and read a value as JSON when it is JSON, else as a string.
`can_carry` tells the kit which calls the template itself writes that way (no quoted
string, no quoted argument name): only for those does an engine reading with the tool's
schema read what `decode` reads.
Each block is read within its own bounds (up to its closing tag, or the next opening tag):
decoding is linear in the text, and a broken block never swallows the next call.
"""
from __future__ import annotations

from typing import Iterable, Iterator

from ._format_base import (MAX_NAME, Found, FormatCodec, decode_key, decode_value, encode_key,
                           encode_value, result_text, skip_ws, strip_one_newline, writes_raw)
from .calls import ExtractedCall, ToolCallRecord

__all__ = ["Glm45Codec", "Qwen3CoderCodec"]

_OPEN, _CLOSE = "<tool_call>", "</tool_call>"


def _blocks(text: str) -> Iterator[tuple[int, int, int, bool]]:
    """(mark, body, stop, closed) for each `<tool_call>`: its body runs from `body` to
    `stop`, the `</tool_call>` (closed) or else the next opening or the end of the text."""
    n = len(text)
    mark = text.find(_OPEN)
    while mark != -1:
        body = mark + len(_OPEN)
        following = text.find(_OPEN, body)
        limit = n if following == -1 else following
        close = text.find(_CLOSE, body, limit)
        yield mark, body, (limit if close == -1 else close), close != -1
        mark = following


def _span_end(stop: int, closed: bool) -> int:
    return stop + len(_CLOSE) if closed else stop


class _Broken(Exception):
    """A block that opens as a call but cannot be read: why."""


# -- Qwen3-Coder ---------------------------------------------------------------------------
_FUNCTION, _FUNCTION_END = "<function=", "</function>"
_PARAMETER, _PARAMETER_END = "<parameter=", "</parameter>"
_QWEN_MARKERS = (_OPEN, _CLOSE, _FUNCTION, _FUNCTION_END, _PARAMETER, _PARAMETER_END)


class Qwen3CoderCodec(FormatCodec):
    """`<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n...
    </function>\\n</tool_call>`, one block per call (Qwen3-Coder's chat template).

    A value is the text between its tags less the one newline the template writes on each
    side: JSON when it parses as JSON (also Python's True/False/None, which the template's
    `| string` writes for booleans and null), else the raw string. `encode` writes a string
    raw only when it reads back unchanged, else as a JSON string literal; an argument name
    holding `>`, a quote first or a tag is written as a JSON string literal too (an
    extension: the template cannot write such names at all). A `<tool_call>` not followed
    by `<function=` is prose. The first call may come without its opening `<tool_call>`
    (`<function=...>...</function>\n</tool_call>`, as some models write it: llama.cpp's
    Qwen3-Coder parser tests); the closing tag, a special token, still marks it a call. A block cut short, or holding text that is no parameter, is an
    error call whose `raw_arguments` is the text between the function line and
    `</function>`.
    """

    name = "qwen3-coder"
    # Added tokens of Qwen3's tokenizer (ids 151657/151658); `<function=` and `<parameter=`
    # are ordinary text.
    special_tokens = (_OPEN, _CLOSE)
    # The template writes the message content, then the calls, then <|im_end|>: no prose
    # between or after calls in anything it renders.
    prose_between = False
    prose_after = False
    # Parameters are written one by one as text: no arguments text can fail to be an object.
    malformed_arguments = False
    source = ("chat_template.jinja of Qwen/Qwen3-Coder-480B-A35B-Instruct "
              "(https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct)")
    _name_forbidden = "<>"

    def can_carry(self, call: ExtractedCall) -> bool:
        """As the base, and every argument written as the template writes it: names raw,
        string values raw (a quoted one is read as a string with quotes by an engine that
        knows the schema)."""
        return super().can_carry(call) and all(
            encode_key(key, _QWEN_MARKERS, ">") == key
            and writes_raw(value, _QWEN_MARKERS, True) for key, value in call.arguments.items())

    def _scan(self, text: str) -> Iterator[Found]:
        headless = _headless_block(text)
        if headless is not None:
            head, close = headless
            call, named = _qwen_call(text, head + len(_FUNCTION), close, True)
            yield Found(head, _span_end(close, True), call, named)
        for mark, body, stop, closed in _blocks(text):
            head = skip_ws(text, body, stop)
            if not text.startswith(_FUNCTION, head, stop):
                continue  # a mention of the tag, not a call
            call, named = _qwen_call(text, head + len(_FUNCTION), stop, closed)
            yield Found(mark, _span_end(stop, closed), call, named)

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """One block per call, blocks on their own lines."""
        blocks = []
        for call in calls:
            parts = [f"{_OPEN}\n{_FUNCTION}{call.name}>\n"]
            if call.error is not None and call.raw_arguments is not None:
                parts.append(call.raw_arguments + "\n")
            else:
                for key, value in call.arguments.items():
                    parts.append(f"{_PARAMETER}{encode_key(key, _QWEN_MARKERS, '>')}>\n"
                                 f"{encode_value(value, _QWEN_MARKERS, True)}\n"
                                 f"{_PARAMETER_END}\n")
            parts.append(f"{_FUNCTION_END}\n{_CLOSE}")
            blocks.append("".join(parts))
        return "\n".join(blocks)

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One `<tool_response>` block per result, as the template writes a tool turn."""
        return "\n".join(f"<tool_response>\n{result_text(record)}\n</tool_response>"
                         for record in records)


def _headless_block(text: str) -> tuple[int, int] | None:
    """(where `<function=` starts, where `</tool_call>` stands) for a first call written
    without its opening `<tool_call>`: a closing tag before any opening one, a function
    before it. Only the first call may lose it (the others follow `</tool_call>\n`)."""
    close = text.find(_CLOSE)
    opening = text.find(_OPEN)
    if close == -1 or (opening != -1 and opening < close):
        return None
    head = text.find(_FUNCTION, 0, close)
    return None if head == -1 else (head, close)


def _qwen_call(text: str, start: int, stop: int, closed: bool) -> tuple[ExtractedCall, bool]:
    """The call whose name starts at `start` (just after `<function=`)."""
    gt = text.find(">", start, min(stop, start + MAX_NAME + 1))
    if gt == -1:
        why = "tool call is cut before its function name ends" if not closed else (
            "tool call has no readable function name")
        return ExtractedCall("", {}, None, why, text[start:stop]), False
    name = text[start:gt].strip()
    try:
        arguments = _qwen_arguments(text, gt + 1, stop, closed)
    except _Broken as exc:
        end = text.find(_FUNCTION_END, gt + 1, stop)
        raw = strip_one_newline(text[gt + 1:stop if end == -1 else end])
        return ExtractedCall(name, {}, None, str(exc), raw), True
    return ExtractedCall(name, arguments), True


def _qwen_arguments(text: str, i: int, stop: int, closed: bool) -> dict:
    arguments = {}
    while True:
        i = skip_ws(text, i, stop)
        if text.startswith(_PARAMETER, i, stop):
            key_start = i + len(_PARAMETER)
            gt = text.find(">", key_start, stop)
            if gt == -1:
                raise _Broken("tool call is cut inside a parameter name")
            end = text.find(_PARAMETER_END, gt + 1, stop)
            if end == -1:
                raise _Broken("tool call is cut inside a parameter value")
            value = strip_one_newline(text[gt + 1:end])
            arguments[decode_key(text[key_start:gt])] = decode_value(value, True)
            i = end + len(_PARAMETER_END)
        elif text.startswith(_FUNCTION_END, i, stop):
            if skip_ws(text, i + len(_FUNCTION_END), stop) != stop:
                raise _Broken("tool call has text after </function>")
            return arguments
        elif i == stop:
            if not closed:  # cut before </function>: a call still being written
                raise _Broken("tool call is unterminated")
            return arguments  # </function> left out, the block closed: read it anyway
        else:
            raise _Broken("tool call holds text that is no <parameter=...>")


# -- GLM-4.5 -------------------------------------------------------------------------------
_KEY, _KEY_END = "<arg_key>", "</arg_key>"
_VALUE, _VALUE_END = "<arg_value>", "</arg_value>"
_GLM_MARKERS = (_OPEN, _CLOSE, _KEY, _KEY_END, _VALUE, _VALUE_END)


class Glm45Codec(FormatCodec):
    """`<tool_call>NAME\\n<arg_key>KEY</arg_key>\\n<arg_value>VALUE</arg_value>\\n...
    </tool_call>`, one block per call (GLM-4.5's chat template; GLM-4.6 writes the same).

    The template writes a string value raw and anything else with `tojson`: a value is JSON
    when it parses as JSON, else the raw string, and `encode` writes a string raw only when
    it reads back unchanged (else as a JSON string literal). An argument name that holds a
    tag or starts with a quote is written as a JSON string literal (an extension). The name
    follows the tag at once and ends at the first newline or tag; a `<tool_call>` followed
    by a space, whose name holds a space, or that is followed by another tag than
    `<arg_key>`, is prose. A block that opens as a call but
    cannot be read is an error call whose `raw_arguments` is the text after the name line.
    """

    name = "glm-4.5"
    # Added tokens of GLM-4.5's tokenizer (tokenizer_config.json, ids 151352-151359 with
    # <tool_response>/</tool_response>): the call and argument tags are single tokens.
    special_tokens = _GLM_MARKERS
    # The template writes the content, then the calls; the model then ends its turn
    # (<|observation|> / <|user|>): no prose between or after calls.
    prose_between = False
    prose_after = False
    # Parameters are written one by one as text: no arguments text can fail to be an object.
    malformed_arguments = False
    source = "chat_template.jinja of zai-org/GLM-4.5 (https://huggingface.co/zai-org/GLM-4.5)"
    _name_forbidden = "<>"

    def can_carry(self, call: ExtractedCall) -> bool:
        """As the base, and every argument written as the template writes it (names and
        string values raw)."""
        return super().can_carry(call) and all(
            encode_key(key, _GLM_MARKERS) == key and writes_raw(value, _GLM_MARKERS)
            for key, value in call.arguments.items())

    def _scan(self, text: str) -> Iterator[Found]:
        for mark, body, stop, closed in _blocks(text):
            found = _glm_call(text, body, stop, closed)
            if found is not None:
                yield Found(mark, _span_end(stop, closed), found, True)

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """One block per call, blocks on their own lines."""
        blocks = []
        for call in calls:
            parts = [f"{_OPEN}{call.name}\n"]
            if call.error is not None and call.raw_arguments is not None:
                parts.append(call.raw_arguments + "\n")
            else:
                for key, value in call.arguments.items():
                    parts.append(f"{_KEY}{encode_key(key, _GLM_MARKERS)}{_KEY_END}\n"
                                 f"{_VALUE}{encode_value(value, _GLM_MARKERS)}{_VALUE_END}\n")
            parts.append(_CLOSE)
            blocks.append("".join(parts))
        return "\n".join(blocks)

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One `<tool_response>` block per result, as the template writes a tool turn
        (after the `<|observation|>` role token, which the message role stands for)."""
        return "\n".join(f"<tool_response>\n{result_text(record)}\n</tool_response>"
                         for record in records)


def _glm_call(text: str, body: int, stop: int, closed: bool) -> ExtractedCall | None:
    """The call in the block text[body:stop], None when the block is prose."""
    if body < stop and text[body].isspace():
        return None  # the template writes the name right after the tag
    limit = min(stop, body + MAX_NAME + 1)
    end = body
    while end < limit and text[end] not in "\n<":
        end += 1
    if end == limit and end != stop:
        return None  # no name line: prose
    name = text[body:end].strip()
    if not name or any(c.isspace() for c in name):
        return None
    at_tag = end < stop and text[end] == "<"
    if at_tag and not text.startswith(_KEY, end, stop):
        return None  # `<tool_call>word<other tag>`: prose
    if end == stop and not closed:
        return None  # cut inside the name: not yet a call
    try:
        return ExtractedCall(name, _glm_arguments(text, end, stop))
    except _Broken as exc:
        start = end + 1 if not at_tag and end < stop else end
        raw = text[start:stop]
        return ExtractedCall(name, {}, None, str(exc), raw[:-1] if raw.endswith("\n") else raw)


def _glm_arguments(text: str, i: int, stop: int) -> dict:
    arguments = {}
    while True:
        i = skip_ws(text, i, stop)
        if i == stop:
            return arguments
        if not text.startswith(_KEY, i, stop):
            raise _Broken("tool call holds text that is no <arg_key>")
        key_end = text.find(_KEY_END, i + len(_KEY), stop)
        if key_end == -1:
            raise _Broken("tool call is cut inside an argument name")
        key = decode_key(text[i + len(_KEY):key_end])
        i = skip_ws(text, key_end + len(_KEY_END), stop)
        if not text.startswith(_VALUE, i, stop):
            raise _Broken("tool call has an argument name without <arg_value>")
        value_end = text.find(_VALUE_END, i + len(_VALUE), stop)
        if value_end == -1:
            raise _Broken("tool call is cut inside an argument value")
        arguments[key] = decode_value(text[i + len(_VALUE):value_end])
        i = value_end + len(_VALUE_END)

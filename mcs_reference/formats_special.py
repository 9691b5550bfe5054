"""Codecs for the special-token tool-call formats: DeepSeek-V3, DeepSeek-V3.1, Kimi K2.

Each writes its calls inside a section (`..calls begin..` / `..calls end..`), a call as
`call begin`, a head, a middle marker, the JSON arguments and `call end`, every marker a
single special token of the model's tokenizer. A codec here tokenizes the text once on its
markers (one regex of literal alternatives: linear, no backtracking) and reads each call
between its markers, so a broken call never swallows the next one. Arguments are decoded
as a whole JSON object; a marker inside an argument value is written with `<` escaped as
`\\u003c` (the same JSON value), so that no argument can open or close a call.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from ._format_base import (Found, FormatCodec, arguments_call, dumps, escape_markers, is_word,
                           result_text)
from .calls import ExtractedCall, ToolCallRecord

__all__ = ["DeepSeekV31Codec", "DeepSeekV3Codec", "KimiK2Codec"]


def _deepseek_token(*words: str) -> str:
    """A DeepSeek special token: fullwidth bars (U+FF5C) around words joined by U+2581."""
    return "<\uff5c" + "\u2581".join(words) + "\uff5c>"


_DS_CALLS_BEGIN = _deepseek_token("tool", "calls", "begin")
_DS_CALLS_END = _deepseek_token("tool", "calls", "end")
_DS_CALL_BEGIN = _deepseek_token("tool", "call", "begin")
_DS_CALL_END = _deepseek_token("tool", "call", "end")
_DS_SEP = _deepseek_token("tool", "sep")
_DS_OUTPUTS_BEGIN = _deepseek_token("tool", "outputs", "begin")
_DS_OUTPUTS_END = _deepseek_token("tool", "outputs", "end")
_DS_OUTPUT_BEGIN = _deepseek_token("tool", "output", "begin")
_DS_OUTPUT_END = _deepseek_token("tool", "output", "end")


class _SectionCodec(FormatCodec):
    """Tokenize on the markers, then read `begin HEAD middle TAIL end` per call."""

    _section_begin = ""
    _section_end = ""
    _call_begin = ""
    _middle = ""
    _call_end = ""

    def __init__(self):
        markers = (self._section_begin, self._section_end, self._call_begin, self._middle,
                   self._call_end)
        self._markers = markers
        self._tokens = re.compile("|".join(map(re.escape, markers)))

    def _scan(self, text: str) -> Iterator[Found]:
        tokens = [(m.group(), m.start(), m.end()) for m in self._tokens.finditer(text)]
        n, count, k = len(text), len(tokens), 0
        while k < count:
            marker, start, end = tokens[k]
            k += 1
            if marker in (self._section_begin, self._section_end):
                yield Found(start, end)
                continue
            if marker != self._call_begin:
                continue  # a stray middle or end marker: not a call
            if k >= count:  # the text ends inside the head: a call, name not known yet
                call = self._cut_head(text[end:n])
                if call is not None:
                    yield Found(start, n, call, False)
                continue
            if tokens[k][0] != self._middle:
                continue  # `call begin` without its middle marker: no call
            head = text[end:tokens[k][1]]
            tail_start = tokens[k][2]
            k += 1
            closed = k < count and tokens[k][0] == self._call_end
            tail_end = tokens[k][1] if k < count else n
            span_end = tokens[k][2] if closed else tail_end
            if closed:
                k += 1
            found = self._read(head, text[tail_start:tail_end], closed)
            if found is not None:
                call, named = found
                yield Found(start, span_end, call, named)

    def _cut_head(self, head: str) -> ExtractedCall | None:
        """The error call for a text that ends inside a call head; None for prose."""
        if head and not is_word(head.strip()):
            return None
        return ExtractedCall("", {}, None, "tool call is cut before its arguments", "")

    def _read(self, head: str, tail: str, closed: bool) -> tuple[ExtractedCall, bool] | None:
        """(call, name complete) from the text between the markers; None for prose."""
        raise NotImplementedError

    def _arguments(self, call: ExtractedCall) -> str:
        """The arguments text of `call`: its raw text for an error call, else JSON."""
        if call.error is not None and call.raw_arguments is not None:
            return call.raw_arguments
        return escape_markers(dumps(call.arguments), self._markers)


def _arguments_call(name: str, text: str, closed: bool, id: str | None = None) -> ExtractedCall:
    """The call from its arguments JSON text (an error call when it is not an object)."""
    text = text.strip()
    call = arguments_call(name, text, id)
    if call.error is not None and not closed:
        return ExtractedCall(name, {}, id, "tool call is unterminated: " + call.error, text)
    return call


# -- DeepSeek-V3 ---------------------------------------------------------------------------
_FENCE = "```"


class DeepSeekV3Codec(_SectionCodec):
    """`<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n
    {ARGS}\\n```<｜tool▁call▁end｜>` (calls after the first on a new line)
    `<｜tool▁calls▁end｜>` (DeepSeek-V3 / V3-0324 / R1 chat template).

    The head is the call type (`function`); the name runs to the end of its line; the
    arguments may be fenced as a json code block or not. A call whose arguments are cut or
    not a JSON object is an error call keeping the arguments text (fence removed).
    """

    name = "deepseek-v3"
    _section_begin, _section_end = _DS_CALLS_BEGIN, _DS_CALLS_END
    _call_begin, _middle, _call_end = _DS_CALL_BEGIN, _DS_SEP, _DS_CALL_END
    # Special tokens of DeepSeek-V3's tokenizer (tokenizer_config.json added tokens).
    special_tokens = (_DS_CALLS_BEGIN, _DS_CALLS_END, _DS_CALL_BEGIN, _DS_CALL_END, _DS_SEP)
    # The template writes content, then the calls section, then <｜end▁of▁sentence｜>:
    # nothing between or after the calls.
    prose_between = False
    prose_after = False
    source = ("tokenizer_config.json chat_template of deepseek-ai/DeepSeek-V3-0324 "
              "(https://huggingface.co/deepseek-ai/DeepSeek-V3-0324)")

    def _read(self, head: str, tail: str, closed: bool) -> tuple[ExtractedCall, bool] | None:
        if not is_word(head.strip()):
            return None
        line_end = tail.find("\n")
        if line_end == -1:  # no arguments line: a call without arguments, if closed
            name = tail.strip()
            if not closed:
                return ExtractedCall("", {}, None, "tool call is cut in its name", tail), False
            if not is_word(name):
                return ExtractedCall("", {}, None, "tool call has no name line", tail), False
            return ExtractedCall(name, {}), True
        name = tail[:line_end].strip()
        return _arguments_call(name, _unfence(tail[line_end + 1:]), closed), True

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """The calls section: one call per line, arguments fenced as json."""
        body = "\n".join(f"{_DS_CALL_BEGIN}function{_DS_SEP}{call.name}\n{_FENCE}json\n"
                          f"{self._arguments(call)}\n{_FENCE}{_DS_CALL_END}" for call in calls)
        return _DS_CALLS_BEGIN + body + _DS_CALLS_END if body else ""

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """The tool outputs section, one output per line (as the template writes it)."""
        outputs = "\n".join(f"{_DS_OUTPUT_BEGIN}{result_text(record)}{_DS_OUTPUT_END}"
                            for record in records)
        return _DS_OUTPUTS_BEGIN + outputs + _DS_OUTPUTS_END


def _unfence(text: str) -> str:
    """Arguments text without its ```json fence (the newline on each side included)."""
    body = text.strip()
    if body.startswith(_FENCE):
        line_end = body.find("\n")
        body = "" if line_end == -1 else body[line_end + 1:]
        if body.endswith(_FENCE):
            body = body[:-len(_FENCE)]
        return body[:-1] if body.endswith("\n") else body
    return text


# -- DeepSeek-V3.1 -------------------------------------------------------------------------
class DeepSeekV31Codec(_SectionCodec):
    """`<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{ARGS}
    <｜tool▁call▁end｜>...<｜tool▁calls▁end｜>` (DeepSeek-V3.1 chat template: no call type,
    no fence, calls back to back). Arguments cut or not an object: an error call keeping
    the arguments text.
    """

    name = "deepseek-v3.1"
    _section_begin, _section_end = _DS_CALLS_BEGIN, _DS_CALLS_END
    _call_begin, _middle, _call_end = _DS_CALL_BEGIN, _DS_SEP, _DS_CALL_END
    # Special tokens of DeepSeek-V3.1's tokenizer (the same as V3's).
    special_tokens = (_DS_CALLS_BEGIN, _DS_CALLS_END, _DS_CALL_BEGIN, _DS_CALL_END, _DS_SEP)
    # As V3: content, then the calls section, then <｜end▁of▁sentence｜>.
    prose_between = False
    prose_after = False
    source = ("chat_template of deepseek-ai/DeepSeek-V3.1 and its model card, Toolcall "
              "section (https://huggingface.co/deepseek-ai/DeepSeek-V3.1)")

    def _read(self, head: str, tail: str, closed: bool) -> tuple[ExtractedCall, bool] | None:
        name = head.strip()
        if not is_word(name):
            return None
        return _arguments_call(name, tail, closed), True

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """The calls section, calls back to back."""
        body = "".join(f"{_DS_CALL_BEGIN}{call.name}{_DS_SEP}{self._arguments(call)}"
                       f"{_DS_CALL_END}" for call in calls)
        return f"{_DS_CALLS_BEGIN}{body}{_DS_CALLS_END}" if body else ""

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """One tool output per result (V3.1 writes no outputs section around them)."""
        return "".join(f"{_DS_OUTPUT_BEGIN}{result_text(record)}{_DS_OUTPUT_END}"
                       for record in records)


# -- Kimi K2 -------------------------------------------------------------------------------
_KIMI_SECTION_BEGIN = "<|tool_calls_section_begin|>"
_KIMI_SECTION_END = "<|tool_calls_section_end|>"
_KIMI_CALL_BEGIN = "<|tool_call_begin|>"
_KIMI_ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
_KIMI_CALL_END = "<|tool_call_end|>"
_KIMI_PREFIX = "functions."


class KimiK2Codec(_SectionCodec):
    """`<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX
    <|tool_call_argument_begin|>{ARGS}<|tool_call_end|>...<|tool_calls_section_end|>`
    (Kimi K2 chat template and tool-call guidance; calls back to back).

    The head is the call id, `functions.NAME:IDX`, IDX counting the calls of the
    conversation from 0: `decode` sets `id` to the head as written and reads the name out
    of it (`functions.` and `:IDX` removed when present). `encode` writes `call.id` when it
    is `functions.{call.name}:<digits>`, else the canonical id `functions.{name}:{i}`, i the
    call's position in the calls encoded (0, 1, ...): see `canonical_id`. So a call encoded
    with another id (or None) decodes with the canonical id.
    """

    name = "kimi-k2"
    _section_begin, _section_end = _KIMI_SECTION_BEGIN, _KIMI_SECTION_END
    _call_begin, _middle, _call_end = _KIMI_CALL_BEGIN, _KIMI_ARGUMENT_BEGIN, _KIMI_CALL_END
    # Special tokens of Kimi K2's tokenizer (tokenizer_config.json added tokens).
    special_tokens = (_KIMI_SECTION_BEGIN, _KIMI_SECTION_END, _KIMI_CALL_BEGIN,
                      _KIMI_ARGUMENT_BEGIN, _KIMI_CALL_END)
    # The template writes content, then the calls section, then <|im_end|>.
    prose_between = False
    prose_after = False
    _name_forbidden = ":"  # the id `functions.NAME:IDX` ends the name at its last colon
    source = ("chat_template.jinja and docs/tool_call_guidance.md of "
              "moonshotai/Kimi-K2-Instruct (https://huggingface.co/moonshotai/Kimi-K2-Instruct)")

    @staticmethod
    def canonical_id(call: ExtractedCall, position: int) -> str:
        """The id `encode` writes for `call` at `position` (and `decode` reads back):
        `call.id` when it is `functions.{call.name}:<digits>`, else
        `functions.{call.name}:{position}`."""
        if call.id is not None and call.id.startswith(_KIMI_PREFIX + call.name + ":"):
            index = call.id[len(_KIMI_PREFIX) + len(call.name) + 1:]
            if index.isdigit() and index.isascii():
                return call.id
        return f"{_KIMI_PREFIX}{call.name}:{position}"

    def _read(self, head: str, tail: str, closed: bool) -> tuple[ExtractedCall, bool] | None:
        call_id = head.strip()
        if not is_word(call_id):
            return None
        return _arguments_call(_name_of(call_id), tail, closed, call_id), True

    def encode(self, calls: Iterable[ExtractedCall]) -> str:
        """The calls section, calls back to back, each headed by its id."""
        body = "".join(f"{_KIMI_CALL_BEGIN}{self.canonical_id(call, i)}{_KIMI_ARGUMENT_BEGIN}"
                       f"{self._arguments(call)}{_KIMI_CALL_END}"
                       for i, call in enumerate(calls))
        return f"{_KIMI_SECTION_BEGIN}{body}{_KIMI_SECTION_END}" if body else ""

    def encode_results(self, records: Iterable[ToolCallRecord]) -> str:
        """`## Return of ID` then the result, per result (the template's tool message);
        a record without an id answers `functions.NAME:i`."""
        return "\n\n".join(
            f"## Return of {record.tool_call_id or f'{_KIMI_PREFIX}{record.name}:{i}'}\n"
            f"{result_text(record)}" for i, record in enumerate(records))


def _name_of(call_id: str) -> str:
    """The function name in a Kimi call id: `functions.NAME:IDX` -> NAME."""
    rest = call_id[len(_KIMI_PREFIX):] if call_id.startswith(_KIMI_PREFIX) else call_id
    name, colon, index = rest.rpartition(":")
    return name if colon and index.isdigit() else rest

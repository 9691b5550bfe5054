"""Private helpers shared by the model-format codecs (formats_markup, formats_special).

Two things live here. The string-or-JSON value rule of the XML-like formats (Qwen3-Coder,
GLM-4.5 write a string argument raw and any other value as JSON, so without a schema the
string "1" and the number 1 look alike: a string is written raw only when it reads back as
itself, else as a JSON string literal). And the codec skeleton: a codec lists what it found
in a text as `Found` spans, from which `decode`, `content` and `peek_name` all follow.
"""
from __future__ import annotations

import json
from typing import Any, Iterable, Iterator, NamedTuple

from .calls import ExtractedCall, ToolCallRecord

__all__ = ["Found", "FormatCodec", "MAX_NAME", "decode_key", "decode_value", "dumps",
           "encode_key", "encode_value", "escape_markers", "is_word", "result_text",
           "skip_ws", "strip_one_newline", "writes_raw"]

MAX_NAME = 256  # a call name (or id) longer than this is prose, not a call head
_WS = " \t\r\n"
_PYTHON_WORDS = {"True": True, "False": False, "None": None}


class Found(NamedTuple):
    """What a codec found at text[start:end]: a call (`call`, `named` when its name is
    complete), or a section marker of the format (`call` None)."""

    start: int
    end: int
    call: ExtractedCall | None = None
    named: bool = False


def _reject_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _is_json(text: str) -> bool:
    try:
        json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return False
    return True


def dumps(value: Any) -> str:
    """Compact-enough JSON text, unicode kept as is (what the chat templates' tojson does)."""
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return json.dumps(str(value), ensure_ascii=False)


def escape_markers(json_text: str, markers: Iterable[str]) -> str:
    """`json_text` with every `<` written `\\u003c` when a marker occurs in it.

    Every marker of these formats starts with `<`, and outside strings JSON has no `<`: the
    text stays the same JSON value, and no argument can close or open a call.
    """
    if any(marker in json_text for marker in markers):
        return json_text.replace("<", "\\u003c")
    return json_text


def decode_value(text: str, python_words: bool = False) -> Any:
    """A parameter value: its JSON value when it is JSON (NaN and Infinity are not), the
    Python words True/False/None when `python_words` (a template printing values with
    Jinja's `string` filter writes them so), else the raw string."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        pass
    if python_words and text in _PYTHON_WORDS:
        return _PYTHON_WORDS[text]
    return text


def _raw_string_reads_back(value: str, markers: tuple[str, ...], python_words: bool) -> bool:
    return (value == value.strip()
            and not any(marker in value for marker in markers)
            and not (python_words and value in _PYTHON_WORDS)
            and not _is_json(value))


def writes_raw(value: Any, markers: tuple[str, ...], python_words: bool = False) -> bool:
    """Does `encode_value` write `value` as the template does (raw for a string)? Only
    then does an engine reading with the tool's schema read what `decode` reads."""
    return not isinstance(value, str) or _raw_string_reads_back(value, markers, python_words)


def encode_value(value: Any, markers: tuple[str, ...], python_words: bool = False) -> str:
    """A parameter value as the template writes it: a string raw when `decode_value` reads
    it back unchanged (not JSON, no edge whitespace, no marker inside), anything else as
    JSON text (markers inside escaped, see `escape_markers`)."""
    if isinstance(value, str) and _raw_string_reads_back(value, markers, python_words):
        return value
    return escape_markers(dumps(value), markers)


def encode_key(key: str, markers: tuple[str, ...], forbidden: str = "") -> str:
    """An argument name: raw, or a JSON string literal (its `<` and `>` escaped) when it
    holds a marker or a `forbidden` character, starts with a quote or has edge whitespace
    (which a reader may strip)."""
    if key.startswith('"') or key != key.strip() or any(c in key for c in forbidden) or any(
            marker in key for marker in markers):
        literal = dumps(key)
        return literal.replace("<", "\\u003c").replace(">", "\\u003e")
    return key


def decode_key(text: str) -> str:
    """An argument name written by `encode_key` (or raw by the model)."""
    if text.startswith('"'):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return text
        if isinstance(value, str):
            return value
    return text


def is_word(text: str, forbidden: str = "") -> bool:
    """A head that can name a call: not empty, no whitespace or `forbidden` character, not
    longer than MAX_NAME."""
    return 0 < len(text) <= MAX_NAME and not any(c.isspace() or c in forbidden for c in text)


def skip_ws(text: str, i: int, stop: int) -> int:
    """First index at or after `i` that is not whitespace (`stop` at most)."""
    while i < stop and text[i] in _WS:
        i += 1
    return i


def strip_one_newline(text: str) -> str:
    """`text` without the one newline the template writes on each side, when present."""
    if text.startswith("\n"):
        text = text[1:]
    if text.endswith("\n"):
        text = text[:-1]
    return text


def result_text(record: ToolCallRecord) -> str:
    """A tool result as the text of a tool turn: a string as is, any other value as JSON,
    an error as `Error: why`."""
    if record.error is not None:
        return f"Error: {record.error}"
    if isinstance(record.result, str):
        return record.result
    return json.dumps(record.result, ensure_ascii=False, default=str)


class FormatCodec:
    """The skeleton of a format codec: `_scan` lists what the format holds, in order."""

    name = ""
    special_tokens: tuple[str, ...] = ()
    prose_between = False
    prose_after = False
    source = ""
    _name_forbidden = ""  # characters a name cannot hold in this format

    def can_carry(self, call: ExtractedCall) -> bool:
        """Can the model write `call` in this format as its template does (a readable call
        whose name is one word)? The kit draws only such calls."""
        return (call.error is None and isinstance(call.arguments, dict)
                and is_word(call.name, self._name_forbidden))

    def _scan(self, text: str) -> Iterator[Found]:
        raise NotImplementedError

    def _found(self, text: Any) -> list[Found]:
        """Everything `_scan` finds; nothing for a non-string (decode never raises)."""
        if not isinstance(text, str):
            return []
        return list(self._scan(text))

    def decode(self, text: str) -> list[ExtractedCall]:
        """Every call written in `text`, in order (unreadable ones as error calls)."""
        return [found.call for found in self._found(text) if found.call is not None]

    def peek_name(self, text: str) -> str | None:
        """The name of the last call whose name is complete, None while there is none."""
        name = None
        for found in self._found(text):
            if found.call is not None and found.named and found.call.name:
                name = found.call.name
        return name

    def content(self, text: str) -> str:
        """The prose: `text` without its calls and section markers (and without the
        whitespace that only separates two of them)."""
        if not isinstance(text, str):
            return ""
        pieces, last = [], 0
        for index, found in enumerate(self._found(text)):
            gap = text[last:found.start]
            if not (index > 0 and gap.strip(_WS) == ""):
                pieces.append(gap)
            last = found.end
        pieces.append(text[last:])
        return "".join(pieces)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

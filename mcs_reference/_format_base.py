"""Private base of the model-format codecs (text_codecs and the formats_* modules).

One place for what every codec needs: the `FormatCodec` skeleton (a codec lists what it
found in a text as `Found` spans, from which `decode`, `content` and `peek_name` follow),
reading one JSON value without raising and in time linear in the text (finite numbers
only: NaN, Infinity and a number a double cannot hold are no JSON a tool can be given),
writing arguments and results, and the string-or-JSON value rule of the XML-like formats
(Qwen3-Coder, GLM-4.5 write a string argument raw and any other value as JSON, so without a schema the string "1"
and the number 1 look alike: a string is written raw only when it reads back as itself, else
as a JSON string literal).
"""
from __future__ import annotations

import io
import json
import re
import tokenize
from bisect import bisect_left
from typing import Any, Iterable, NamedTuple

from ._json import FINITE_JSON
from .calls import ExtractedCall, ToolCallRecord

__all__ = ["FormatCodec", "Found", "JSON_STRING", "MAX_NAME", "OBJECT_HEAD", "Unreadable",
           "arguments_call", "arguments_value", "decode_at", "decode_key", "decode_value", "dumps",
           "encode_key", "encode_value", "escape_markers", "from_value", "is_plain", "is_word",
           "last_name", "loads", "name_allowed", "name_of", "object_end", "PythonSource",
           "python_source", "raw_decode", "records_as_json_lines",
           "refused_end",
           "result_json_text", "result_object", "result_text", "result_value", "skip_ws", "strip_one_newline",
           "vetted", "visible_name", "without_spans", "writes_raw"]

MAX_NAME = 256  # a call name (or id) longer than this is prose, not a call head
_WS = " \t\r\n"
_PYTHON_WORDS = {"True": True, "False": False, "None": None}

# One JSON string token, unrolled so that huge strings cost no backtracking.
JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_TOKENS = re.compile(JSON_STRING + r"|[{}]", re.S)
# A JSON object can only start where `{"key":` stands.
OBJECT_HEAD = re.compile(r'\{\s*"(?:[^"\\\n]|\\.){0,200}"\s*:')
_NAME_VALUE = re.compile(r'"name"\s*:\s*("(?:[^"\\\n]|\\.){0,256}")')


_DECODER = FINITE_JSON  # NaN, Infinity and 1e400 raise: no tool can be given them
_LENIENT = json.JSONDecoder()  # reads them: only to find where a refused value ends
_WINDOW = 1 << 12  # decode first within this many characters (see `raw_decode`)
_MARGIN = 16  # a literal or escape cut by the window fails this close to its end


class Found(NamedTuple):
    """What a codec found at text[start:end]: a call (`call`, `named` when its name is
    complete), or a section marker of the format (`call` None)."""

    start: int
    end: int
    call: ExtractedCall | None = None
    named: bool = False


# -- reading JSON --------------------------------------------------------------------------
class Unreadable(Exception):
    """Raised by `raw_decode` for a syntax error at `pos`, with the decoder's `msg`."""

    def __init__(self, msg: str, pos: int):
        super().__init__(msg)
        self.msg, self.pos = msg, pos


def raw_decode(text: str, pos: int, decoder: json.JSONDecoder = _DECODER) -> tuple[Any, int]:
    """`raw_decode` at `pos`, where a syntax error costs O(window), not O(pos).

    The decoder's error counts the lines before the error from the start of the text, which
    makes scanning many broken objects quadratic; a window around `pos` keeps it local. An
    error near the window's end, or in a string cut by it, is retried on the whole text.
    Raises `Unreadable` for a syntax error, RecursionError / ValueError for hostile input
    (nesting too deep, a number too long or not finite).
    """
    stop = pos + _WINDOW
    whole = stop >= len(text)
    try:
        value, end = decoder.raw_decode(text[pos:stop])
        return value, pos + end
    except json.JSONDecodeError as exc:
        if whole or (exc.pos < _WINDOW - _MARGIN and not exc.msg.startswith("Unterminated")):
            raise Unreadable(exc.msg, pos + exc.pos) from None
    try:
        return decoder.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        raise Unreadable(exc.msg, exc.pos) from None


def object_end(text: str, start: int) -> int:
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


def _unterminated(exc: Unreadable, text: str) -> bool:
    return exc.pos >= len(text) or exc.msg.startswith("Unterminated")


def _resume_after(exc: Unreadable, text: str, pos: int) -> int:
    """Where reading goes on after a syntax error in the value at `pos`: at the error, or
    at the end when the value never ends."""
    return len(text) if _unterminated(exc, text) else max(exc.pos, pos + 1)


def refused_end(text: str, pos: int) -> int:
    """Where reading goes on after the value at `pos` was refused for what it holds (NaN,
    Infinity, a number a double cannot hold): after it when it is whole JSON otherwise, at
    its syntax error when it is not (a call written after `{"a": NaN` is still read), after
    its braces when even a lenient decoder cannot read it."""
    try:
        return raw_decode(text, pos, _LENIENT)[1]
    except Unreadable as exc:
        return _resume_after(exc, text, pos)
    except (RecursionError, ValueError):
        return object_end(text, pos)


def decode_at(text: str, pos: int) -> tuple[Any, int, str | None]:
    """(value, end, None) for the JSON value at `pos`, or (None, stop, why) when it cannot be
    read; `stop` is where reading may go on."""
    try:
        value, end = raw_decode(text, pos)
    except Unreadable as exc:
        why = "unterminated" if _unterminated(exc, text) else f"not valid JSON: {exc.msg}"
        return None, _resume_after(exc, text, pos), why
    except RecursionError:
        return None, object_end(text, pos), "not readable: nested too deeply"
    except ValueError as exc:
        return None, refused_end(text, pos), f"not readable: {exc}"
    return value, end, None


def loads(text: str) -> Any:
    """`json.loads` that refuses what is no JSON a tool can be given (see `_DECODER`):
    ValueError for NaN, Infinity and numbers a double cannot hold."""
    return _DECODER.decode(text)


_ESCAPE = re.compile(r"\\(.)", re.S)
_STRING_ESCAPES = frozenset("\n\\'\"abfnrtv01234567xNuU")
_BYTES_ESCAPES = _STRING_ESCAPES - frozenset("NuU")
_STRING_PREFIX = re.compile(r"[A-Za-z]*")


class PythonSource(NamedTuple):
    """A Python expression a model wrote, made readable the same way whatever the warning
    filters (`python_source`)."""
    text: str  # what to parse
    written: str  # what the model wrote
    added: tuple[int, ...]  # the offsets in `text` of the backslashes added

    def written_between(self, start: int, end: int) -> str:
        """The model's own text of `text[start:end]`."""
        before = bisect_left(self.added, start)
        return self.written[start - before:end - bisect_left(self.added, end)]


def python_source(written: str) -> PythonSource:
    """`written` with each backslash that starts no escape doubled in its string literals.
    Python keeps such a backslash ('C:\\path') with a warning, and under `-W error` reads the
    same literal as a syntax error: doubled first, it reads as Python keeps it, whatever the
    process's warning filters, and warns nothing."""
    if "\\" not in written:
        return PythonSource(written, written, ())
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(written).readline))
    except (tokenize.TokenError, SyntaxError):
        return PythonSource(written, written, ())  # unreadable: the parse that follows says why
    rows = [0] + [newline.end() for newline in re.finditer("\n", written)]  # tokenize's rows
    pieces: list[str] = []
    added: list[int] = []
    done = 0  # `written` copied out up to here, with one backslash more per offset in `added`
    for token in tokens:
        prefix = _STRING_PREFIX.match(token.string).group().lower()
        if token.type != tokenize.STRING or "\\" not in token.string or "r" in prefix:
            continue
        valid = _BYTES_ESCAPES if "b" in prefix else _STRING_ESCAPES
        begin = rows[token.start[0] - 1] + token.start[1]
        for escape in _ESCAPE.finditer(token.string):
            if escape.group(1) not in valid:
                at = begin + escape.start()
                pieces += [written[done:at], "\\"]
                added.append(at + len(added))
                done = at
    return PythonSource("".join(pieces) + written[done:], written, tuple(added))


def arguments_call(name: str, text: str, id: str | None = None) -> ExtractedCall:
    """A call from an arguments JSON text: `{}` for blank text, an error call keeping the
    text when it is no JSON object (or holds a number that is not finite)."""
    if text == "" or text.isspace():
        return ExtractedCall(name, {}, id)
    try:
        value = loads(text)
    except (ValueError, RecursionError) as exc:
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        return ExtractedCall(name, {}, id, f"arguments are not valid JSON: {reason}", text)
    if not isinstance(value, dict):
        kind = "null" if value is None else type(value).__name__
        return ExtractedCall(name, {}, id, f"arguments must be a JSON object, got {kind}", text)
    return ExtractedCall(name, value, id)


def name_of(literal: str) -> str:
    """The value of a JSON string literal, "" when it is none (a name is never missing)."""
    try:
        value = json.loads(literal)
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""


def visible_name(span: str) -> str:
    """The `"name"` of a call object that cannot be decoded, so its error call is named."""
    found = _NAME_VALUE.search(span)
    return name_of(found.group(1)) if found else ""


def from_value(name: str, value: Any, id: str | None, raw: str) -> ExtractedCall:
    """A call from a decoded arguments value: an object, or a JSON text holding one."""
    if isinstance(value, dict):
        return ExtractedCall(name, value, id)
    if isinstance(value, str):  # double-encoded arguments, as some fine-tunes write them
        return arguments_call(name, value, id)
    kind = "null" if value is None else type(value).__name__
    return ExtractedCall(name, {}, id, f"arguments must be a JSON object, got {kind}", raw)


# -- values --------------------------------------------------------------------------------
def _is_json(text: str) -> bool:
    try:
        loads(text)
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
    """A parameter value: its JSON value when it is JSON (NaN, Infinity and numbers a
    double cannot hold are not: `1e400` is the string "1e400"), the Python words
    True/False/None when `python_words` (a template printing values with Jinja's `string`
    filter writes them so), else the raw string."""
    try:
        return loads(text)
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


def arguments_value(call: ExtractedCall) -> Any:
    """The arguments to write: the object, or an error call's raw text as a JSON string."""
    if call.error is not None and call.raw_arguments is not None:
        return call.raw_arguments
    return call.arguments


# -- results -------------------------------------------------------------------------------
def result_value(record: ToolCallRecord) -> Any:
    """The result as a JSON value (anything else becomes its `str`)."""
    try:
        return json.loads(json.dumps(record.result, ensure_ascii=False, default=str))
    except (TypeError, ValueError, RecursionError):
        return str(record.result)


def result_text(record: ToolCallRecord) -> str:
    """A tool result as the text of a tool turn: a string as is, any other value as JSON,
    an error as `Error: why`."""
    if record.error is not None:
        return f"Error: {record.error}"
    if isinstance(record.result, str):
        return record.result
    return json.dumps(record.result, ensure_ascii=False, default=str)


def result_json_text(record: ToolCallRecord) -> str:
    """As `result_text`, but an error as `{"error": why}` (Mistral v11's tool content)."""
    if record.error is not None:
        return dumps({"error": record.error})
    value = result_value(record)
    return value if isinstance(value, str) else dumps(value)


def result_object(record: ToolCallRecord, name_key: str, value_key: str,
                  id_key: str | None = None) -> dict[str, Any]:
    """A result as the JSON object a format writes: the tool's name, its id when `id_key`
    and set, then the result under `value_key` or `error` (the keys are the format's)."""
    value: dict[str, Any] = {name_key: record.name}
    if id_key is not None and record.tool_call_id is not None:
        value[id_key] = record.tool_call_id
    if record.error is not None:
        value["error"] = record.error
    else:
        value[value_key] = result_value(record)
    return value


def records_as_json_lines(records: Iterable[ToolCallRecord]) -> str:
    """One JSON object a result: `name`, then `output` or `error` (an ipython turn's body)."""
    return "\n".join(dumps(result_object(record, "name", "output")) for record in records)


# -- text ----------------------------------------------------------------------------------
def is_word(text: str, forbidden: str = "") -> bool:
    """A head that can name a call: not empty, no whitespace or `forbidden` character, not
    longer than MAX_NAME."""
    return 0 < len(text) <= MAX_NAME and not any(c.isspace() or c in forbidden for c in text)


def name_allowed(name: Any, forbidden: str = "", special_tokens: Iterable[str] = ()) -> bool:
    """Can a call bear `name` in a format: one word (`is_word`), no control or invisible
    character, none of the format's special tokens inside (the model writing one would end
    the call)?"""
    return (isinstance(name, str) and is_word(name, forbidden) and name.isprintable()
            and not any(token in name for token in special_tokens))


def vetted(codec: Any, call: ExtractedCall, raw: str) -> ExtractedCall:
    """`call`, or an error call keeping `raw` (the call's text) when its name is none the
    codec's format allows (`codec.allows_name`): a wrong name is never a readable call."""
    if call.error is not None or codec.allows_name(call.name):
        return call
    return ExtractedCall(call.name, {}, call.id, f"tool call name {call.name[:80]!r} is not one "
                         f"the {codec.name} format allows", raw)


def is_plain(call: ExtractedCall) -> bool:
    """A readable function call with JSON-object arguments (what every format can carry at
    best; an error call keeps raw text that no format reads back to the same error)."""
    if call.error is not None or call.kind != "function" or call.input is not None:
        return False
    if not isinstance(call.arguments, dict):
        return False
    try:
        return json.loads(json.dumps(call.arguments, allow_nan=False)) == call.arguments
    except (TypeError, ValueError, RecursionError):
        return False


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


def without_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the (ordered, disjoint) spans cut out."""
    kept, start = [], 0
    for begin, end in spans:
        kept.append(text[start:begin])
        start = end
    kept.append(text[start:])
    return "".join(kept)


def last_name(found: Iterable[Found]) -> str | None:
    """The name of the last call whose name is complete, None while there is none."""
    name = None
    for item in found:
        if item.call is not None and item.named and item.call.name:
            name = item.call.name
    return name


# -- the codec skeleton --------------------------------------------------------------------
class FormatCodec:
    """The skeleton of a format codec: `_scan` lists what the format holds, in order."""

    name = ""
    special_tokens: tuple[str, ...] = ()
    prose_between = False
    prose_after = False
    source = ""
    _name_forbidden = ""  # characters a name cannot hold in this format
    # Does `content` keep the whitespace that only separates two found spans? The JSON-call
    # formats keep it (it is the model's prose); the tag formats drop it with the markers.
    _keeps_blank_between = False

    def allows_name(self, name: str) -> bool:
        """Can a call of this format bear `name` (see `name_allowed`; `_name_forbidden`
        lists what else the format cannot hold in a name)? `decode` makes a call with any
        other name an error call."""
        return name_allowed(name, self._name_forbidden, self.special_tokens)

    def can_carry(self, call: ExtractedCall) -> bool:
        """Can the model write `call` in this format as its template does (a readable call
        whose name the format allows)? The kit draws only such calls."""
        return (call.error is None and isinstance(call.arguments, dict)
                and self.allows_name(call.name))

    def _scan(self, text: str) -> Iterable[Found]:
        raise NotImplementedError

    def _found(self, text: Any) -> list[Found]:
        """Everything `_scan` finds, each call `vetted`; nothing for a non-string (decode
        never raises)."""
        if not isinstance(text, str):
            return []
        found = list(self._scan(text))
        for index, item in enumerate(found):
            if item.call is not None and item.call.error is None \
                    and not self.allows_name(item.call.name):
                found[index] = item._replace(call=vetted(self, item.call,
                                                         text[item.start:item.end]))
        return found

    def decode(self, text: str) -> list[ExtractedCall]:
        """Every call written in `text`, in order (unreadable ones as error calls)."""
        return [found.call for found in self._found(text) if found.call is not None]

    def peek_name(self, text: str) -> str | None:
        """The name of the last call whose name is complete, None while there is none."""
        return last_name(self._found(text))

    def content(self, text: str) -> str:
        """The prose: `text` without its calls and section markers (and without the
        whitespace that only separates two of them, unless `_keeps_blank_between`)."""
        if not isinstance(text, str):
            return ""
        pieces, last = [], 0
        for index, found in enumerate(self._found(text)):
            gap = text[last:found.start]
            if self._keeps_blank_between or not (index > 0 and gap.strip(_WS) == ""):
                pieces.append(gap)
            last = found.end
        pieces.append(text[last:])
        return "".join(pieces)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

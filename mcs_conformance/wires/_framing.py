"""A wire's chunks as the HTTP body its provider sends: one place for the framing.

SSE for every wire but Ollama and Bedrock Converse (Gemini's records are plain `data:`
lines, no end marker): `event: <type>` before each `data:` line where the wire names
its events (Responses, Anthropic), `data: [DONE]` after OpenAI Chat, an OpenAI Chat error
object as an `event: error` with no `[DONE]` after it (Groq); NDJSON for Ollama and for the
str deltas of a text strategy; binary `application/vnd.amazon.eventstream` frames for Bedrock
Converse (written by `mcs_reference.eventstream`, the codec the reference reads). Used by the corpus writer (`regressions`) and by the local
provider server, which also applies the byte-level quirks (`wires/_quirks.py`, wire `body`).
"""
from __future__ import annotations

import json
from typing import Any, Iterable

from mcs_reference.eventstream import encode_chunk_frame
from mcs_conformance.wires._provider_errors import is_error_event_chunk

__all__ = ["BODY_QUIRKS_OF", "EVENT_NAMED", "content_type", "frame_body", "json_text"]

EVENT_NAMED = ("openai-responses", "anthropic-messages")  # `event: <type>` before each data line
DONE_AFTER = ("openai-chat", "text")  # OpenAI Chat bodies end with `data: [DONE]`
NDJSON = ("ollama-chat",)
EVENTSTREAM = ("bedrock-converse",)  # binary application/vnd.amazon.eventstream frames
_SSE_SPEC = frozenset({"sse-crlf", "no-space-after-data"})  # forms the SSE spec allows
#: The byte-level quirks applied to each wire's body: only those whose servers send them on
#: that wire (../shared/corpora-real, docs/quirks.md), and the SSE spec's own forms on every
#: SSE wire. A quirk no server of a wire sends would fail a client of it unfairly.
BODY_QUIRKS_OF = {
    "openai-chat": _SSE_SPEC | {"sse-comments", "sorted-keys"},  # OpenRouter; Snowflake Cortex
    "openai-responses": _SSE_SPEC | {"data-before-event", "sorted-keys"},  # Bedrock
    "anthropic-messages": _SSE_SPEC | {"data-padding"},  # Anthropic
    "ollama-chat": frozenset(),  # NDJSON: no byte-level quirk recorded
    # raw Gemini API bodies: CRLF and Google's spacing; raw separators (JSON allows them)
    "gemini": _SSE_SPEC | {"spaced-json", "raw-line-separators"},
    "bedrock-converse": frozenset(),  # binary frames: their cuts are the byte-level shapes
}
PADDING = 15  # the most spaces Anthropic's recorded events hold before their closing brace
#: Characters JSON allows raw in a string that `str.splitlines` takes for line ends. No
#: recorded Gemini body shows Google sending them raw (its raw bodies hold only ASCII; a
#: LiteLLM PR says Vertex does, without the bytes): a Gemini body holds them raw only under
#: the quirk `raw-line-separators`, so a reader that splits on them fails under that name.
_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\u0085": "\\u0085"}
_ESCAPED_SEPARATORS = str.maketrans(_SEPARATORS)
#: Ollama's server is Go: `encoding/json` always escapes U+2028 and U+2029 (for JSONP), never
#: U+0085, so its NDJSON lines carry only U+0085 raw.
_GO_ESCAPED = str.maketrans({key: value for key, value in _SEPARATORS.items() if key != "\u0085"})

def content_type(wire: str) -> str:
    """The `Content-Type` of a streamed body on `wire`."""
    if wire in EVENTSTREAM:
        return "application/vnd.amazon.eventstream"
    return "application/x-ndjson" if wire in NDJSON else "text/event-stream; charset=utf-8"


def json_text(value: Any, *, sort_keys: bool = False, spaced: bool = False) -> str:
    """Compact JSON (`spaced`: `": "` after keys, as Google writes it), non-ASCII kept as is
    (a lone surrogate escaped, since UTF-8 cannot carry it). Raises `TypeError`/`ValueError`
    for a value JSON cannot carry (NaN, objects)."""
    separators = (",", ": ") if spaced else (",", ":")
    try:
        text = json.dumps(value, ensure_ascii=False, separators=separators, allow_nan=False,
                          sort_keys=sort_keys)
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, separators=separators, allow_nan=False, sort_keys=sort_keys)
    return text


def _is_error_event(wire: str, chunk: Any) -> bool:
    return is_error_event_chunk(wire, chunk)


def _frame(index: int, chunk: Any) -> bytes:
    try:
        return encode_chunk_frame(chunk)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"chunk {index} cannot be written as an event-stream frame ({exc})") \
            from None


def frame_body(wire: str, chunks: Iterable[Any], *, deltas: bool = False,
               quirks: frozenset = frozenset()) -> bytes:
    """The body that carries `chunks` on `wire` (`deltas`: a text strategy's str deltas, one
    JSON string a line). `quirks` are byte-level quirk names, applied as given (those an
    NDJSON body has no use for are ignored); `BODY_QUIRKS_OF[wire]` says which `wire`'s
    servers send. A chunk JSON cannot carry raises `ValueError` naming its position."""
    if wire in EVENTSTREAM and not deltas:
        return b"".join(_frame(index, chunk) for index, chunk in enumerate(chunks))
    sort_keys = "sorted-keys" in quirks
    newline = "\r\n" if "sse-crlf" in quirks else "\n"
    data = "data:" if "no-space-after-data" in quirks else "data: "
    parts = []
    ended_by_error = False
    for index, chunk in enumerate(chunks):
        try:
            text = json_text(chunk, sort_keys=sort_keys, spaced="spaced-json" in quirks)
            if wire == "gemini" and "raw-line-separators" not in quirks:
                text = text.translate(_ESCAPED_SEPARATORS)
            elif wire == "ollama-chat":
                text = text.translate(_GO_ESCAPED)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"chunk {index} cannot be written as JSON ({exc})") from None
        if deltas or wire in NDJSON:
            parts.append(text + "\n")
            continue
        if "data-padding" in quirks and text.endswith("}"):  # as recorded: `..."}     }`
            text = text[:-1] + " " * (1 + index % PADDING) + "}"
        ended_by_error = _is_error_event(wire, chunk)
        event = "error" if ended_by_error else (
            chunk.get("type") if isinstance(chunk, dict) and wire in EVENT_NAMED else None)
        named = isinstance(event, str) and event and not set(event) & {"\n", "\r"}
        lines = [f"{data}{text}"]
        if named:
            lines.insert(1 if "data-before-event" in quirks else 0, f"event: {event}")
        if "sse-comments" in quirks and index % 2 == 0:
            lines.insert(0, ": keep-alive")
        parts.append(newline.join(lines) + newline + newline)
    if not deltas and wire in DONE_AFTER and not ended_by_error:
        parts.append(f"{data}[DONE]{newline}{newline}")
    return "".join(parts).encode("utf-8")

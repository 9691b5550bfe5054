"""The Ollama chat wire: `/api/chat` bodies and the NDJSON streams that carry them.

The native message is the whole `stream=false` body: `model`, `created_at` (the time of the
last chunk), `message` (`role`, `content` joined, `thinking` joined when present,
`tool_calls` with `arguments` as objects), `done: true`, `done_reason` and the counters of
the final chunk. A stream is `done: false` chunks (thinking pieces with `content: ""`, then
content pieces, empty ones among them, then every call whole in one chunk), then the
`done: true` chunk with the counters; older servers put the calls in that final chunk.
Calls come in three generations: bare `{"function": {...}}`, with `function.index` (index 0
left out, as Go's `omitempty` does), and with an `id`; a call without arguments may lack
the `arguments` key.
"""
from __future__ import annotations

import copy
from datetime import datetime, timezone
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ._base import Case, Wire, check_options, native_wire, pieces
from ._content import arguments, prose, token, tool_names

__all__ = ["NAME", "case_of", "cases", "chunkings", "make_wire", "messages"]

NAME = "ollama-chat"
MODELS = ("llama3.2", "qwen3:8b", "qwen2.5-coder:7b", "mistral-nemo", "gpt-oss:20b")
COUNTERS = ("total_duration", "load_duration", "prompt_eval_count", "prompt_eval_duration",
            "eval_count", "eval_duration")
_LOWER36 = "abcdefghijklmnopqrstuvwxyz0123456789"
_EPOCH_NS = (1_704_067_200 * 10**9, 1_830_000_000 * 10**9)  # 2024 .. 2027


def _stamp(ns: int) -> str:
    """RFC 3339 with nanoseconds, trailing zeros trimmed, as Go's `time.Time` writes it."""
    seconds, nanos = divmod(ns, 10**9)
    head = datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")
    frac = f"{nanos:09d}".rstrip("0")
    return f"{head}.{frac}Z" if frac else f"{head}Z"


def _ns_of(stamp: str) -> int | None:
    """Inverse of `_stamp` (None for any other format)."""
    try:
        head, _, frac = stamp.rstrip("Z").partition(".")
        when = datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc)
        return int(when.timestamp()) * 10**9 + int((frac or "0").ljust(9, "0")[:9])
    except (AttributeError, ValueError):
        return None


@st.composite
def _tool_calls(draw: Callable, count: int) -> list[dict]:
    generation = draw(st.sampled_from(("bare", "indexed", "with-id")))
    calls = []
    for index in range(count):
        function: dict[str, Any] = {}
        if generation == "with-id" or (generation == "indexed" and index):
            function["index"] = index
        function["name"] = draw(tool_names())
        args = draw(arguments())
        if args or draw(st.booleans()):
            function["arguments"] = args
        call: dict[str, Any] = {"function": function}
        if generation == "with-id":
            call = {"id": "call_" + draw(token(_LOWER36, 8)), "function": function}
        calls.append(call)
    return calls


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3) -> dict:
    """Whole `stream=false` `/api/chat` bodies: text, thinking, 0..n calls, counters."""
    check_options(min_calls, max_calls)
    count = draw(st.integers(min_calls, max_calls))
    thinking = draw(st.one_of(st.none(), prose().filter(bool)))
    message: dict[str, Any] = {"role": "assistant", "content": draw(prose())}
    if thinking is not None:
        message["thinking"] = thinking
    if count:
        message["tool_calls"] = draw(_tool_calls(count))
    body: dict[str, Any] = {
        "model": draw(st.sampled_from(MODELS)),
        "created_at": _stamp(draw(st.integers(*_EPOCH_NS))),
        "message": message,
        "done": True,
        "done_reason": "stop" if count else draw(st.sampled_from(("stop", "length"))),
    }
    for key in COUNTERS:
        body[key] = draw(st.integers(1, 10**11))
    return body


@st.composite
def chunkings(draw: Callable, body: dict, *, max_cuts: int = 8) -> list[dict]:
    """The NDJSON chunks of one stream that carries `body`, cut at drawn points."""
    message = body["message"]
    calls = message.get("tool_calls")
    parts: list[dict] = []
    if message.get("thinking"):
        parts += [{"role": "assistant", "content": "", "thinking": piece}
                  for piece in draw(pieces(message["thinking"], max_cuts=max_cuts,
                                           allow_empty=False))]
    parts += [{"role": "assistant", "content": piece}
              for piece in draw(pieces(message["content"], max_cuts=max_cuts))]
    for _ in range(draw(st.integers(0, 2))):
        parts.insert(draw(st.integers(0, len(parts))), {"role": "assistant", "content": ""})
    calls_in_final = bool(calls) and draw(st.integers(0, 3)) == 3  # older servers, rarely
    if calls and not calls_in_final:
        parts.append({"role": "assistant", "content": "", "tool_calls": copy.deepcopy(calls)})
    final_message: dict[str, Any] = {"role": "assistant", "content": ""}
    if calls_in_final:
        final_message["tool_calls"] = copy.deepcopy(calls)

    end = _ns_of(body["created_at"])
    step = draw(st.integers(1_000_000, 80_000_000))

    def stamp(index: int) -> str:
        if end is None:
            return body["created_at"]
        return _stamp(end - (len(parts) - index) * step)

    chunks = [{"model": body["model"], "created_at": stamp(i), "message": part, "done": False}
              for i, part in enumerate(parts)]
    final = {key: copy.deepcopy(value) for key, value in body.items() if key != "message"}
    final["message"] = final_message
    chunks.append(final)
    return chunks


def case_of(body: dict, chunks: list) -> Case:
    """The `Case` for `body` carried by `chunks`."""
    calls = [
        ExtractedCall(call["function"]["name"], call["function"].get("arguments") or {},
                      call.get("id"))
        for call in body["message"].get("tool_calls") or ()
    ]
    return Case(
        wire=NAME,
        message=body,
        chunks=chunks,
        done_at=next(i for i, chunk in enumerate(chunks) if chunk.get("done")),
        calls=calls,
        text=body["message"]["content"],
        response=copy.deepcopy(body),
    )


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8) -> Case:
    """Generated streams with the truth about them."""
    check_options(min_calls, max_calls, max_cuts)
    body = draw(messages(min_calls=min_calls, max_calls=max_calls))
    return case_of(body, draw(chunkings(body, max_cuts=max_cuts)))


def make_wire(**options: Any) -> Wire:
    """The Ollama chat wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options)

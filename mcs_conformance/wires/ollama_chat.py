"""The Ollama chat wire: `/api/chat` bodies and the NDJSON streams that carry them.

The native message is the whole `stream=false` body: `model`, `created_at` (the time of the
last chunk), `message` (`role`, `content` joined, `thinking` joined when present,
`tool_calls` with `arguments` as objects), `done: true`, `done_reason` and the counters of
the final chunk. A stream is `done: false` chunks (thinking pieces with `content: ""`, then
content pieces, empty ones among them, then every call whole in one chunk), then the
`done: true` chunk with the counters; older servers put the calls in that final chunk.
Calls come in three generations: with an `id` and `function.index` (today's Ollama), with
`function.index` only (index 0 left out, as Go's `omitempty` does: quirk `no-call-id`), and
bare `{"function": {...}}` (`no-call-index` too); a call without arguments may lack the
`arguments` key, and thinking may sit in `content` between think tags. Each quirk is drawn
only when allowed and recorded in `Case.quirks` (wires/quirks.py).
"""
from __future__ import annotations

import copy
from datetime import datetime, timezone
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ._base import NATIVE_OPTIONS, Case, Wire, built_once, check_options, draw_pieces, native_wire
from ._content import SOME_PROSE, arguments, prose, token, tool_names
from .provider_errors import error_objects, error_tail
from .quirks import allowed_quirks, maybe

__all__ = ["COVERAGE", "NAME", "case_of", "cases", "chunkings", "make_wire", "messages"]

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


#: What this wire draws of the `/api/chat` message, and what it leaves out and why (read by
#: tests/kit/test_union_coverage.py; Ollama has no SDK types to read, so the fields follow
#: Ollama's API docs).
COVERAGE = {
    "message": {
        "drawn": {"role", "content", "thinking", "tool_calls"},
        "excluded": {
            "images": "only user messages carry images; an assistant answer never does",
            "tool_name": "set on `tool` role messages of the request, never on an answer",
        },
    },
    "tool_call": {"drawn": {"id", "function.index", "function.name", "function.arguments"},
                  "excluded": {}},
}


@st.composite
def _tool_calls(draw: Callable, count: int, allowed: frozenset, tags: set) -> list[dict]:
    generations = ("with-id",) + tuple(
        g for g, quirk in (("indexed", "no-call-id"), ("bare", "no-call-index"))
        if quirk in allowed and "no-call-id" in allowed)
    generation = draw(st.sampled_from(generations))
    if generation != "with-id":
        tags.add("no-call-id")
    if generation == "bare":
        tags.add("no-call-index")
    calls = []
    for index in range(count):
        function: dict[str, Any] = {}
        if generation == "with-id" or (generation == "indexed" and index):
            function["index"] = index
        function["name"] = draw(tool_names())
        args = draw(arguments())
        if args or not maybe(draw, allowed, "call-without-arguments"):
            function["arguments"] = args
        else:
            tags.add("call-without-arguments")
        call: dict[str, Any] = {"function": function}
        if generation == "with-id":
            call = {"id": "call_" + draw(token(_LOWER36, 8)), "function": function}
        calls.append(call)
    return calls


THINK_TAGS = ("<think>\n", "</think>\n\n")
_THINKING = st.one_of(st.none(), SOME_PROSE)


@built_once
@st.composite
def _body_and_tags(draw: Callable, min_calls: int, max_calls: int,
                   allowed: frozenset) -> tuple[dict, set]:
    tags: set = set()
    count = draw(st.integers(min_calls, max_calls))
    thinking = draw(_THINKING)
    content = draw(prose())
    if maybe(draw, allowed, "think-tag-in-content", 4):  # qwen3 without `think`
        content = THINK_TAGS[0] + draw(SOME_PROSE) + THINK_TAGS[1] + content
        tags.add("think-tag-in-content")
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None:
        message["thinking"] = thinking
    if count:
        message["tool_calls"] = draw(_tool_calls(count, allowed, tags))
    body: dict[str, Any] = {
        "model": draw(st.sampled_from(MODELS)),
        "created_at": _stamp(draw(st.integers(*_EPOCH_NS))),
        "message": message,
        "done": True,
        "done_reason": "stop" if count else draw(st.sampled_from(("stop", "length"))),
    }
    for key in COUNTERS:
        body[key] = draw(st.integers(1, 10**11))
    return body, tags


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, quirks=None) -> dict:
    """Whole `stream=false` `/api/chat` bodies: text, thinking, 0..n calls, counters."""
    check_options(min_calls, max_calls)
    return draw(_body_and_tags(min_calls, max_calls, allowed_quirks(NAME, quirks)))[0]


@st.composite
def chunkings(draw: Callable, body: dict, *, max_cuts: int = 8, quirks=None) -> list[dict]:
    """The NDJSON chunks of one stream that carries `body`, cut at drawn points."""
    return draw(_chunks(body, max_cuts, allowed_quirks(NAME, quirks), set()))


@st.composite
def _chunks(draw: Callable, body: dict, max_cuts: int, allowed: frozenset,
            tags: set) -> list[dict]:
    message = body["message"]
    calls = message.get("tool_calls")
    parts: list[dict] = []
    if message.get("thinking"):
        parts += [{"role": "assistant", "content": "", "thinking": piece}
                  for piece in draw_pieces(draw, message["thinking"], max_cuts=max_cuts,
                                           allow_empty=False)]
    parts += [{"role": "assistant", "content": piece}
              for piece in draw_pieces(draw, message["content"], max_cuts=max_cuts)]
    for _ in range(draw(st.integers(0, 2))):
        parts.insert(draw(st.integers(0, len(parts))), {"role": "assistant", "content": ""})
    calls_in_final = bool(calls) and maybe(draw, allowed, "calls-in-done-chunk", 4)  # older
    if calls_in_final:
        tags.add("calls-in-done-chunk")
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


def _calls_of(message: dict) -> list[ExtractedCall]:
    return [
        ExtractedCall(call["function"]["name"], call["function"].get("arguments") or {},
                      call.get("id"))
        for call in message.get("tool_calls") or ()
    ]


def case_of(body: dict, chunks: list, *, quirks: frozenset = frozenset()) -> Case:
    """The `Case` for `body` carried by `chunks`."""
    calls = _calls_of(body["message"])
    return Case(
        wire=NAME,
        message=body,
        chunks=chunks,
        done_at=next(i for i, chunk in enumerate(chunks) if chunk.get("done")),
        calls=calls,
        text=body["message"]["content"],
        response=copy.deepcopy(body),
        quirks=frozenset(quirks),
    )


@st.composite
def _error_case(draw: Callable, case: Case) -> Case:
    """`case` cut after a drawn prefix of its `done: false` chunks, then an error line."""
    cut = draw(st.integers(0, case.done_at))
    prefix = copy.deepcopy(case.chunks[:cut])
    form, error = draw(error_objects(NAME))
    tail, error = error_tail(NAME, form, error)
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for chunk in prefix:
        part = chunk["message"]
        message["content"] += part.get("content") or ""
        if part.get("thinking"):
            message["thinking"] = message.get("thinking", "") + part["thinking"]
        if part.get("tool_calls"):
            message.setdefault("tool_calls", []).extend(copy.deepcopy(part["tool_calls"]))
    body = {"model": case.message["model"], "message": message, "done": False}
    if prefix:
        body["created_at"] = prefix[-1]["created_at"]
    return Case(wire=NAME, message=body, chunks=prefix + tail, done_at=cut,
                calls=_calls_of(message), text=message["content"], response=None,
                quirks=case.quirks, error=error, error_at=cut)


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          quirks=None, errors: bool = False) -> Case:
    """Generated streams with the truth about them. `quirks`: None allows every Ollama
    quirk, a set only those named (`frozenset()`: today's Ollama); `errors=True` ends every
    stream in an error line after a drawn prefix."""
    check_options(min_calls, max_calls, max_cuts)
    allowed = allowed_quirks(NAME, quirks)
    body, tags = draw(_body_and_tags(min_calls, max_calls, allowed))
    chunks = draw(_chunks(body, max_cuts, allowed, tags))
    case = case_of(body, chunks, quirks=tags)
    return draw(_error_case(case)) if errors else case


def make_wire(**options: Any) -> Wire:
    """The Ollama chat wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       allowed=NATIVE_OPTIONS | {"quirks", "errors"})

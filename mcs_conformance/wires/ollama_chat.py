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
only when allowed and recorded in `Case.quirks` (wires/_quirks.py). The `thinking` field and a
stop at `num_predict` are drawn only for a request asking them (`features`,
wires/_features.py).
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires._base import (Case, check_options, draw_pieces, NATIVE_OPTIONS,
                                         native_wire, Tape, tapes, Wire)
from mcs_conformance.wires._content import (draw_arguments, draw_opaque, draw_prose,
                                            draw_tool_name, positions, SOME_PROSE, spell)
from mcs_conformance.wires._features import asks
from mcs_conformance.wires._provider_errors import error_objects, error_tail
from mcs_conformance.wires._quirks import allowed_quirks, maybe, often_pick, OftenQuirks

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


CALL_SLOTS = 4  # slots for the calls' own decisions, reused round the clock beyond
# The small decisions of one stream (its body's and its chunks'), one tape slot each.
_TAPES = tapes((
    "think-tag-in-content", "generation", "model", "done-reason", "calls-in-done-chunk",
    "empty-chunks", "empty-chunk-0-at", "empty-chunk-1-at",
    *(f"call-without-arguments-{slot}" for slot in range(CALL_SLOTS))))
# The body's call ids, `created_at` and counters are read from one `OPAQUE` number.
_COUNTER_TOP = 10**11
_ID_SPACE = len(_LOWER36) ** 8


def _tool_calls(drawn: list[tuple[str, dict]], allowed: frozenset, tags: set, tape: Tape,
                opaque: int) -> list[dict]:
    """The calls of drawn `(name, arguments)` pairs, in the generation the tape picks."""
    generations = tuple(g for g, quirk in (("indexed", "no-call-id"), ("bare", "no-call-index"))
                        if quirk in allowed and "no-call-id" in allowed)
    generation = (often_pick(tape, "generation", "with-id", generations)
                  if isinstance(allowed, OftenQuirks)
                  else tape.pick("generation", ("with-id",) + generations))
    if generation != "with-id":
        tags.add("no-call-id")
    if generation == "bare":
        tags.add("no-call-index")
    calls = []
    for index, (name, args) in enumerate(drawn):
        function: dict[str, Any] = {}
        if generation == "with-id" or (generation == "indexed" and index):
            function["index"] = index
        function["name"] = name
        if args or not maybe(tape, allowed, "call-without-arguments",
                             slot=f"call-without-arguments-{index % CALL_SLOTS}"):
            function["arguments"] = args
        else:
            tags.add("call-without-arguments")
        call: dict[str, Any] = {"function": function}
        if generation == "with-id":
            number = (opaque >> (42 * (index % 4))) + index // 4
            call = {"id": "call_" + spell(number % _ID_SPACE, _LOWER36, 8), "function": function}
        calls.append(call)
    return calls


THINK_TAGS = ("<think>\n", "</think>\n\n")
_THINKING = st.one_of(st.none(), SOME_PROSE)


def _body(draw: Callable, min_calls: int, max_calls: int, allowed: frozenset,
          features: frozenset | None = None) -> tuple[dict, set, Tape]:
    """A `stream=false` body, the quirks it holds, and the tape of its stream's small
    decisions; only what a request asking `features` gets."""
    tags: set = set()
    # The count, then the tape, first: Hypothesis's first test cases draw a few values at
    # random and fill the rest with the simplest choices, so drawn after the message a quirk
    # came out absent on some seeds (openai_chat.cases), and drawn before the count, every
    # such case had one call: after it, several calls with the simplest ids and names come
    # out alike, which is how a client keying calls by id or name gets caught.
    count = min_calls + draw(positions(max_calls - min_calls))
    tape = _TAPES(draw)
    opaque = draw_opaque(draw)
    thinking = draw(_THINKING)
    content = draw_prose(draw)
    # Drawn whatever the tape decides, so that shrinking the decision shifts no later draw.
    tagged = draw_prose(draw, min_size=1) if "think-tag-in-content" in allowed else ""
    if maybe(tape, allowed, "think-tag-in-content", 4):  # qwen3 without `think`
        content = THINK_TAGS[0] + tagged + THINK_TAGS[1] + content
        tags.add("think-tag-in-content")
    calls = [(draw_tool_name(draw), draw_arguments(draw)) for _ in range(count)]
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if thinking is not None and asks(features, "think"):
        message["thinking"] = thinking
    if count:
        message["tool_calls"] = _tool_calls(calls, allowed, tags, tape, opaque)
    body: dict[str, Any] = {
        "model": tape.pick("model", MODELS),
        "created_at": _stamp(_EPOCH_NS[0] + (opaque >> 96) % (_EPOCH_NS[1] - _EPOCH_NS[0] + 1)),
        "message": message,
        "done": True,
        "done_reason": "stop" if count else tape.pick("done-reason", (
            "stop", "length") if asks(features, "max_tokens") else ("stop",)),
    }
    for number, key in enumerate(COUNTERS):
        body[key] = 1 + (opaque >> (29 * number)) % _COUNTER_TOP
    return body, tags, tape


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, quirks=None,
             features: frozenset | None = None) -> dict:
    """Whole `stream=false` `/api/chat` bodies: text, thinking, 0..n calls, counters;
    `features` as for `cases`."""
    check_options(min_calls, max_calls)
    return _body(draw, min_calls, max_calls, allowed_quirks(NAME, quirks), features)[0]


@st.composite
def chunkings(draw: Callable, body: dict, *, max_cuts: int = 8, quirks=None,
              features: frozenset | None = None) -> list[dict]:
    """The NDJSON chunks of one stream that carries `body`, cut at drawn points
    (`features`: no shape of the stream is tied to one; the body holds them all)."""
    tape = _TAPES(draw)
    return _chunks(draw, tape, body, max_cuts, allowed_quirks(NAME, quirks), set())


def _step(end: int) -> int:
    """Nanoseconds between two chunks: an opaque value, read from the last chunk's time."""
    return 1_000_000 + end % 79_000_001


def _chunks(draw: Callable, tape: Tape, body: dict, max_cuts: int, allowed: frozenset,
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
    for number in range(tape.below("empty-chunks", 3)):
        at = tape.below(f"empty-chunk-{number}-at", min(len(parts) + 1, 256))
        parts.insert(at, {"role": "assistant", "content": ""})
    calls_in_final = bool(calls) and maybe(tape, allowed, "calls-in-done-chunk", 4)  # older
    if calls_in_final:
        tags.add("calls-in-done-chunk")
    if calls and not calls_in_final:
        parts.append({"role": "assistant", "content": "", "tool_calls": copy_json(calls)})
    final_message: dict[str, Any] = {"role": "assistant", "content": ""}
    if calls_in_final:
        final_message["tool_calls"] = copy_json(calls)

    end = _ns_of(body["created_at"])

    def stamp(index: int) -> str:
        if end is None:
            return body["created_at"]
        return _stamp(end - (len(parts) - index) * _step(end))

    chunks = [{"model": body["model"], "created_at": stamp(i), "message": part, "done": False}
              for i, part in enumerate(parts)]
    final = {key: copy_json(value) for key, value in body.items() if key != "message"}
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
        response=copy_json(body),
        quirks=frozenset(quirks),
    )


def _error_case(draw: Callable, case: Case) -> Case:
    """`case` cut after a drawn prefix of its `done: false` chunks, then an error line."""
    cut = draw(positions(case.done_at))
    prefix = copy_json(case.chunks[:cut])
    form, error = draw(error_objects(NAME))
    tail, error = error_tail(NAME, form, error)
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for chunk in prefix:
        part = chunk["message"]
        message["content"] += part.get("content") or ""
        if part.get("thinking"):
            message["thinking"] = message.get("thinking", "") + part["thinking"]
        if part.get("tool_calls"):
            message.setdefault("tool_calls", []).extend(copy_json(part["tool_calls"]))
    body = {"model": case.message["model"], "message": message, "done": False}
    if prefix:
        body["created_at"] = prefix[-1]["created_at"]
    return Case(wire=NAME, message=body, chunks=prefix + tail, done_at=cut,
                calls=_calls_of(message), text=message["content"], response=None,
                quirks=case.quirks, error=error, error_at=cut)


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          quirks=None, errors: bool = False, features: frozenset | None = None) -> Case:
    """Generated streams with the truth about them. `quirks`: None allows every Ollama
    quirk, a set only those named (`frozenset()`: today's Ollama); `features`: what the
    request can ask (wires/_features.py; None: every shape); `errors=True` ends every
    stream in an error line after a drawn prefix."""
    check_options(min_calls, max_calls, max_cuts)
    allowed = allowed_quirks(NAME, quirks)
    body, tags, tape = _body(draw, min_calls, max_calls, allowed, features)
    chunks = _chunks(draw, tape, body, max_cuts, allowed, tags)
    case = case_of(body, chunks, quirks=tags)
    return _error_case(draw, case) if errors else case


def make_wire(**options: Any) -> Wire:
    """The Ollama chat wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       allowed=NATIVE_OPTIONS | {"quirks", "errors", "features"})

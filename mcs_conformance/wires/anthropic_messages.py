"""The Anthropic Messages wire: generated `Message`s and the event streams that carry them.

A stream is `message_start` (empty content, input usage), then per content block a
`content_block_start` / deltas / `content_block_stop`, then `message_delta` (stop reason and
cumulative usage, which replaces) and `message_stop`, with `ping`s between any two events.
The quirks of real streams are drawn too: a first `partial_json` of `""`, `{}` sent as `""`,
a `tool_use` given whole at its start with no deltas, empty deltas, the signature in one
`signature_delta`, usage counters that only `message_delta` carries.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ._base import NATIVE_OPTIONS, Case, Wire, check_options, native_wire, pieces
from ._content import BASE62, PLACES, arguments, dump, interleave, opaque, positions, prose
from ._content import token, tool_names

__all__ = ["NAME", "cases", "chunkings", "case_of", "make_wire", "messages"]

NAME = "anthropic-messages"
MODELS = ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-4-1-20250805",
          "claude-3-7-sonnet-20250219")
COUNTERS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
DELTA_ONLY = ("output_tokens_details", "server_tool_use")  # usage keys only message_delta sends


def _text_block(text: str) -> dict:
    return {"type": "text", "text": text}


@st.composite
def _thinking_blocks(draw: Callable) -> dict:
    if draw(st.booleans()):
        return {"type": "redacted_thinking", "data": draw(opaque())}
    return {"type": "thinking", "thinking": draw(prose()), "signature": draw(opaque())}


@st.composite
def _tool_uses(draw: Callable) -> dict:
    call = {"type": "tool_use", "id": draw(_TOOL_IDS), "name": draw(tool_names()),
            "input": draw(arguments())}
    if draw(st.booleans()):
        call["caller"] = {"type": "direct"}
    return call


_TOOL_IDS = token(BASE62, 22).map("toolu_01".__add__)


@st.composite
def _usage(draw: Callable, has_thinking: bool) -> dict:
    count = st.integers(0, 5000)
    usage = {"input_tokens": draw(count)}
    if draw(st.booleans()):  # prompt caching era
        usage["cache_creation_input_tokens"] = draw(count)
        usage["cache_read_input_tokens"] = draw(count)
        usage["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
        usage["service_tier"] = "standard"
    usage["output_tokens"] = draw(st.integers(1, 5000))
    if has_thinking and draw(st.booleans()):
        usage["output_tokens_details"] = {"thinking_tokens": draw(count)}
    if draw(st.booleans()):
        usage["server_tool_use"] = {"web_search_requests": 0, "web_fetch_requests": 0}
    return usage


@st.composite
def _streamed(draw: Callable, blocks: st.SearchStrategy, max_cuts: int | None) -> tuple:
    """A pair `(block, its stream or None)`, drawn together so a deleted block takes its
    deltas with it: a failing case shrinks to fewer blocks, not only to fewer cuts."""
    block = draw(blocks)
    return block, None if max_cuts is None else draw(_block_stream(block, max_cuts))


@lru_cache(maxsize=64)
def _lists(min_calls: int, max_calls: int, max_cuts: int | None) -> tuple:
    """The list strategies of `_content`, built once per option set (building is costly)."""
    return (
        st.lists(_streamed(_thinking_blocks(), max_cuts), max_size=2),
        st.lists(_streamed(prose().map(_text_block), max_cuts), max_size=3),
        st.lists(st.tuples(_streamed(_tool_uses(), max_cuts), PLACES), min_size=min_calls,
                 max_size=max_calls, unique_by=lambda pair: pair[0][0]["id"]),
    )


@st.composite
def _content(draw: Callable, min_calls: int, max_calls: int, max_cuts: int | None) -> tuple:
    check_options(min_calls, max_calls)
    thinking, texts, calls = _lists(min_calls, max_calls, max_cuts)
    pairs = draw(thinking) + interleave(draw(texts), draw(calls))
    message = draw(_envelope([block for block, _ in pairs]))
    return message, [stream for _, stream in pairs]


_STOP_SEQUENCES = st.one_of(st.sampled_from(("\n\nHuman:", "END", "</answer>")),
                            st.text(min_size=1, max_size=8))


@st.composite
def _envelope(draw: Callable, content: list) -> dict:
    if any(block["type"] == "tool_use" for block in content):
        stop_reason = "tool_use"
    else:
        stop_reason = draw(st.sampled_from(("end_turn", "max_tokens", "stop_sequence")))
    stop_sequence = None
    if stop_reason == "stop_sequence":
        stop_sequence = draw(_STOP_SEQUENCES)
    message = {
        "id": "msg_01" + draw(token(BASE62, 22)),
        "type": "message",
        "role": "assistant",
        "model": draw(st.sampled_from(MODELS)),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": stop_sequence,
    }
    if draw(st.booleans()):
        message["stop_details"] = None
    has_thinking = any(block["type"] == "thinking" for block in content)
    message["usage"] = draw(_usage(has_thinking))
    return message


def messages(*, min_calls: int = 0, max_calls: int = 3) -> st.SearchStrategy[dict]:
    """Native `Message`s as `stream=false` returns them, with 0..n `tool_use` blocks."""
    return _content(min_calls, max_calls, None).map(lambda pair: pair[0])


@st.composite
def _block_stream(draw: Callable, block: dict, max_cuts: int) -> tuple[dict, list[dict]]:
    """The `content_block_start` block and the deltas that carry `block`."""
    kind = block["type"]
    deltas: list[dict] = []
    if kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": part}
                  for part in draw(pieces(block["text"], max_cuts=max_cuts))]
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [{"type": "thinking_delta", "thinking": part}
                  for part in draw(pieces(block["thinking"], max_cuts=max_cuts))]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "tool_use" and not draw(st.booleans()):
        start = copy.deepcopy({**block, "input": {}})
        if block["input"]:
            fragments = draw(pieces(dump(draw, block["input"]), max_cuts=max_cuts))
            if draw(st.booleans()):
                fragments.insert(0, "")
        else:
            fragments = draw(st.sampled_from(([""], ["{}"])))
        deltas = [{"type": "input_json_delta", "partial_json": part} for part in fragments]
    else:  # redacted_thinking, and a tool_use given whole (calls made from code execution)
        start = copy.deepcopy(block)
    return start, deltas


@st.composite
def _usages(draw: Callable, final: dict) -> tuple[dict, dict]:
    """The usage of `message_start` and of `message_delta`: the second replaces key by key."""
    start = {key: value for key, value in final.items() if key not in DELTA_ONLY}
    start["output_tokens"] = draw(st.integers(1, final["output_tokens"]))
    delta = {"output_tokens": final["output_tokens"]}
    if any(key in final for key in DELTA_ONLY) or draw(st.booleans()):
        keys = (*COUNTERS, "output_tokens", *DELTA_ONLY)
        delta = {key: final[key] for key in keys if key in final}
    return copy.deepcopy(start), copy.deepcopy(delta)


@st.composite
def _events(draw: Callable, message: dict, streams: list, pings: bool) -> list[dict]:
    start_usage, delta_usage = draw(_usages(message["usage"]))
    head = {key: copy.deepcopy(value) for key, value in message.items()
            if key not in ("content", "usage")}
    head.update(content=[], stop_reason=None, stop_sequence=None, usage=start_usage)
    if "stop_details" in head:
        head["stop_details"] = None
    events: list[dict] = [{"type": "message_start", "message": head}]
    for index, (start, deltas) in enumerate(streams):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]}
    if "stop_details" in message:
        stop["stop_details"] = message["stop_details"]
    events.append({"type": "message_delta", "delta": stop, "usage": delta_usage})
    events.append({"type": "message_stop"})
    if pings:  # anywhere after message_start, rarely after message_stop too
        for _ in range(draw(st.integers(0, 3))):
            events.insert(1 + draw(positions(len(events) - 1)), {"type": "ping"})
    return events


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8, pings: bool = True) -> list:
    """The events of one stream that carries `message`, cut at drawn points."""
    streams = [draw(_block_stream(block, max_cuts)) for block in message["content"]]
    return draw(_events(message, streams, pings))


def case_of(message: dict, chunks: list) -> Case:
    """The `Case` for `message` carried by `chunks` (what extraction must find)."""
    done_at = max(i for i, chunk in enumerate(chunks) if chunk.get("type") == "message_stop")
    blocks = message["content"]
    return Case(
        wire=NAME,
        message=message,
        chunks=chunks,
        done_at=done_at,
        calls=[ExtractedCall(b["name"], b["input"], b["id"]) for b in blocks
               if b["type"] == "tool_use"],
        text="".join(b["text"] for b in blocks if b["type"] == "text"),
        response=copy.deepcopy(message),
    )


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          pings: bool = True) -> Case:
    """Generated streams with the truth about them."""
    message, streams = draw(_content(min_calls, max_calls, max_cuts))
    return case_of(message, draw(_events(message, streams, pings)))


def make_wire(**options: Any) -> Wire:
    """The Anthropic Messages wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options, NATIVE_OPTIONS | {"pings"})

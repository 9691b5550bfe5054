"""The Anthropic Messages wire: generated `Message`s and the event streams that carry them.

A stream is `message_start` (empty content, input usage), then per content block a
`content_block_start` / deltas / `content_block_stop`, then `message_delta` (stop reason and
cumulative usage, which replaces) and `message_stop`, with `ping`s between any two events.
The quirks of real streams are drawn too: a first `partial_json` of `""`, `{}` sent as `""`,
a `tool_use` given whole at its start with no deltas, empty deltas, the signature in one
`signature_delta`, usage counters that only `message_delta` carries, and a last `tool_use`
cut by `max_tokens` (its JSON unfinished, its `content_block_stop` never sent): the truth is
then what a stream of it assembles, its `input` the unfinished text and its call an error.

Provider-run blocks are drawn beside the client's `tool_use` calls: `server_tool_use` and
its `*_tool_result` (web search, web fetch, code execution, tool search), `container_upload`,
and text with citations (`citations_delta`); programmatic calls carry a `caller`. They are
never in `Case.calls`. `COVERAGE` lists what the SDK unions hold that is not drawn (nothing,
today); `QUIRKS` the real-server quirks drawn and tagged in `Case.quirks`.
"""
from __future__ import annotations

import copy
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall, call_from_object

from . import provider_errors
from ._anthropic_server import citations, server_ids, server_segments
from .quirks import allowed_quirks, maybe
from ._base import NATIVE_OPTIONS, Case, Wire, built_once, check_options, draw_pieces, native_wire
from ._content import BASE62, PLACES, arguments, dump, interleave, opaque, positions, prose
from ._content import token, tool_names

__all__ = ["COVERAGE", "NAME", "QUIRKS", "cases", "chunkings", "case_of", "make_wire",
           "messages"]

NAME = "anthropic-messages"
MODELS = ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-4-1-20250805",
          "claude-3-7-sonnet-20250219")
COUNTERS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
DELTA_ONLY = ("output_tokens_details", "server_tool_use")  # usage keys only message_delta sends

#: SDK union (tests/kit/test_union_coverage.py) -> {member not drawn: why}. Empty: all drawn.
COVERAGE: dict[str, dict[str, str]] = {
    "content blocks": {},
    "deltas": {},
    "events": {},
}
#: The real-server quirks this wire draws (names of wires/quirks.py), each tagged in
#: `Case.quirks` when a stream holds it; `cases(quirks=...)` draws only those allowed.
QUIRKS = frozenset({
    "pings",                    # `ping` between any two events, sometimes after message_stop
    "whole-input-at-start",     # a tool_use given whole at content_block_start, no deltas
    "prefilled-message-start",  # message_start already holds the content, then message_stop
    "empty-thinking-delta",     # a thinking_delta of ""
    "max-tokens-open-call",     # the last tool_use cut by max_tokens: no content_block_stop
})
CUT = "max-tokens-open-call"


@st.composite
def _text_blocks(draw: Callable) -> dict:
    block = {"type": "text", "text": draw(prose())}
    if draw(st.integers(0, 3)) == 3:  # cited text, from web search or documents
        block["citations"] = draw(citations())
    return block


@st.composite
def _thinking_blocks(draw: Callable) -> dict:
    if draw(st.booleans()):
        return {"type": "redacted_thinking", "data": draw(opaque())}
    return {"type": "thinking", "thinking": draw(prose()), "signature": draw(opaque())}


@st.composite
def _tool_uses(draw: Callable, programmatic: bool) -> dict:
    call = {"type": "tool_use", "id": draw(_TOOL_IDS), "name": draw(tool_names()),
            "input": draw(arguments())}
    caller = draw(st.integers(0, 3 if programmatic else 1))
    if caller == 1:
        call["caller"] = {"type": "direct"}
    elif caller > 1:  # called from code execution: given whole at its start
        call["caller"] = {"type": ("code_execution_20250825", "code_execution_20260120")[caller - 2],
                          "tool_id": draw(server_ids)}
    return call


_TOOL_IDS = token(BASE62, 22).map("toolu_01".__add__)


@built_once
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
def _streamed(draw: Callable, blocks: st.SearchStrategy, stream: tuple | None) -> tuple:
    """A pair `(block, its stream or None)`, drawn together so a deleted block takes its
    deltas with it: a failing case shrinks to fewer blocks, not only to fewer cuts."""
    block = draw(blocks)
    return block, None if stream is None else draw(_block_stream(block, *stream))


@st.composite
def _streamed_segment(draw: Callable, stream: tuple | None) -> list:
    """A server tool's blocks, each with its stream (or None)."""
    return [(block, None if stream is None else draw(_block_stream(block, *stream)))
            for block in draw(server_segments())]


@lru_cache(maxsize=64)
def _lists(min_calls: int, max_calls: int, stream: tuple | None, quirks: frozenset) -> tuple:
    """The list strategies of `_content`, built once per option set (building is costly).

    `stream` is `(max_cuts, quirks)` when the blocks' events are drawn too."""
    programmatic = "whole-input-at-start" in quirks
    return (
        st.lists(_streamed(_thinking_blocks(), stream), max_size=2),
        st.lists(_streamed(_text_blocks(), stream), max_size=3),
        st.lists(st.tuples(_streamed(_tool_uses(programmatic), stream), PLACES),
                 min_size=min_calls, max_size=max_calls, unique_by=lambda pair: pair[0][0]["id"]),
        st.lists(st.tuples(_streamed_segment(stream), PLACES), max_size=2),
    )


@built_once
@st.composite
def _content(draw: Callable, min_calls: int, max_calls: int, stream: tuple | None,
             quirks: frozenset = QUIRKS) -> tuple:
    check_options(min_calls, max_calls)
    thinking, texts, calls, servers = _lists(min_calls, max_calls, stream, quirks)
    placed = draw(calls) + [(pair, place) for segment, place in draw(servers)
                            for pair in segment]
    pairs = draw(thinking) + interleave(draw(texts), placed)
    message = draw(_envelope([block for block, _ in pairs]))
    return message, [stream for _, stream in pairs]


_STOP_SEQUENCES = st.one_of(st.sampled_from(("\n\nHuman:", "END", "</answer>")),
                            st.text(min_size=1, max_size=8))


@st.composite
def _envelope(draw: Callable, content: list) -> dict:
    if any(block["type"] == "tool_use" for block in content):
        stop_reason = "tool_use"
    elif any(block["type"] == "server_tool_use" for block in content):
        stop_reason = draw(st.sampled_from(("end_turn", "pause_turn")))
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


_CALL_KINDS = ("tool_use", "server_tool_use")


@st.composite
def _block_stream(draw: Callable, block: dict, max_cuts: int,
                  quirks: frozenset = QUIRKS) -> tuple[dict, list[dict]]:
    """The `content_block_start` block and the deltas that carry `block`."""
    kind = block["type"]
    deltas: list[dict] = []
    if kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": part}
                  for part in draw_pieces(draw, block["text"], max_cuts=max_cuts)]
        cited = block.get("citations", ())  # each citation before the text it supports
        places = sorted(draw(positions(len(deltas))) for _ in cited)
        for offset, (place, citation) in enumerate(zip(places, cited)):
            deltas.insert(place + offset,
                          {"type": "citations_delta", "citation": copy.deepcopy(citation)})
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        empty = "empty-thinking-delta" in quirks
        deltas = [{"type": "thinking_delta", "thinking": part}
                  for part in draw_pieces(draw, block["thinking"], max_cuts=max_cuts) if part or empty]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind in _CALL_KINDS and "tool_id" not in block.get("caller", {}) and not (
            "whole-input-at-start" in quirks and draw(st.booleans())):
        start = copy.deepcopy({**block, "input": {}})
        if block["input"]:
            fragments = draw_pieces(draw, dump(draw, block["input"]), max_cuts=max_cuts)
            if draw(st.booleans()):
                fragments.insert(0, "")
        else:
            fragments = draw(st.sampled_from(([""], ["{}"])))
        deltas = [{"type": "input_json_delta", "partial_json": part} for part in fragments]
    else:  # redacted_thinking, results, and a call given whole (made from code execution)
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


def _cuttable(message: dict, streams: list) -> bool:
    """Whether the last block is a `tool_use` streamed as `input_json_delta`s."""
    return bool(streams) and message["content"][-1]["type"] == "tool_use" and any(
        delta["type"] == "input_json_delta" for delta in streams[-1][1])


@st.composite
def _cut_by_max_tokens(draw: Callable, message: dict, streams: list) -> tuple[dict, list]:
    """`message` and `streams` with the last `tool_use`'s JSON stopped at a drawn point
    (a proper prefix of it, never a JSON object) and `stop_reason` `max_tokens`."""
    start, deltas = streams[-1]
    fragments = [delta["partial_json"] for delta in deltas]
    text = "".join(fragments)
    if not text:  # `{}` sent as "": the cut one sends its "{"
        fragments, text = ["{}"], "{}"
    cut = 1 + draw(positions(len(text) - 2))  # keeps the "{", never the last "}"
    kept, length = [], 0
    for fragment in fragments:
        if length >= cut:
            break
        kept.append(fragment[:cut - length])
        length += len(kept[-1])
    message = {**message, "stop_reason": "max_tokens", "stop_sequence": None,
               "content": [*message["content"][:-1],
                           {**message["content"][-1], "input": text[:cut]}]}
    deltas = [{"type": "input_json_delta", "partial_json": fragment} for fragment in kept]
    return message, [*streams[:-1], (start, deltas)]


@st.composite
def _events(draw: Callable, message: dict, streams: list, pings: bool,
            quirks: frozenset = QUIRKS, cut: bool = False) -> list[dict]:
    """The events that carry `message`; with `cut`, its last block is never stopped."""
    # a follow-up stream after programmatic calls: it ends in the calls it prefills
    if (message["content"] and message["content"][-1]["type"] == "tool_use" and not cut
            and "prefilled-message-start" in quirks
            and draw(st.integers(0, 15)) == 7):
        # a follow-up stream (after programmatic tool calls): the whole message at once
        return [{"type": "message_start", "message": copy.deepcopy(message)},
                {"type": "message_stop"}]
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
        if not (cut and index == len(streams) - 1):
            events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]}
    if "stop_details" in message:
        stop["stop_details"] = message["stop_details"]
    events.append({"type": "message_delta", "delta": stop, "usage": delta_usage})
    events.append({"type": "message_stop"})
    if pings and "pings" in quirks:  # anywhere after message_start, rarely after message_stop
        for _ in range(draw(st.integers(0, 3))):
            events.insert(1 + draw(positions(len(events) - 1)), {"type": "ping"})
    return events


def _allowed(quirks: Any) -> frozenset:
    """The quirks a generator may draw: all of this wire's (None), or those named
    (unknown names raise `InvalidArgument`, as in wires/quirks.py)."""
    return QUIRKS & allowed_quirks(NAME, quirks)


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8, pings: bool = True,
              quirks: Any = None) -> list:
    """The events of one stream that carries `message`, cut at drawn points."""
    allowed = _allowed(quirks)
    streams = [draw(_block_stream(block, max_cuts, allowed)) for block in message["content"]]
    return draw(_events(message, streams, pings, allowed))


def quirks_of(chunks: list) -> frozenset:
    """The quirks (names of `QUIRKS`) that `chunks` hold, read from the events alone."""
    found = set()
    open_calls = set()  # indexes of tool_use blocks started and not (yet) stopped
    if chunks and chunks[0].get("type") == "message_start" and chunks[0]["message"]["content"]:
        found.add("prefilled-message-start")
    for number, chunk in enumerate(chunks):
        kind = chunk.get("type")
        if kind == "ping":
            found.add("pings")
        elif kind == "content_block_start" and chunk["content_block"]["type"] in _CALL_KINDS:
            following = chunks[number + 1:number + 2]
            if following and following[0].get("type") == "content_block_stop":
                found.add("whole-input-at-start")
            open_calls.add(chunk["index"])
        elif kind == "content_block_stop":
            open_calls.discard(chunk["index"])
        elif (kind == "message_delta" and open_calls
              and chunk["delta"].get("stop_reason") == "max_tokens"):
            found.add(CUT)
        elif kind == "content_block_delta" and chunk["delta"] == {"type": "thinking_delta",
                                                                  "thinking": ""}:
            found.add("empty-thinking-delta")
    return frozenset(found)


def _calls(blocks: list) -> list[ExtractedCall]:
    """The client's calls: `tool_use` blocks (server tools ran on Anthropic's side); an
    `input` left as unfinished JSON text is an error call keeping that text."""
    return [call_from_object(b["name"], b["input"], b["id"]) for b in blocks
            if b["type"] == "tool_use"]


def _text(blocks: list) -> str:
    return "".join(b["text"] for b in blocks if b["type"] == "text")


def case_of(message: dict, chunks: list) -> Case:
    """The `Case` for `message` carried by `chunks` (what extraction must find)."""
    done_at = max(i for i, chunk in enumerate(chunks) if chunk.get("type") == "message_stop")
    blocks = message["content"]
    return Case(wire=NAME, message=message, chunks=chunks, done_at=done_at,
                calls=_calls(blocks), text=_text(blocks), response=copy.deepcopy(message),
                quirks=quirks_of(chunks))


def _partial(message: dict, prefix: list) -> dict:
    """The message the events of `prefix` assemble (`prefix` ends between blocks, or after
    the `message_delta` that follows a block cut by `max_tokens`)."""
    head = copy.deepcopy(prefix[0]["message"])
    started = sum(1 for chunk in prefix if chunk["type"] == "content_block_start")
    if started:
        head["content"] = copy.deepcopy(message["content"][:started])
    for chunk in prefix:
        if chunk["type"] == "message_delta":
            head.update(copy.deepcopy(chunk["delta"]))
            head["usage"].update(copy.deepcopy(chunk["usage"]))
    return head


@st.composite
def _error_case(draw: Callable, message: dict, chunks: list) -> Case:
    """`chunks` cut after message_start, a block, or message_delta, then an `error` event."""
    cuts = [number + 1 for number, chunk in enumerate(chunks)
            if chunk["type"] in ("message_start", "content_block_stop", "message_delta")]
    at = draw(st.sampled_from(cuts))
    form, error = draw(provider_errors.error_objects(NAME))
    tail, error = provider_errors.error_tail(NAME, form, error)
    prefix = chunks[:at]
    partial = _partial(message, prefix)
    chunks = prefix + tail
    return Case(wire=NAME, message=partial, chunks=chunks, done_at=len(chunks) - 1,
                calls=_calls(partial["content"]), text=_text(partial["content"]),
                response=None, quirks=quirks_of(chunks), error=error, error_at=at)


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          pings: bool = True, quirks: Any = None, errors: bool = False) -> Case:
    """Generated streams with the truth about them; with `errors`, each ends in an `error`
    event after a drawn prefix. `quirks`: None for all of `QUIRKS`, or the names allowed."""
    allowed = _allowed(quirks)
    cut = maybe(draw, allowed, CUT, odds=10)  # drawn first: a late draw is nearly always 0
    message, streams = draw(_content(min_calls, max_calls, (max_cuts, allowed), allowed))
    cut = cut and _cuttable(message, streams)
    if cut:
        message, streams = draw(_cut_by_max_tokens(message, streams))
    chunks = draw(_events(message, streams, pings, allowed, cut))
    if errors:
        return draw(_error_case(message, chunks))
    return case_of(message, chunks)


def make_wire(**options: Any) -> Wire:
    """The Anthropic Messages wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       NATIVE_OPTIONS | {"pings", "quirks", "errors"})

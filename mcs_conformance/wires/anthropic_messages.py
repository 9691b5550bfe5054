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
its `*_tool_result` (web search, web fetch, code execution, tool search),
and text with citations (`citations_delta`); programmatic calls carry a `caller`. They are
never in `Case.calls`. What only some requests get (thinking, a server tool's blocks, the
citations of a document, a search result or a web search, a stop at `max_tokens` or at a
stop sequence) is drawn only for a request asking it (`features`, wires/_features.py).
`COVERAGE` lists what the SDK unions hold that is not drawn; `QUIRKS` the real-server quirks drawn and tagged in `Case.quirks`.

The small decisions are read from `Tape`s (wires/_base.py): a stream's (the cut by
`max_tokens`, pings, usage) from one drawn first in `cases`, a message's (stop reason,
model, usage keys) from one drawn first in `_content`, and each block's (redacted, cited,
caller, JSON style, place among the texts) from its own, drawn first in the block's span so
that a deleted block takes them along. Ids and usage counters come from one drawn number
per message or block. What follows a decision is drawn whatever it decides.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import call_from_object, ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires import _provider_errors as provider_errors
from mcs_conformance.wires._anthropic_server import (CITATION_SLOTS, CITATION_TYPES, cited,
                                                     segment, SEGMENT_SLOTS, SERVER_TOOLS)
from mcs_conformance.wires._base import (built_once, Case, check_options, draw_pieces,
                                         NATIVE_OPTIONS, native_wire, Tape, tapes, Wire)
from mcs_conformance.wires._content import (BASE62, draw_arguments, draw_opaque, draw_prose,
                                            draw_tool_name, interleave, opaque, spell)
from mcs_conformance.wires._features import (ANTHROPIC_CITATION_FEATURES,
                                             ANTHROPIC_SERVER_TOOL_FEATURES, asked, asks,
                                             granted, quirks_asked)
from mcs_conformance.wires._quirks import allowed_quirks, maybe, OftenQuirks

__all__ = ["COVERAGE", "NAME", "QUIRKS", "cases", "chunkings", "case_of", "make_wire",
           "messages"]

NAME = "anthropic-messages"
MODELS = ("claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-4-1-20250805",
          "claude-3-7-sonnet-20250219")
COUNTERS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
DELTA_ONLY = ("output_tokens_details", "server_tool_use")  # usage keys only message_delta sends

#: SDK union (tests/kit/test_union_coverage.py) -> {member not drawn: why}. Empty: all drawn.
COVERAGE: dict[str, dict[str, str]] = {
    "content blocks": {"container_upload": "the docs show it only as an input block (a file "
                                           "the user uploads); no recording or report shows "
                                           "the server sending one"},
    "deltas": {},
    "events": {},
}
#: The real-server quirks this wire draws (names of wires/_quirks.py), each tagged in
#: `Case.quirks` when a stream holds it; `cases(quirks=...)` draws only those allowed.
QUIRKS = frozenset({
    "pings",                    # `ping` between any two events, sometimes after message_stop
    "whole-input-at-start",     # a tool_use given whole at content_block_start, no deltas
    "prefilled-message-start",  # message_start already holds the content, then message_stop
    "empty-thinking-delta",     # a thinking_delta of ""
    "max-tokens-open-call",     # the last tool_use cut by max_tokens: no content_block_stop
})
CUT = "max-tokens-open-call"


#: The small decisions of one message, one content block (with its events: a server tool's
#: segment is one block here), and one stream, each read from a `Tape` (wires/_base.py).
#: Each block draws its own tape first, so that a deleted block takes its decisions along.
_MESSAGE_TAPES = tapes(("stop-reason", "free-stop-sequence", "stop-sequence", "model",
                        "stop_details", "cache", "thinking-tokens", "server-tool-use"))
_BLOCK_TAPES = tapes(("place", "redacted", "cited", "caller", "whole-input-at-start",
                      "separators", "ascii", "leading-empty", "empty-input",
                      *(f"cite-{k}-at" for k in range(2)), *(f"cite-{k}-at+" for k in range(2)),
                      *CITATION_SLOTS, *SEGMENT_SLOTS))
PINGS = 3  # at most, in one stream
_STREAM_TAPES = tapes((CUT, "cut-at", "cut-at+", "prefilled-message-start", "start-output",
                       "delta-usage", "pings", *(f"ping-{n}-at" for n in range(PINGS)),
                       *(f"ping-{n}-at+" for n in range(PINGS)), "error-at"))
_STOP_SEQUENCES = ("\n\nHuman:", "END", "</answer>")
_FREE_STOP_SEQUENCES = st.text(min_size=1, max_size=8)
_SEPARATORS = ((", ", ": "), (",", ":"))
_ERRORS = provider_errors.error_objects(NAME)


def _server_tools(features: frozenset | None) -> tuple:
    """The server tools a request asking `features` declares."""
    return asked(sorted(SERVER_TOOLS), ANTHROPIC_SERVER_TOOL_FEATURES, features)


def _thinking_block(draw: Callable, tape: Tape, programmatic: bool,
                    features: frozenset | None) -> list[dict]:
    # Both drawn whatever the tape decides: shrinking "redacted" shifts no later draw.
    text, blob = draw_prose(draw), draw(opaque())
    if tape.flip("redacted"):
        return [{"type": "redacted_thinking", "data": blob}]
    return [{"type": "thinking", "thinking": text, "signature": blob}]


def _text_block(draw: Callable, tape: Tape, programmatic: bool,
                features: frozenset | None) -> list[dict]:
    block = {"type": "text", "text": draw_prose(draw)}
    kinds = asked(CITATION_TYPES, ANTHROPIC_CITATION_FEATURES, features)
    if tape.below("cited", 4) == 3 and kinds:  # cited text, from web search or documents
        block["citations"] = cited(tape, block["text"], kinds)
    return [block]


def _tool_use_block(draw: Callable, tape: Tape, programmatic: bool,
                    features: frozenset | None = None) -> list[dict]:
    number = draw_opaque(draw)  # the call's id, and the code execution's that made it
    call = {"type": "tool_use", "id": "toolu_01" + spell(number, BASE62, 22),
            "name": draw_tool_name(draw), "input": draw_arguments(draw)}
    caller = tape.below("caller", 4 if programmatic else 2)
    if caller == 1:
        call["caller"] = {"type": "direct"}
    elif caller > 1:  # called from code execution: given whole at its start
        call["caller"] = {"type": ("code_execution_20250825", "code_execution_20260120")[caller - 2],
                          "tool_id": "srvtoolu_01" + spell(number >> 96, BASE62, 24)}
    return [call]


def _server_block(draw: Callable, tape: Tape, programmatic: bool,
                  features: frozenset | None) -> list[dict]:
    return segment(draw, tape, _server_tools(features))


_KINDS = {"thinking": _thinking_block, "text": _text_block, "tool_use": _tool_use_block,
          "server": _server_block}


@built_once
@st.composite
def _placed(draw: Callable, kind: str, stream: tuple | None,
            programmatic: bool = False, features: frozenset | None = None) -> tuple[list, int]:
    """`(pairs, place)`: the blocks of one `kind` (a server tool's segment is several), each
    paired with its stream (or None), and their place among the text blocks. Drawn together,
    its tape first, so a deleted block takes its decisions and deltas with it: a failing
    case shrinks to fewer blocks, not only to fewer cuts."""
    tape = _BLOCK_TAPES(draw)
    blocks = _KINDS[kind](draw, tape, programmatic, features)
    pairs = [(block, None if stream is None else _draw_block_stream(draw, block, *stream, tape))
             for block in blocks]
    return pairs, tape.below("place", 4)


@built_once
@st.composite
def _tool_uses(draw: Callable, programmatic: bool) -> dict:
    """One `tool_use` block."""
    return _tool_use_block(draw, _BLOCK_TAPES(draw), programmatic)[0]


@lru_cache(maxsize=64)
def _lists(min_calls: int, max_calls: int, stream: tuple | None, quirks: frozenset,
           features: frozenset | None = None) -> tuple:
    """The list generators of `_content`, built once per option set (building is costly).

    `stream` is `(max_cuts, quirks)` when the blocks' events are drawn too; `features`
    what the request asks (no thinking block without thinking enabled, no server tool's
    blocks without the tool)."""
    programmatic = "whole-input-at-start" in quirks
    return (
        st.lists(_placed("thinking", stream, False, features),
                 max_size=2 if asks(features, "thinking") else 0),
        st.lists(_placed("text", stream, False, features), max_size=3),
        st.lists(_placed("tool_use", stream, programmatic, features), min_size=min_calls,
                 max_size=max_calls, unique_by=lambda placed: placed[0][0][0]["id"]),
        st.lists(_placed("server", stream, False, features),
                 max_size=2 if _server_tools(features) else 0),
    )


@built_once
@st.composite
def _content(draw: Callable, min_calls: int, max_calls: int, stream: tuple | None,
             quirks: frozenset = QUIRKS, features: frozenset | None = None) -> tuple:
    check_options(min_calls, max_calls)
    tape = _MESSAGE_TAPES(draw)
    thinking, texts, calls, servers = _lists(min_calls, max_calls, stream, quirks, features)
    placed = [(pair, place) for pairs, place in draw(calls) + draw(servers) for pair in pairs]
    thought = [pair for pairs, _ in draw(thinking) for pair in pairs]
    written = [pair for pairs, _ in draw(texts) for pair in pairs]
    pairs = thought + interleave(written, placed)
    message = _envelope(draw, tape, [block for block, _ in pairs], features)
    return message, [stream for _, stream in pairs]


def _usage(number: int, tape: Tape, has_thinking: bool) -> dict:
    """The usage of a message: its counters read from `number`, 13 bits each."""
    def count(k: int) -> int:
        return (number >> 13 * k) % 5001

    usage: dict[str, Any] = {"input_tokens": count(0)}
    if tape.flip("cache"):  # prompt caching era
        usage["cache_creation_input_tokens"] = count(1)
        usage["cache_read_input_tokens"] = count(2)
        usage["cache_creation"] = {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0}
        usage["service_tier"] = "standard"
    usage["output_tokens"] = 1 + count(3) % 5000
    if has_thinking and tape.flip("thinking-tokens"):
        usage["output_tokens_details"] = {"thinking_tokens": count(4)}
    if tape.flip("server-tool-use"):
        usage["server_tool_use"] = {"web_search_requests": 0, "web_fetch_requests": 0}
    return usage


_STOP_FEATURES = {"end_turn": "", "max_tokens": "max_tokens", "stop_sequence": "stop_sequences"}


def _envelope(draw: Callable, tape: Tape, content: list, features: frozenset | None) -> dict:
    """The message around `content`; its id and usage from one drawn number, and a free stop
    sequence drawn whether or not the message stops on one (only a request setting a limit
    or stop sequences stops at them)."""
    number, free = draw_opaque(draw), draw(_FREE_STOP_SEQUENCES)
    if any(block["type"] == "tool_use" for block in content):
        stop_reason = "tool_use"
    elif any(block["type"] == "server_tool_use" for block in content):
        stop_reason = tape.pick("stop-reason", ("end_turn", "pause_turn"))
    else:
        stop_reason = tape.pick("stop-reason", tuple(
            reason for reason, feature in _STOP_FEATURES.items()
            if not feature or asks(features, feature)))
    stop_sequence = None
    if stop_reason == "stop_sequence":
        stop_sequence = (free if tape.flip("free-stop-sequence")
                         else tape.pick("stop-sequence", _STOP_SEQUENCES))
    message = {
        "id": "msg_01" + spell(number >> 65, BASE62, 22),
        "type": "message",
        "role": "assistant",
        "model": tape.pick("model", MODELS),
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": stop_sequence,
    }
    if tape.flip("stop_details"):
        message["stop_details"] = None
    has_thinking = any(block["type"] == "thinking" for block in content)
    message["usage"] = _usage(number, tape, has_thinking)
    return message


def messages(*, min_calls: int = 0, max_calls: int = 3,
             features: frozenset | None = None) -> st.SearchStrategy[dict]:
    """Native `Message`s as `stream=false` returns them, with 0..n `tool_use` blocks;
    `features` as for `cases`."""
    features = granted(NAME, features)
    return _content(min_calls, max_calls, None, quirks_asked(QUIRKS, NAME, features),
                    features).map(lambda pair: pair[0])


_CALL_KINDS = ("tool_use", "server_tool_use")


def _draw_block_stream(draw: Callable, block: dict, max_cuts: int, quirks: frozenset,
                       tape: Tape) -> tuple[dict, list[dict]]:
    """The `content_block_start` block and the deltas that carry `block`, its decisions
    read from `tape`. Each kind draws its cut points once, whatever the tape decides."""
    kind = block["type"]
    deltas: list[dict] = []
    if kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": part}
                  for part in draw_pieces(draw, block["text"], max_cuts=max_cuts)]
        cites = block.get("citations", ())  # each citation before the text it supports
        places = sorted(tape.at(f"cite-{k}-at", len(deltas) + 1)
                        for k in range(len(cites)))
        for offset, (place, citation) in enumerate(zip(places, cites)):
            deltas.insert(place + offset,
                          {"type": "citations_delta", "citation": copy_json(citation)})
    elif kind == "thinking":
        start = {"type": "thinking", "thinking": "", "signature": ""}
        empty = "empty-thinking-delta" in quirks
        deltas = [{"type": "thinking_delta", "thinking": part}
                  for part in draw_pieces(draw, block["thinking"], max_cuts=max_cuts) if part or empty]
        # cuts seldom make an empty delta; a profile's stream gets one (the slot is a call's)
        if isinstance(quirks, OftenQuirks) and maybe(tape, quirks, "empty-thinking-delta",
                                                     slot="leading-empty"):
            deltas.insert(0, {"type": "thinking_delta", "thinking": ""})
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "redacted_thinking":
        # cut as a thinking text would be (and unused), so that shrinking "redacted" to a
        # thinking block shifts no later draw
        draw_pieces(draw, block["data"], max_cuts=max_cuts)
        start = copy_json(block)
    elif kind in _CALL_KINDS:
        text = json.dumps(block["input"], separators=tape.pick("separators", _SEPARATORS),
                          ensure_ascii=tape.flip("ascii"))
        fragments = draw_pieces(draw, text, max_cuts=max_cuts)  # cut whether sent whole or not
        if "tool_id" in block.get("caller", {}) or maybe(tape, quirks, "whole-input-at-start"):
            start = copy_json(block)  # made from code execution: given whole at its start
        else:
            start = copy_json({**block, "input": {}})
            if not block["input"]:
                fragments = list(tape.pick("empty-input", ([""], ["{}"])))
            elif tape.flip("leading-empty"):
                fragments.insert(0, "")
            deltas = [{"type": "input_json_delta", "partial_json": part} for part in fragments]
    else:  # results and uploads: given whole
        start = copy_json(block)
    return start, deltas


@st.composite
def _block_stream(draw: Callable, block: dict, max_cuts: int,
                  quirks: frozenset = QUIRKS) -> tuple[dict, list[dict]]:
    """The `content_block_start` block and the deltas that carry `block`."""
    return _draw_block_stream(draw, block, max_cuts, quirks, _BLOCK_TAPES(draw))


def _usages(final: dict, tape: Tape) -> tuple[dict, dict]:
    """The usage of `message_start` and of `message_delta`: the second replaces key by key."""
    start = {key: value for key, value in final.items() if key not in DELTA_ONLY}
    seed = tape.below("start-output", 256)  # a fraction of the final count, in 255ths
    start["output_tokens"] = 1 + (final["output_tokens"] - 1) * seed // 255
    delta = {"output_tokens": final["output_tokens"]}
    if any(key in final for key in DELTA_ONLY) or tape.flip("delta-usage"):
        keys = (*COUNTERS, "output_tokens", *DELTA_ONLY)
        delta = {key: final[key] for key in keys if key in final}
    return copy_json(start), copy_json(delta)


def _cuttable(message: dict, streams: list) -> bool:
    """Whether the last block is a `tool_use` streamed as `input_json_delta`s."""
    return bool(streams) and message["content"][-1]["type"] == "tool_use" and any(
        delta["type"] == "input_json_delta" for delta in streams[-1][1])


def _cut(message: dict, streams: list, tape: Tape) -> tuple[dict, list]:
    """`message` and `streams` with the last `tool_use`'s JSON stopped at a point read from
    `tape` (a proper prefix of it, never a JSON object) and `stop_reason` `max_tokens`."""
    start, deltas = streams[-1]
    fragments = [delta["partial_json"] for delta in deltas]
    text = "".join(fragments)
    if not text:  # `{}` sent as "": the cut one sends its "{"
        fragments, text = ["{}"], "{}"
    cut = 1 + tape.at("cut-at", len(text) - 1)  # keeps the "{", never the last "}"
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
def _cut_by_max_tokens(draw: Callable, message: dict, streams: list) -> tuple[dict, list]:
    """`_cut` at a drawn point."""
    return _cut(message, streams, _STREAM_TAPES(draw))


def _events_of(message: dict, streams: list, pings: bool, quirks: frozenset, cut: bool,
               tape: Tape) -> list[dict]:
    """The events that carry `message`; with `cut`, its last block is never stopped."""
    # a follow-up stream after programmatic calls: it ends in the calls it prefills
    # as recorded: a prefilled message holds only the tool_use blocks it ends in
    if (message["content"] and all(b["type"] == "tool_use" for b in message["content"]) and not cut
            and maybe(tape, quirks, "prefilled-message-start", 16)):
        # a follow-up stream (after programmatic tool calls): the whole message at once
        return [{"type": "message_start", "message": copy_json(message)},
                {"type": "message_stop"}]
    start_usage, delta_usage = _usages(message["usage"], tape)
    head = {key: copy_json(value) for key, value in message.items()
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
        for number in range(tape.below("pings", PINGS + 1)):
            events.insert(1 + tape.at(f"ping-{number}-at", len(events)), {"type": "ping"})
    return events


@st.composite
def _events(draw: Callable, message: dict, streams: list, pings: bool,
            quirks: frozenset = QUIRKS, cut: bool = False) -> list[dict]:
    """The events that carry `message` (`_events_of`, with a drawn tape)."""
    return _events_of(message, streams, pings, quirks, cut, _STREAM_TAPES(draw))


def _allowed(quirks: Any) -> frozenset:
    """The quirks a generator may draw: all of this wire's (None), or those named
    (unknown names raise `InvalidArgument`, as in wires/_quirks.py)."""
    return QUIRKS & allowed_quirks(NAME, quirks)


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8, pings: bool = True,
              quirks: Any = None, features: frozenset | None = None) -> list:
    """The events of one stream that carries `message`, cut at drawn points (a quirk tied
    to a feature `features` lacks is left out: the message holds the other tied shapes)."""
    allowed = quirks_asked(_allowed(quirks), NAME, granted(NAME, features))
    tape = _STREAM_TAPES(draw)
    streams = [_draw_block_stream(draw, block, max_cuts, allowed, _BLOCK_TAPES(draw))
               for block in message["content"]]
    return _events_of(message, streams, pings, allowed, False, tape)


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
                calls=_calls(blocks), text=_text(blocks), response=copy_json(message),
                quirks=quirks_of(chunks))


def _partial(message: dict, prefix: list) -> dict:
    """The message the events of `prefix` assemble (`prefix` ends between blocks, or after
    the `message_delta` that follows a block cut by `max_tokens`)."""
    head = copy_json(prefix[0]["message"])
    started = sum(1 for chunk in prefix if chunk["type"] == "content_block_start")
    if started:
        head["content"] = copy_json(message["content"][:started])
    for chunk in prefix:
        if chunk["type"] == "message_delta":
            head.update(copy_json(chunk["delta"]))
            head["usage"].update(copy_json(chunk["usage"]))
    return head


def _draw_error_case(draw: Callable, message: dict, chunks: list, tape: Tape) -> Case:
    """`chunks` cut after message_start, a block, or message_delta (read from `tape`), then
    an `error` event."""
    cuts = [number + 1 for number, chunk in enumerate(chunks)
            if chunk["type"] in ("message_start", "content_block_stop", "message_delta")]
    at = cuts[tape.at("error-at", len(cuts))]
    form, error = draw(_ERRORS)
    tail, error = provider_errors.error_tail(NAME, form, error)
    prefix = chunks[:at]
    partial = _partial(message, prefix)
    chunks = prefix + tail
    return Case(wire=NAME, message=partial, chunks=chunks, done_at=len(chunks) - 1,
                calls=_calls(partial["content"]), text=_text(partial["content"]),
                response=None, quirks=quirks_of(chunks), error=error, error_at=at)


@st.composite
def _error_case(draw: Callable, message: dict, chunks: list) -> Case:
    """`_draw_error_case` with a drawn tape."""
    return _draw_error_case(draw, message, chunks, _STREAM_TAPES(draw))


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          pings: bool = True, quirks: Any = None, errors: bool = False,
          features: frozenset | None = None) -> Case:
    """Generated streams with the truth about them; with `errors`, each ends in an `error`
    event after a drawn prefix. `quirks`: None for all of `QUIRKS`, or the names allowed;
    `features`: what the request can ask (wires/_features.py; None: every shape)."""
    features = granted(NAME, features)
    allowed = quirks_asked(_allowed(quirks), NAME, features)
    # Drawn first: Hypothesis fills what its first test cases do not draw at random with
    # the simplest choices, so a decision drawn late came out absent on some seeds.
    tape = _STREAM_TAPES(draw)
    message, streams = draw(_content(min_calls, max_calls, (max_cuts, allowed), allowed, features))
    cut = maybe(tape, allowed, CUT, odds=10) and _cuttable(message, streams)
    if cut:
        message, streams = _cut(message, streams, tape)
    chunks = _events_of(message, streams, pings, allowed, cut, tape)
    if errors:
        return _draw_error_case(draw, message, chunks, tape)
    return case_of(message, chunks)


def make_wire(**options: Any) -> Wire:
    """The Anthropic Messages wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       NATIVE_OPTIONS | {"pings", "quirks", "errors", "features"})

"""The OpenAI Responses wire: generated `Response` objects and the event streams that carry them.

A stream is `response.created` and `response.in_progress` (status in progress, no output),
then per output item `output_item.added`, its parts and deltas (`content_part.*` and
`output_text.*` or `refusal.*` for a message, `reasoning_summary_*` for reasoning,
`function_call_arguments.*` for a call), `output_item.done` with the whole item, and finally
`response.completed` carrying the whole `Response`. `sequence_number` is on every event, or,
as in early-2025 streams, on none; the 2025 `obfuscation` padding is drawn too.

Every client-run call kind is drawn (`_responses_items.py`), and the provider-run items
(hosted tools, MCP, tool search, compaction) with their own events; `response.queued`,
annotations, reasoning text and `response.incomplete` endings too. `COVERAGE` lists what the
SDK unions hold that is not drawn, with the reason; `QUIRKS` the real-server quirks drawn.
"""
from __future__ import annotations

import copy
import string
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from . import provider_errors
from .quirks import allowed_quirks
from ._base import NATIVE_OPTIONS, Case, Wire, built_once, check_options, draw_pieces, native_wire
from ._content import BASE62, BASE64, PLACES, interleave, opaque, prose, token
from ._responses_items import CALL_KINDS, STATUS_EVENTS, STREAMED, call_of, client_items
from ._responses_items import hosted_items

__all__ = ["COVERAGE", "NAME", "QUIRKS", "cases", "chunkings", "case_of", "make_wire",
           "messages", "quirks_of"]

NAME = "openai-responses"
HEX = string.digits + "abcdef"
MODELS = ("gpt-4o-2024-08-06", "gpt-4.1-2025-04-14", "gpt-5-2025-08-07", "o4-mini-2025-04-16",
          "gpt-5.1-codex-max")


_OUTPUTS = "the client's answer to a call: written into the history (history.output-kinds)"
#: SDK union (tests/kit/test_union_coverage.py) -> {member not drawn: why}.
COVERAGE: dict[str, dict[str, str]] = {
    "output items": {
        "function_call_output": _OUTPUTS,
        "custom_tool_call_output": _OUTPUTS,
        "computer_call_output": _OUTPUTS,
        "local_shell_call_output": _OUTPUTS,
        "apply_patch_call_output": _OUTPUTS,
        "mcp_approval_response": "the client's answer to an mcp_approval_request (history)",
        "program": "no documented stream or recording shows how it streams",
        "program_output": "no documented stream or recording shows how it streams",
        "additional_tools": "a tool list the server inserts; no documented stream shows it",
    },
    "content parts": {},
    "events": {
        "response.audio.delta": "audio output belongs to Chat Completions and Realtime",
        "response.audio.done": "audio output belongs to Chat Completions and Realtime",
        "response.audio.transcript.delta": "audio output belongs to Chat Completions and Realtime",
        "response.audio.transcript.done": "audio output belongs to Chat Completions and Realtime",
        "response.shell_call_output_content.delta":
            "hosted shell output: no recording shows its delta shape; output_item.done carries it",
        "response.shell_call_output_content.done":
            "hosted shell output: no recording shows its delta shape; output_item.done carries it",
    },
}
#: The real-server quirks this wire draws, tagged in `Case.quirks` (names of wires/quirks.py).
QUIRKS = frozenset({
    "no-sequence-number",         # early-2025 streams: no event has a sequence_number
    "call-ids-restart",           # Bedrock: call ids call_0, call_1, ... in every response
    "whole-arguments-one-delta",  # a call's whole arguments in one delta
})

_RS_IDS = token(HEX, 48).map("rs_".__add__)
_MSG_IDS = token(HEX, 48).map("msg_".__add__)


@st.composite
def _reasoning(draw: Callable) -> dict:
    item = {"id": draw(_RS_IDS), "type": "reasoning",
            "summary": [{"type": "summary_text", "text": text}
                        for text in draw(_SUMMARIES)]}
    if draw(st.booleans()):  # requested with include=["reasoning.encrypted_content"]
        item["encrypted_content"] = "gAAAAA" + draw(opaque(BASE64.replace("+/", "-_")))
    if draw(st.integers(0, 3)) == 3:  # open-weight models stream their raw reasoning text
        item["content"] = [{"type": "reasoning_text", "text": draw(prose())}]
    return item


@st.composite
def _part(draw: Callable, modern: bool) -> dict:
    if draw(st.integers(0, 4)) == 4:
        return {"type": "refusal", "refusal": draw(prose())}
    part = {"type": "output_text", "annotations": [], "text": draw(prose())}
    if draw(st.integers(0, 3)) == 3:  # cited (web or file search): annotation.added events
        part["annotations"] = draw(_ANNOTATIONS)
    if modern:
        part["logprobs"] = []
    return part


_ANNOTATIONS = st.lists(st.one_of(
    st.builds(lambda end: {"type": "url_citation", "start_index": 0, "end_index": end,
                           "url": "https://example.com/", "title": "Example Domain"},
              st.integers(0, 40)),
    st.just({"type": "file_citation", "file_id": "file-abc123", "filename": "notes.pdf",
             "index": 0}),
), min_size=1, max_size=2)
_SUMMARIES = st.lists(prose(), max_size=2)
_PARTS = {modern: st.lists(_part(modern), min_size=1, max_size=2) for modern in (False, True)}


@st.composite
def _message(draw: Callable, modern: bool) -> dict:
    item = {"id": draw(_MSG_IDS), "type": "message", "status": "completed",
            "content": draw(_PARTS[modern]), "role": "assistant"}
    if modern and draw(st.booleans()):
        item["phase"] = draw(st.sampled_from(("commentary", "final_answer")))
    return item


@built_once
@st.composite
def _usage(draw: Callable) -> dict:
    count = st.integers(0, 5000)
    given, made = draw(count), draw(count)
    return {"input_tokens": given,
            "input_tokens_details": {"cached_tokens": draw(count), "cache_write_tokens": 0},
            "output_tokens": made, "output_tokens_details": {"reasoning_tokens": draw(count)},
            "total_tokens": given + made}


def _tool(kind: str, name: str, described: bool) -> dict:
    if kind == "custom_tool_call":
        return {"type": "custom", "name": name, "description": "Does it." if described else None,
                "format": {"type": "text"}}
    return {"type": "function", "name": name, "description": "Does it." if described else None,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            "strict": False}


@st.composite
def _streamed(draw: Callable, items: st.SearchStrategy, stream: tuple | None) -> tuple:
    """A pair `(item, its events or None)`, drawn together so that deleting an item deletes
    its events too: a failing case shrinks to fewer items, not only to fewer cuts."""
    item = draw(items)
    return item, None if stream is None else draw(_item_events(item, *stream))


@st.composite
def _streamed_all(draw: Callable, items: st.SearchStrategy, stream: tuple | None) -> list:
    """`_streamed` for a drawn list of items (a hosted call and its output)."""
    return [(item, None if stream is None else draw(_item_events(item, *stream)))
            for item in draw(items)]


def _item_id(pair: tuple) -> str:
    return pair[0]["id"]


@lru_cache(maxsize=64)
def _lists(modern: bool, min_calls: int, max_calls: int, stream: tuple | None) -> tuple:
    """The list strategies of `_output`, built once per option set (building is costly).

    `stream` is `(max_cuts, padded, whole)` when the items' events are drawn too."""
    return (
        st.lists(_streamed(_reasoning(), stream), max_size=2, unique_by=_item_id),
        st.lists(_streamed(_message(modern), stream), max_size=2, unique_by=_item_id),
        st.lists(st.tuples(_streamed(client_items(), stream), PLACES), min_size=min_calls,
                 max_size=max_calls,
                 unique_by=(lambda p: p[0][0]["id"], lambda p: p[0][0]["call_id"])),
        st.lists(st.tuples(_streamed_all(hosted_items(), stream), PLACES), max_size=2,
                 unique_by=lambda p: p[0][0][0]["id"]),
    )


@built_once
@st.composite
def _output(draw: Callable, min_calls: int, max_calls: int, stream: tuple | None) -> tuple:
    """A `Response` and, when `stream` is given, its items' events."""
    check_options(min_calls, max_calls)
    modern = draw(st.booleans())  # late-2025 fields, or the early-2025 set
    reasoning, texts, calls, hosted = _lists(modern, min_calls, max_calls, stream)
    placed = draw(calls) + [(pair, place) for items, place in draw(hosted) for pair in items]
    pairs = draw(reasoning) + interleave(draw(texts), placed)
    response = draw(_envelope([item for item, _ in pairs], modern))
    return response, [events for _, events in pairs]


_INSTRUCTIONS = st.one_of(st.none(), prose())


@st.composite
def _envelope(draw: Callable, output: list, modern: bool) -> dict:
    created = draw(st.integers(1_700_000_000, 1_800_000_000))
    named = sorted({(item["type"], item["name"]) for item in output
                    if item["type"] in ("function_call", "custom_tool_call")})
    incomplete = draw(st.integers(0, 7)) == 7  # ended by max_output_tokens
    response = {
        "id": "resp_" + draw(token(HEX, 48)),
        "object": "response",
        "created_at": created,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": draw(_INSTRUCTIONS),
        "max_output_tokens": None,
        "model": draw(st.sampled_from(MODELS)),
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": draw(st.sampled_from((None, "low", "medium", "high"))),
                      "summary": draw(st.sampled_from((None, "auto", "detailed")))},
        "store": draw(st.booleans()),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [_tool(kind, name, draw(st.booleans())) for kind, name in named],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": draw(_usage()),
        "user": None,
        "metadata": {},
    }
    if modern:
        response.update(background=False, completed_at=created + draw(st.integers(0, 120)),
                        max_tool_calls=None, prompt_cache_key=None, safety_identifier=None,
                        service_tier="default", top_logprobs=0)
        response["text"]["verbosity"] = "medium"
    return response


def messages(*, min_calls: int = 0, max_calls: int = 3) -> st.SearchStrategy[dict]:
    """Native `Response` objects as `response.completed` carries them, with 0..n calls."""
    return _output(min_calls, max_calls, None).map(lambda pair: pair[0])


def _obfuscation(delta: str) -> str:
    """A 2025-style padding string: its length hides the length of the delta."""
    return BASE62[: 1 + (16 - len(delta)) % 16]


_PART_EVENTS = {"output_text": "response.output_text", "refusal": "response.refusal",
                "reasoning_text": "response.reasoning_text",
                "summary_text": "response.reasoning_summary_text"}


def _added(item: dict) -> dict:
    """The item as `output_item.added` announces it: streamed fields empty, in progress."""
    kind = item["type"]
    added = copy.deepcopy(item)
    if kind in STREAMED:
        added[STREAMED[kind][0]] = ""
    elif kind == "message":
        added["content"] = []
    elif kind == "reasoning":
        added["summary"] = []
        if "content" in added:
            added["content"] = []
    elif kind == "shell_call":
        added["action"]["commands"] = []
    if "status" in added:
        added["status"] = "in_progress"
    if kind == "mcp_call":
        added.update(output=None, error=None)
    elif kind == "image_generation_call":
        added["result"] = None
    return added


@st.composite
def _item_events(draw: Callable, item: dict, max_cuts: int, padded: bool,
                 whole: bool = False) -> list[dict]:
    """The events of one output item, `output_index` left out (set once the place is known).

    `whole`: a call's arguments come in one delta (the `whole-arguments-one-delta` quirk);
    otherwise arguments longer than `{}` are cut at least once, as OpenAI streams them."""
    kind, at = item["type"], {"item_id": item["id"]}

    def deltas(kind_: str, text: str, whole_: bool = False, **where: Any) -> list[dict]:
        out = []
        parts = [text] if whole_ else draw_pieces(draw, text, max_cuts=max_cuts)
        for part in parts:
            event = {"type": kind_, **at, **where, "delta": part}
            if kind_ == "response.output_text.delta":
                event["logprobs"] = []
            if padded:
                event["obfuscation"] = _obfuscation(part)
            out.append(event)
        return out

    added = _added(item)
    if kind == "reasoning" and "encrypted_content" in added and draw(st.booleans()):
        del added["encrypted_content"]
    events = [{"type": "response.output_item.added", "item": added}]
    statuses = STATUS_EVENTS.get(kind, ())
    if statuses:
        events.append({"type": f"response.{kind}.{statuses[0]}", **at})
    if kind in STREAMED:
        field, prefix = STREAMED[kind]
        value = item[field]
        if kind == "function_call" and not whole and len(value) > 2:
            pieces_ = draw_pieces(draw, value, max_cuts=max_cuts)
            if len([p for p in pieces_ if p]) < 2:
                middle = len(value) // 2
                pieces_ = [value[:middle], value[middle:]]
            events += [{"type": prefix + ".delta", **at, "delta": p,
                        **({"obfuscation": _obfuscation(p)} if padded else {})}
                       for p in pieces_]
        else:
            events += deltas(prefix + ".delta", value, whole and kind == "function_call")
        events.append({"type": prefix + ".done", **at, field: value})
    if kind == "shell_call":
        for number, command in enumerate(item["action"]["commands"]):
            first, *rest = draw_pieces(draw, command, max_cuts=max_cuts, allow_empty=False) or [""]
            here = {"command_index": number}
            events.append({"type": "response.shell_call_command.added", **here,
                           "command": first})
            events += [{"type": "response.shell_call_command.delta", **here, "delta": part}
                       for part in rest]
            events.append({"type": "response.shell_call_command.done", **here,
                           "command": command})
    if kind == "image_generation_call":
        events.append({"type": "response.image_generation_call.partial_image", **at,
                       "partial_image_index": 0, "partial_image_b64": item["result"]})
    if kind == "compaction":
        events.append({"type": "response.compaction.compacting", **at})
    for key, index_key in (("summary", "summary_index"), ("content", "content_index")):
        parts = item.get(key) if kind in ("message", "reasoning") else None
        for number, part in enumerate(parts or ()):
            where = {index_key: number}
            field = "refusal" if part["type"] == "refusal" else "text"
            prefix = _PART_EVENTS[part["type"]]
            holder = ("response.reasoning_summary_part" if key == "summary"
                      else "response.content_part")
            empty = {**copy.deepcopy(part), field: ""}
            if part["type"] == "output_text":
                empty["annotations"] = []
            events.append({"type": holder + ".added", **at, **where, "part": empty})
            events += deltas(prefix + ".delta", part[field], **where)
            for number_, annotation in enumerate(part.get("annotations") or ()):
                events.append({"type": "response.output_text.annotation.added", **at, **where,
                               "annotation_index": number_,
                               "annotation": copy.deepcopy(annotation)})
            done = {"type": prefix + ".done", **at, **where, field: part[field]}
            if part["type"] == "output_text":
                done["logprobs"] = []
            events += [done, {"type": holder + ".done", **at, **where,
                              "part": copy.deepcopy(part)}]
    if statuses:
        failed = item.get("status") == "failed" or item.get("error") is not None
        events += [{"type": f"response.{kind}.{status}", **at} for status in statuses[1:-1]]
        events.append({"type": f"response.{kind}.{'failed' if failed else statuses[-1]}", **at})
    events.append({"type": "response.output_item.done", "item": copy.deepcopy(item)})
    return events


def _in_progress(response: dict, status: str = "in_progress") -> dict:
    head = copy.deepcopy({key: value for key, value in response.items() if key != "output"})
    head.update(status=status, output=[], usage=None, incomplete_details=None)
    if "completed_at" in head:
        head["completed_at"] = None
    return head


def _events(message: dict, streams: list, numbered: bool, queued: bool = False) -> list[dict]:
    events = [{"type": "response.created",
               "response": _in_progress(message, "queued" if queued else "in_progress")}]
    if queued:  # background mode: queued before a worker takes it
        events.append({"type": "response.queued", "response": _in_progress(message, "queued")})
    events.append({"type": "response.in_progress", "response": _in_progress(message)})
    for index, stream in enumerate(streams):
        events += [{**event, "output_index": index} for event in stream]
    end = "response.incomplete" if message["status"] == "incomplete" else "response.completed"
    events.append({"type": end, "response": copy.deepcopy(message)})
    if numbered:
        _number(events)
    return events


def _number(events: list[dict], start: int = 0) -> None:
    for number, event in enumerate(events, start):
        event["sequence_number"] = number


def _allowed(quirks: Any) -> frozenset:
    """The quirks a generator may draw: all of this wire's (None), or those named
    (unknown names raise `InvalidArgument`, as in wires/quirks.py)."""
    return QUIRKS & allowed_quirks(NAME, quirks)


@built_once
@st.composite
def _options(draw: Callable, allowed: frozenset) -> tuple:
    """How a stream is written: (numbered, padded, whole arguments, queued, restarted ids)."""
    numbered = "no-sequence-number" not in allowed or draw(st.booleans())
    whole = "whole-arguments-one-delta" in allowed and draw(st.integers(0, 3)) == 3
    restart = "call-ids-restart" in allowed and draw(st.integers(0, 3)) == 3
    return numbered, draw(st.booleans()), whole, draw(st.integers(0, 7)) == 7, restart


def _restart_ids(message: dict, events: list) -> None:
    """Bedrock's call ids: `call_0`, `call_1`, ... in order, every response anew (in place)."""
    renamed: dict = {}
    for item in message["output"]:
        if item["type"] in CALL_KINDS:
            renamed.setdefault(item["call_id"], f"call_{len(renamed)}")

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            if value.get("call_id") in renamed:
                value["call_id"] = renamed[value["call_id"]]
            for inner in value.values():
                walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)
    walk(message)
    walk(events)


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8, quirks: Any = None) -> list:
    """The events of one stream that carries the `Response` `message`, cut at drawn points."""
    numbered, padded, whole, queued, _ = draw(_options(_allowed(quirks)))
    streams = [draw(_item_events(item, max_cuts, padded, whole)) for item in message["output"]]
    return _events(message, streams, numbered, queued)


def quirks_of(chunks: list) -> frozenset:
    """The quirks (names of `QUIRKS`) that `chunks` hold, read from the events alone."""
    found = set()
    if chunks and "sequence_number" not in chunks[0]:
        found.add("no-sequence-number")
    final = chunks[-1].get("response") if chunks else None
    output = final.get("output", []) if isinstance(final, dict) else []
    ids = [item["call_id"] for item in output if item.get("type") in CALL_KINDS]
    if ids and ids == [f"call_{number}" for number in range(len(ids))]:
        found.add("call-ids-restart")
    deltas: dict = {}
    for chunk in chunks:
        if chunk.get("type") == "response.function_call_arguments.delta":
            deltas.setdefault(chunk["item_id"], []).append(chunk["delta"])
    if any(len(parts) == 1 and len(parts[0]) > 2 for parts in deltas.values()):
        found.add("whole-arguments-one-delta")
    return frozenset(found)


def _truth(output: list) -> tuple[list, str]:
    """The calls extraction must find in `output` (client-run, not answered in it) and the
    visible text."""
    answered = {item.get("call_id") for item in output if item["type"].endswith("_output")}
    calls = [call_of(item) for item in output
             if item["type"] in CALL_KINDS and item["call_id"] not in answered
             and "environment" not in item]
    text = "".join(part["text"] for item in output if item["type"] == "message"
                   for part in item["content"] if part["type"] == "output_text")
    return calls, text


def case_of(message: dict, chunks: list) -> Case:
    """The `Case` for the `Response` `message` carried by `chunks`."""
    done_at = max(i for i, chunk in enumerate(chunks)
                  if chunk.get("type") in ("response.completed", "response.incomplete"))
    calls, text = _truth(message["output"])
    return Case(wire=NAME, message=message, chunks=chunks, done_at=done_at, calls=calls,
                text=text, response=copy.deepcopy(message), quirks=quirks_of(chunks))


@st.composite
def _error_case(draw: Callable, message: dict, chunks: list) -> Case:
    """`chunks` cut after `response.in_progress` or an item's `output_item.done`, then an
    `error` event and `response.failed`."""
    cuts = [number + 1 for number, chunk in enumerate(chunks)
            if chunk["type"] in ("response.in_progress", "response.output_item.done")]
    at = draw(st.sampled_from(cuts))
    prefix = chunks[:at]
    partial = _in_progress(message)
    partial["output"] = [copy.deepcopy(c["item"]) for c in prefix
                         if c["type"] == "response.output_item.done"]
    form, error = draw(provider_errors.error_objects(NAME))
    numbered = "sequence_number" in chunks[0]
    tail, error = provider_errors.error_tail(NAME, form, error, response=partial,
                                             sequence=at if numbered else None)
    chunks = prefix + tail
    calls, text = _truth(partial["output"])
    return Case(wire=NAME, message=partial, chunks=chunks, done_at=len(chunks) - 1,
                calls=calls, text=text, response=None, quirks=quirks_of(prefix),
                error=error, error_at=at)


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          quirks: Any = None, errors: bool = False) -> Case:
    """Generated streams with the truth about them; with `errors`, each ends in a provider
    error after a drawn prefix. `quirks`: None for all of `QUIRKS`, or the names allowed.

    `min_calls`/`max_calls` count the client-run calls of every kind."""
    numbered, padded, whole, queued, restart = draw(_options(_allowed(quirks)))
    message, streams = draw(_output(min_calls, max_calls, (max_cuts, padded, whole)))
    chunks = _events(message, streams, numbered, queued)
    if restart:
        _restart_ids(message, chunks)
    if errors:
        return draw(_error_case(message, chunks))
    return case_of(message, chunks)


def make_wire(**options: Any) -> Wire:
    """The OpenAI Responses wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options, NATIVE_OPTIONS | {"quirks", "errors"})

"""The OpenAI Responses wire: generated `Response` objects and the event streams that carry them.

A stream is `response.created` and `response.in_progress` (status in progress, no output),
then per output item `output_item.added`, its parts and deltas (`content_part.*` and
`output_text.*` or `refusal.*` for a message, `reasoning_summary_*` for reasoning,
`function_call_arguments.*` for a call), `output_item.done` with the whole item, and finally
`response.completed` carrying the whole `Response`. `sequence_number` is on every event, or,
as in early-2025 streams, on none; the 2025 `obfuscation` padding is drawn too.

Every client-run call kind is drawn (`_responses_items.py`), and the provider-run items
(hosted tools, MCP, tool search, compaction) with their own events; `response.queued`,
annotations, reasoning text and `response.incomplete` endings too, each only for a request
that elicits it (`features`, wires/_features.py). `COVERAGE` lists what the SDK unions hold
that is not drawn, with the reason; `QUIRKS` the real-server quirks drawn.

A stream's small decisions are read from one `Tape` drawn first, each output item's from its
own tape drawn first in the item's span; ids, times and usage from one drawn number.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_conformance.base import copy_json
from mcs_conformance.wires import _provider_errors as provider_errors
from mcs_conformance.wires._base import (built_once, Case, check_options, draw_pieces,
                                         NATIVE_OPTIONS, native_wire, Tape, tapes, Wire)
from mcs_conformance.wires._content import BASE62, BASE64, draw_opaque, interleave, positions, prose
from mcs_conformance.wires._features import asked, asks, MAX_TOKENS, RESPONSES_ANNOTATION_FEATURES
from mcs_conformance.wires._quirks import allowed_quirks, maybe
from mcs_conformance.wires._responses_items import (
    CALL_KINDS, call_of, command_pieces, distinct_custom_names, draw_client, draw_hosted,
    hosted_asked, ITEM_SLOTS, name_calls, name_items, PAD_CUT, STATUS_EVENTS, STREAMED)

__all__ = ["COVERAGE", "NAME", "QUIRKS", "cases", "chunkings", "case_of", "make_wire",
           "messages", "quirks_of"]

NAME = "openai-responses"
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
#: The real-server quirks this wire draws, tagged in `Case.quirks` (names of wires/_quirks.py).
QUIRKS = frozenset({
    "no-sequence-number",         # early-2025 streams: no event has a sequence_number
    "call-ids-restart",           # Bedrock: call ids call_0, call_1, ... in every response
    "whole-arguments-one-delta",  # a call's whole arguments in one delta
})

_URL64 = BASE64.replace("+/", "-_")
# A reasoning item's encrypted content: a fixed-size token, one digit a slot of its tape.
_SECRET = tuple(f"secret-{number}" for number in range(24))

# The small decisions of one stream, and of one output item (with the slots its kind reads
# in _responses_items). An item's tape is drawn first in its span, so deleting the item
# deletes its decisions too.
_STREAM_TAPES = tapes((
    "no-sequence-number", "padded", "whole-arguments-one-delta", "queued", "call-ids-restart",
    "modern", "incomplete", "instructions", "model", "effort", "summary", "store",
    *(f"described-{number}" for number in range(4)), "error-at"))
_ITEM_TAPES = tapes(ITEM_SLOTS + (
    "place", "encrypted", "reasoning-text", "added-without-encrypted", "phase", "phase-kind",
    *_SECRET,
    *(f"{slot}-{part}" for slot in ("refusal", "annotated", "annotations") for part in (0, 1)),
    *(f"{slot}-{part}-{note}" for slot in ("annotation", "end") for part in (0, 1)
      for note in (0, 1))))
# The summaries (two at most) and the raw reasoning text of a reasoning item, as one list:
# a text drawn apart whether sent or not would make the smallest reasoning item costlier
# to the shrinker than the other items.
_REASONING_TEXTS = st.lists(prose(), max_size=3)
_TEXTS = st.lists(prose(), min_size=1, max_size=2)
_PROSE = prose()
_FILE_CITATION = {"type": "file_citation", "file_id": "file-abc123", "filename": "notes.pdf",
                  "index": 0}


def _reasoning(draw: Callable, tape: Tape, features: frozenset | None) -> dict:
    """A reasoning item (its encrypted content 'populated by default', the API reference)."""
    texts = draw(_REASONING_TEXTS)
    # open-weight models stream their raw reasoning text: the last text drawn, now and then
    raw = texts[-1:] if texts and tape.below("reasoning-text", 5) >= 3 else []
    summaries = texts[:-1] if raw else texts[:2]
    if not asks(features, "reasoning_summary"):
        summaries = []
    item = {"id": "rs_", "type": "reasoning",
            "summary": [{"type": "summary_text", "text": text} for text in summaries]}
    if tape.flip("encrypted"):  # requested with include=["reasoning.encrypted_content"]
        item["encrypted_content"] = "gAAAAA" + "".join(
            _URL64[tape.below(slot, 64)] for slot in _SECRET)
    if raw:
        item["content"] = [{"type": "reasoning_text", "text": raw[0]}]
    return item


def _annotation(tape: Tape, part: int, note: int, kinds: tuple) -> dict:
    kind = "file_citation" if tape.flip(f"annotation-{part}-{note}") else "url_citation"
    if (kind if kind in kinds else kinds[0]) == "file_citation":
        return dict(_FILE_CITATION)
    return {"type": "url_citation", "start_index": 0,
            "end_index": tape.below(f"end-{part}-{note}", 41),
            "url": "https://example.com/", "title": "Example Domain"}


def _part(tape: Tape, number: int, text: str, modern: bool, kinds: tuple) -> dict:
    if tape.below(f"refusal-{number}", 5) == 4:
        return {"type": "refusal", "refusal": text}
    part: dict[str, Any] = {"type": "output_text", "annotations": [], "text": text}
    if tape.below(f"annotated-{number}", 4) == 3 and kinds:  # cited: annotation.added
        part["annotations"] = [_annotation(tape, number, note, kinds)
                               for note in range(1 + tape.flip(f"annotations-{number}"))]
    if modern:
        part["logprobs"] = []
    return part


def _message(draw: Callable, tape: Tape, modern: bool, features: frozenset | None) -> dict:
    kinds = asked(RESPONSES_ANNOTATION_FEATURES, RESPONSES_ANNOTATION_FEATURES, features)
    parts = [_part(tape, number, text, modern, kinds) for number, text in enumerate(draw(_TEXTS))]
    item = {"id": "msg_", "type": "message", "status": "completed", "content": parts,
            "role": "assistant"}
    if modern and tape.flip("phase"):
        item["phase"] = tape.pick("phase-kind", ("commentary", "final_answer"))
    return item


def _usage(opaque_: int) -> dict:
    given, made, cached, reasoning = ((opaque_ >> shift) % 5001 for shift in (0, 13, 26, 39))
    return {"input_tokens": given,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": made, "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": given + made}


def _tool(kind: str, name: str, described: bool) -> dict:
    if kind == "custom_tool_call":
        return {"type": "custom", "name": name, "description": "Does it." if described else None,
                "format": {"type": "text"}}
    return {"type": "function", "name": name, "description": "Does it." if described else None,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            "strict": False}


def _events_of(draw: Callable, item: dict, tape: Tape, stream: tuple | None) -> list | None:
    return None if stream is None else _item_events(draw, item, tape, *stream)


@built_once
@st.composite
def _reasoning_pair(draw: Callable, stream: tuple | None, features: frozenset | None) -> tuple:
    """A pair `(item, its events or None)`, drawn together so that deleting an item deletes
    its events too: a failing case shrinks to fewer items, not only to fewer cuts."""
    tape = _ITEM_TAPES(draw)
    item = _reasoning(draw, tape, features)
    return item, _events_of(draw, item, tape, stream)


@built_once
@st.composite
def _message_pair(draw: Callable, modern: bool, stream: tuple | None, features: Any) -> tuple:
    tape = _ITEM_TAPES(draw)
    item = _message(draw, tape, modern, features)
    return item, _events_of(draw, item, tape, stream)


@built_once
@st.composite
def _placed(draw: Callable, hosted: bool, stream: tuple | None, features: frozenset | None) -> tuple:
    """`([(item, events)], place)`: a client-run call, or the items of a hosted tool use
    (a call and its output), with the number of texts they come after."""
    tape = _ITEM_TAPES(draw)
    items = draw_hosted(draw, tape, features) if hosted else [draw_client(draw, tape, features)]
    pairs = [(item, _events_of(draw, item, tape, stream)) for item in items]
    if not hosted and stream is not None and items[0]["type"] not in STREAMED:
        draw(PAD_CUT)  # what a function call's events draw (see draw_client)
    return pairs, tape.below("place", 4)


@lru_cache(maxsize=64)
def _lists(modern: bool, min_calls: int, max_calls: int, stream: tuple | None,
           features: frozenset | None) -> tuple:
    """The list strategies of `_output`, built once per option set (building is costly).

    `stream` is `(max_cuts, padded, whole)` when the items' events are drawn too."""
    return (
        st.lists(_reasoning_pair(stream, features), max_size=2),
        st.lists(_message_pair(modern, stream, features), max_size=2),
        st.lists(_placed(False, stream, features), min_size=min_calls, max_size=max_calls),
        st.lists(_placed(True, stream, features), max_size=2 if hosted_asked(features) else 0),
    )


def _follow(item: dict, events: list | None) -> None:
    """Give `events` the ids `item` was given after they were drawn (in place)."""
    for event in events or ():
        if "item_id" in event:
            event["item_id"] = item["id"]
        if "item" in event:
            event["item"]["id"] = item["id"]
            if "call_id" in event["item"]:
                event["item"]["call_id"] = item["call_id"]


def _draw_output(draw: Callable, tape: Tape, opaque_: int, min_calls: int, max_calls: int,
                 stream: tuple | None, features: frozenset | None = None) -> tuple:
    """A `Response` and, when `stream` is given, its items' events (what `features` gets)."""
    check_options(min_calls, max_calls)
    modern = tape.flip("modern")  # late-2025 fields, or the early-2025 set
    reasoning, texts, calls, hosted = _lists(modern, min_calls, max_calls, stream, features)
    groups = draw(calls) + draw(hosted)
    for number, (group, _) in enumerate(groups):
        name_calls([item for item, _ in group], number, opaque_)
    distinct_custom_names([pair for group, _ in groups for pair in group])
    pairs = draw(reasoning) + interleave(draw(texts), [(pair, place) for group, place in groups
                                                       for pair in group])
    for number, (item, events) in enumerate(pairs, 1):
        name_items([item], number, opaque_)
        _follow(item, events)
    response = _envelope(draw, tape, opaque_, [item for item, _ in pairs], modern, features)
    return response, [events for _, events in pairs]


@built_once
@st.composite
def _output(draw: Callable, min_calls: int, max_calls: int, features: frozenset | None) -> dict:
    """A `Response` drawn on its own (no events)."""
    tape, opaque_ = _STREAM_TAPES(draw), draw_opaque(draw)
    return _draw_output(draw, tape, opaque_, min_calls, max_calls, None, features)[0]


_EFFORTS = (None, "low", "medium", "high")
_SUMMARY_MODES = (None, "auto", "detailed")


def _envelope(draw: Callable, tape: Tape, opaque_: int, output: list, modern: bool,
              features: frozenset | None) -> dict:
    created = 1_700_000_000 + (opaque_ >> 52) % 100_000_001
    named = sorted({(item["type"], item["name"]) for item in output
                    if item["type"] in ("function_call", "custom_tool_call")})
    incomplete = tape.below("incomplete", 8) == 7 and asks(features, "max_tokens")  # its limit
    summary = tape.pick("summary", _SUMMARY_MODES)  # echoes the request's reasoning.summary
    instructions = draw(_PROSE)  # drawn whether sent or not
    response = {
        "id": f"resp_{opaque_ % 16**48:048x}",
        "object": "response",
        "created_at": created,
        "status": "incomplete" if incomplete else "completed",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"} if incomplete else None,
        "instructions": instructions if tape.below("instructions", 4) else None,
        "max_output_tokens": MAX_TOKENS if incomplete else None,
        "model": tape.pick("model", MODELS),
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": tape.pick("effort", _EFFORTS),
                      "summary": summary if asks(features, "reasoning_summary") else None},
        "store": tape.flip("store"),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [_tool(kind, name, tape.flip(f"described-{number % 4}"))
                  for number, (kind, name) in enumerate(named)],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": _usage(opaque_),
        "user": None,
        "metadata": {},
    }
    if modern:
        response.update(background=False, completed_at=created + (opaque_ >> 80) % 121,
                        max_tool_calls=None, prompt_cache_key=None, safety_identifier=None,
                        service_tier="default", top_logprobs=0)
        response["text"]["verbosity"] = "medium"
    return response


def messages(*, min_calls: int = 0, max_calls: int = 3,
             features: frozenset | None = None) -> st.SearchStrategy[dict]:
    """Native `Response`s as `response.completed` carries them, 0..n calls (`features`: `cases`)."""
    return _output(min_calls, max_calls, features)




def _obfuscation(delta: str) -> str:
    """A 2025-style padding string: its length hides the length of the delta."""
    return BASE62[: 1 + (16 - len(delta)) % 16]


_PART_EVENTS = {"output_text": "response.output_text", "refusal": "response.refusal",
                "reasoning_text": "response.reasoning_text",
                "summary_text": "response.reasoning_summary_text"}


def _added(item: dict) -> dict:
    """The item as `output_item.added` announces it: streamed fields empty, in progress."""
    kind = item["type"]
    added = copy_json(item)
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


def _item_events(draw: Callable, item: dict, tape: Tape, max_cuts: int, padded: bool,
                 whole: bool = False) -> list[dict]:
    """The events of one output item, `output_index` left out (set once the place is known);
    `tape` is the item's (whether `output_item.added` leaves out its encrypted content).

    `whole`: a call's arguments come in one delta (the `whole-arguments-one-delta` quirk);
    otherwise arguments longer than `{}` are cut at least once, as OpenAI streams them."""
    kind, at = item["type"], {"item_id": item["id"]}

    def deltas(kind_: str, parts: list[str], **where: Any) -> list[dict]:
        out = []
        for part in parts:
            event = {"type": kind_, **at, **where, "delta": part}
            if kind_ == "response.output_text.delta":
                event["logprobs"] = []
            if padded:
                event["obfuscation"] = _obfuscation(part)
            out.append(event)
        return out

    added = _added(item)
    if kind == "reasoning" and "encrypted_content" in added and tape.flip(
            "added-without-encrypted"):
        del added["encrypted_content"]
    events = [{"type": "response.output_item.added", "item": added}]
    statuses = STATUS_EVENTS.get(kind, ())
    if statuses:
        events.append({"type": f"response.{kind}.{statuses[0]}", **at})
    if kind in STREAMED:
        field, prefix = STREAMED[kind]
        value = item[field]
        # Cut whether or not the quirk sends it whole: a decision shifts no later draw.
        pieces_ = draw_pieces(draw, value, max_cuts=max_cuts)
        if kind == "function_call" and whole:
            pieces_ = [value]
        elif kind == "function_call" and len(value) > 2 and len([p for p in pieces_ if p]) < 2:
            middle = len(value) // 2
            pieces_ = [value[:middle], value[middle:]]
        events += deltas(prefix + ".delta", pieces_)
        events.append({"type": prefix + ".done", **at, field: value})
    if kind == "shell_call":
        for number, command in enumerate(item["action"]["commands"]):
            first, *rest = command_pieces(tape, number, command) or [""]
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
            empty = {**copy_json(part), field: ""}
            if part["type"] == "output_text":
                empty["annotations"] = []
            events.append({"type": holder + ".added", **at, **where, "part": empty})
            events += deltas(prefix + ".delta",
                             draw_pieces(draw, part[field], max_cuts=max_cuts), **where)
            for number_, annotation in enumerate(part.get("annotations") or ()):
                events.append({"type": "response.output_text.annotation.added", **at, **where,
                               "annotation_index": number_,
                               "annotation": copy_json(annotation)})
            done = {"type": prefix + ".done", **at, **where, field: part[field]}
            if part["type"] == "output_text":
                done["logprobs"] = []
            events += [done, {"type": holder + ".done", **at, **where,
                              "part": copy_json(part)}]
    if statuses:
        failed = item.get("status") == "failed" or item.get("error") is not None
        events += [{"type": f"response.{kind}.{status}", **at} for status in statuses[1:-1]]
        events.append({"type": f"response.{kind}.{'failed' if failed else statuses[-1]}", **at})
    events.append({"type": "response.output_item.done", "item": copy_json(item)})
    return events


def _in_progress(response: dict, status: str = "in_progress") -> dict:
    head = copy_json({key: value for key, value in response.items() if key != "output"})
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
    events.append({"type": end, "response": copy_json(message)})
    if numbered:
        _number(events)
    return events


def _number(events: list[dict], start: int = 0) -> None:
    for number, event in enumerate(events, start):
        event["sequence_number"] = number


def _allowed(quirks: Any) -> frozenset:
    """The quirks a generator may draw: all of this wire's (None), or those named
    (unknown names raise `InvalidArgument`, as in wires/_quirks.py)."""
    return QUIRKS & allowed_quirks(NAME, quirks)


def _options(tape: Tape, allowed: frozenset, features: frozenset | None = None) -> tuple:
    """How a stream is written: (numbered, padded, whole arguments, queued (background mode
    only), restarted ids)."""
    numbered = not maybe(tape, allowed, "no-sequence-number")
    whole = maybe(tape, allowed, "whole-arguments-one-delta", 4)
    restart = maybe(tape, allowed, "call-ids-restart", 4)
    queued = tape.below("queued", 8) == 7 and asks(features, "background")
    return numbered, tape.flip("padded"), whole, queued, restart


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
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8, quirks: Any = None,
              features: frozenset | None = None) -> list:
    """The events of a stream carrying the `Response` `message`, cut (`features`: `cases`)."""
    numbered, padded, whole, queued, _ = _options(_STREAM_TAPES(draw), _allowed(quirks), features)
    streams = [_item_events(draw, item, _ITEM_TAPES(draw), max_cuts, padded, whole)
               for item in message["output"]]
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
                text=text, response=copy_json(message), quirks=quirks_of(chunks))


_ERRORS = provider_errors.error_objects(NAME)  # built once: not inside each draw


def _error_case(draw: Callable, tape: Tape, message: dict, chunks: list) -> Case:
    """`chunks` cut after `response.in_progress` or an item's `output_item.done`, then an
    `error` event and `response.failed`."""
    cuts = [number + 1 for number, chunk in enumerate(chunks)
            if chunk["type"] in ("response.in_progress", "response.output_item.done")]
    at = cuts[tape.below("error-at", len(cuts)) if len(cuts) <= 256
              else draw(positions(len(cuts) - 1))]
    prefix = chunks[:at]
    partial = _in_progress(message)
    partial["output"] = [copy_json(c["item"]) for c in prefix
                         if c["type"] == "response.output_item.done"]
    form, error = draw(_ERRORS)
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
          quirks: Any = None, errors: bool = False, features: frozenset | None = None) -> Case:
    """Generated streams with the truth about them; with `errors`, each ends in a provider
    error after a drawn prefix. `quirks`: None for all of `QUIRKS`, or the names allowed;
    `features`: what the request can ask (wires/_features.py; None: every shape).

    `min_calls`/`max_calls` count the client-run calls of every kind."""
    allowed = _allowed(quirks)
    # Drawn first: Hypothesis fills what its first test cases do not draw at random with
    # the simplest choices, so decided after the message a quirk came out absent on some seeds.
    tape = _STREAM_TAPES(draw)
    opaque_ = draw_opaque(draw)  # drawn whatever the tape decides
    numbered, padded, whole, queued, restart = _options(tape, allowed, features)
    message, streams = _draw_output(draw, tape, opaque_, min_calls, max_calls,
                                    (max_cuts, padded, whole), features)
    chunks = _events(message, streams, numbered, queued)
    if restart:
        _restart_ids(message, chunks)
    if errors:
        return _error_case(draw, tape, message, chunks)
    return case_of(message, chunks)


def make_wire(**options: Any) -> Wire:
    """The OpenAI Responses wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       NATIVE_OPTIONS | {"quirks", "errors", "features"})

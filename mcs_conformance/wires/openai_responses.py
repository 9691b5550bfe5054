"""The OpenAI Responses wire: generated `Response` objects and the event streams that carry them.

A stream is `response.created` and `response.in_progress` (status in progress, no output),
then per output item `output_item.added`, its parts and deltas (`content_part.*` and
`output_text.*` or `refusal.*` for a message, `reasoning_summary_*` for reasoning,
`function_call_arguments.*` for a call), `output_item.done` with the whole item, and finally
`response.completed` carrying the whole `Response`. `sequence_number` is on every event, or,
as in early-2025 streams, on none; the 2025 `obfuscation` padding is drawn too.
"""
from __future__ import annotations

import copy
import json
import string
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ._base import Case, Wire, check_options, native_wire, pieces
from ._content import BASE62, BASE64, PLACES, arguments, dump, interleave, opaque, prose, token
from ._content import tool_names

__all__ = ["NAME", "cases", "chunkings", "case_of", "make_wire", "messages"]

NAME = "openai-responses"
HEX = string.digits + "abcdef"
MODELS = ("gpt-4o-2024-08-06", "gpt-4.1-2025-04-14", "gpt-5-2025-08-07", "o4-mini-2025-04-16",
          "gpt-5.1-codex-max")


_RS_IDS = token(HEX, 48).map("rs_".__add__)
_MSG_IDS = token(HEX, 48).map("msg_".__add__)
_FC_IDS = token(HEX, 48).map("fc_".__add__)
_CALL_IDS = token(BASE62, 24).map("call_".__add__)


@st.composite
def _reasoning(draw: Callable) -> dict:
    item = {"id": draw(_RS_IDS), "type": "reasoning",
            "summary": [{"type": "summary_text", "text": text}
                        for text in draw(_SUMMARIES)]}
    if draw(st.booleans()):  # requested with include=["reasoning.encrypted_content"]
        item["encrypted_content"] = "gAAAAA" + draw(opaque(BASE64.replace("+/", "-_")))
    return item


@st.composite
def _part(draw: Callable, modern: bool) -> dict:
    if draw(st.integers(0, 4)) == 4:
        return {"type": "refusal", "refusal": draw(prose())}
    part = {"type": "output_text", "annotations": [], "text": draw(prose())}
    if modern:
        part["logprobs"] = []
    return part


_SUMMARIES = st.lists(prose(), max_size=2)
_PARTS = {modern: st.lists(_part(modern), min_size=1, max_size=2) for modern in (False, True)}


@st.composite
def _message(draw: Callable, modern: bool) -> dict:
    item = {"id": draw(_MSG_IDS), "type": "message", "status": "completed",
            "content": draw(_PARTS[modern]), "role": "assistant"}
    if modern and draw(st.booleans()):
        item["phase"] = draw(st.sampled_from(("commentary", "final_answer")))
    return item


@st.composite
def _function_call(draw: Callable) -> dict:
    return {"id": draw(_FC_IDS), "type": "function_call", "status": "completed",
            "arguments": dump(draw, draw(arguments())), "call_id": draw(_CALL_IDS),
            "name": draw(tool_names())}


@st.composite
def _usage(draw: Callable) -> dict:
    count = st.integers(0, 5000)
    given, made = draw(count), draw(count)
    return {"input_tokens": given, "input_tokens_details": {"cached_tokens": draw(count)},
            "output_tokens": made, "output_tokens_details": {"reasoning_tokens": draw(count)},
            "total_tokens": given + made}


def _tool(name: str, described: bool) -> dict:
    return {"type": "function", "name": name, "description": "Does it." if described else None,
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
            "strict": False}


@st.composite
def _streamed(draw: Callable, items: st.SearchStrategy, stream: tuple | None) -> tuple:
    """A pair `(item, its events or None)`, drawn together so that deleting an item deletes
    its events too: a failing case shrinks to fewer items, not only to fewer cuts."""
    item = draw(items)
    return item, None if stream is None else draw(_item_events(item, *stream))


def _item_id(pair: tuple) -> str:
    return pair[0]["id"]


@lru_cache(maxsize=64)
def _lists(modern: bool, min_calls: int, max_calls: int, stream: tuple | None) -> tuple:
    """The list strategies of `_output`, built once per option set (building is costly)."""
    return (
        st.lists(_streamed(_reasoning(), stream), max_size=2, unique_by=_item_id),
        st.lists(_streamed(_message(modern), stream), max_size=2, unique_by=_item_id),
        st.lists(st.tuples(_streamed(_function_call(), stream), PLACES), min_size=min_calls,
                 max_size=max_calls,
                 unique_by=(lambda p: p[0][0]["id"], lambda p: p[0][0]["call_id"])),
    )


@st.composite
def _output(draw: Callable, min_calls: int, max_calls: int, stream: tuple | None) -> tuple:
    """A `Response` and, when `stream` (max_cuts, padded) is given, its items' events."""
    check_options(min_calls, max_calls)
    modern = draw(st.booleans())  # late-2025 fields, or the early-2025 set
    reasoning, texts, calls = _lists(modern, min_calls, max_calls, stream)
    pairs = draw(reasoning) + interleave(draw(texts), draw(calls))
    response = draw(_envelope([item for item, _ in pairs], modern))
    return response, [events for _, events in pairs]


_INSTRUCTIONS = st.one_of(st.none(), prose())


@st.composite
def _envelope(draw: Callable, output: list, modern: bool) -> dict:
    created = draw(st.integers(1_700_000_000, 1_800_000_000))
    names = sorted({item["name"] for item in output if item["type"] == "function_call"})
    response = {
        "id": "resp_" + draw(token(HEX, 48)),
        "object": "response",
        "created_at": created,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
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
        "tools": [_tool(name, draw(st.booleans())) for name in names],
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


@st.composite
def _item_events(draw: Callable, item: dict, max_cuts: int, padded: bool) -> list[dict]:
    """The events of one output item, `output_index` left out (set once the place is known)."""
    kind, at = item["type"], {"item_id": item["id"]}

    def deltas(kind_: str, text: str, **where: Any) -> list[dict]:
        out = []
        for part in draw(pieces(text, max_cuts=max_cuts)):
            event = {"type": kind_, **at, **where, "delta": part}
            if kind_ == "response.output_text.delta":
                event["logprobs"] = []
            if padded:
                event["obfuscation"] = _obfuscation(part)
            out.append(event)
        return out

    if kind == "function_call":
        added = {**copy.deepcopy(item), "status": "in_progress", "arguments": ""}
    elif kind == "message":
        added = {**copy.deepcopy(item), "status": "in_progress", "content": []}
    else:
        added = {**copy.deepcopy(item), "summary": []}
        if "encrypted_content" in added and draw(st.booleans()):
            del added["encrypted_content"]
    events = [{"type": "response.output_item.added", "item": added}]
    if kind == "function_call":
        events += deltas("response.function_call_arguments.delta", item["arguments"])
        events.append({"type": "response.function_call_arguments.done", **at,
                       "arguments": item["arguments"]})
    elif kind == "message":
        for number, part in enumerate(item["content"]):
            where = {"content_index": number}
            field = "text" if part["type"] == "output_text" else "refusal"
            empty = {**copy.deepcopy(part), field: ""}
            events.append({"type": "response.content_part.added", **at, **where, "part": empty})
            if field == "text":
                events += deltas("response.output_text.delta", part["text"], **where)
                events.append({"type": "response.output_text.done", **at, **where,
                               "text": part["text"], "logprobs": []})
            else:
                events += deltas("response.refusal.delta", part["refusal"], **where)
                events.append({"type": "response.refusal.done", **at, **where,
                               "refusal": part["refusal"]})
            events.append({"type": "response.content_part.done", **at, **where,
                           "part": copy.deepcopy(part)})
    else:
        for number, part in enumerate(item["summary"]):
            where = {"summary_index": number}
            events.append({"type": "response.reasoning_summary_part.added", **at, **where,
                           "part": {"type": "summary_text", "text": ""}})
            events += deltas("response.reasoning_summary_text.delta", part["text"], **where)
            events.append({"type": "response.reasoning_summary_text.done", **at, **where,
                           "text": part["text"]})
            events.append({"type": "response.reasoning_summary_part.done", **at, **where,
                           "part": copy.deepcopy(part)})
    events.append({"type": "response.output_item.done", "item": copy.deepcopy(item)})
    return events


def _in_progress(response: dict) -> dict:
    head = copy.deepcopy({key: value for key, value in response.items() if key != "output"})
    head.update(status="in_progress", output=[], usage=None)
    if "completed_at" in head:
        head["completed_at"] = None
    return head


def _events(message: dict, streams: list, numbered: bool) -> list[dict]:
    events = [{"type": "response.created", "response": _in_progress(message)},
              {"type": "response.in_progress", "response": _in_progress(message)}]
    for index, stream in enumerate(streams):
        events += [{**event, "output_index": index} for event in stream]
    events.append({"type": "response.completed", "response": copy.deepcopy(message)})
    if numbered:
        for number, event in enumerate(events):
            event["sequence_number"] = number
    return events


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8) -> list:
    """The events of one stream that carries the `Response` `message`, cut at drawn points."""
    numbered, padded = draw(st.booleans()), draw(st.booleans())
    streams = [draw(_item_events(item, max_cuts, padded)) for item in message["output"]]
    return _events(message, streams, numbered)


def case_of(message: dict, chunks: list) -> Case:
    """The `Case` for the `Response` `message` carried by `chunks`."""
    done_at = max(i for i, chunk in enumerate(chunks) if chunk.get("type") == "response.completed")
    output = message["output"]
    return Case(
        wire=NAME,
        message=message,
        chunks=chunks,
        done_at=done_at,
        calls=[ExtractedCall(item["name"], json.loads(item["arguments"]), item["call_id"])
               for item in output if item["type"] == "function_call"],
        text="".join(part["text"] for item in output if item["type"] == "message"
                     for part in item["content"] if part["type"] == "output_text"),
        response=copy.deepcopy(message),
    )


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8) -> Case:
    """Generated streams with the truth about them."""
    numbered, padded = draw(st.booleans()), draw(st.booleans())
    message, streams = draw(_output(min_calls, max_calls, (max_cuts, padded)))
    return case_of(message, _events(message, streams, numbered))


def make_wire(**options: Any) -> Wire:
    """The OpenAI Responses wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options)

"""The OpenAI Responses wire: schemas, the official SDK as oracle, shrinking, the reference."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis.errors import InvalidArgument
from openai._types import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from mcs_conformance.base import schema
from mcs_conformance.wires import get_wire
from mcs_conformance.wires import openai_responses as wire
from mcs_reference import LLMStreamBuffer, OpenAIResponsesStrategy

MANY = settings(max_examples=100, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SOME = settings(MANY, max_examples=40)
SHRINK = settings(MANY, max_examples=2000, derandomize=True,
                  phases=[Phase.generate, Phase.shrink])  # no explain phase: it costs 10x
EVENT = TypeAdapter(ResponseStreamEvent)
CHUNK, MESSAGE, REQUEST = (f"openai-responses.{kind}.json"
                           for kind in ("chunk", "message", "request"))
DELTAS = {"response.output_text.delta", "response.refusal.delta",
          "response.reasoning_summary_text.delta", "response.function_call_arguments.delta"}


# --- the wire object ---------------------------------------------------------------------------

def test_make_wire_describes_the_format():
    made = get_wire("openai-responses")
    assert made.name == "openai-responses"
    assert made.strategy_names == frozenset({"openai-responses"})
    assert made.native is True
    for name in (made.chunk_schema, made.message_schema, made.request_schema):
        schema.validator(name)


def test_unknown_option_is_refused():
    with pytest.raises(InvalidArgument, match="pings"):
        wire.make_wire(pings=False)
    with pytest.raises(InvalidArgument):
        find(wire.messages(min_calls=2, max_calls=0), lambda m: True, settings=SHRINK)


@SOME
@given(get_wire("openai-responses", min_calls=2, max_calls=2).cases())
def test_options_become_defaults(case):
    assert len(case.calls) == 2


# --- schemas -----------------------------------------------------------------------------------

@MANY
@given(wire.cases())
def test_every_response_and_event_fits_its_schema(case):
    assert schema.errors(case.message, MESSAGE) == []
    for chunk in case.chunks:
        assert schema.errors(chunk, CHUNK) == [], chunk


@MANY
@given(wire.messages(min_calls=1))
def test_the_output_echoed_as_input_fits_the_request_schema(response):
    for item in response["output"]:
        assert schema.errors(item, REQUEST) == [], item
    for item in response["output"]:
        if item["type"] == "function_call":
            result = {"type": "function_call_output", "call_id": item["call_id"], "output": "42"}
            assert schema.errors(result, REQUEST) == []


@pytest.mark.parametrize("damage", [
    lambda r: r["output"].append({"type": "function_call", "id": "fc_1", "name": "f",
                                  "arguments": "{}"}),
    lambda r: r["output"].append({"type": "function_call", "call_id": "c", "name": "f",
                                  "arguments": {}}),
    lambda r: r["output"].append({"type": "message", "id": "msg_1", "role": "assistant",
                                  "status": "completed", "content": [{"type": "output_text"}]}),
    lambda r: r["output"].append({"type": "reasoning", "id": "rs_1"}),
    lambda r: r["output"].append({"type": "function", "call_id": "c", "name": "f",
                                  "arguments": "{}"}),
    lambda r: r.update(object="chat.completion"),
    lambda r: r.pop("output"),
    lambda r: r.update(usage={"input_tokens": 1}),
])
def test_the_response_schema_catches_real_mistakes(damage):
    response = find(wire.messages(), lambda r: True, settings=SHRINK)
    assert schema.errors(response, MESSAGE) == []
    damage(response)
    assert schema.errors(response, MESSAGE) != []


@pytest.mark.parametrize("chunk", [
    {"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": "a"},
    {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0},
    {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0,
     "arguments": {}},
    {"type": "response.output_item.added", "output_index": 0,
     "item": {"type": "function_call", "id": "fc_1", "name": "f", "arguments": ""}},
    {"type": "response.completed", "response": {"id": "r", "object": "response"}},
    {"type": "response.output_text.delta", "item_id": "m", "output_index": 0,
     "content_index": 0, "delta": "a", "sequence_number": -1},
    {"type": "response.output_text.delta_chunk", "item_id": "m", "output_index": 0},
    {"type": "error"},
])
def test_the_chunk_schema_catches_real_mistakes(chunk):
    assert schema.errors(chunk, CHUNK) != []


@pytest.mark.parametrize("item", [
    {"type": "function_call", "name": "f", "arguments": "{}"},
    {"type": "function_call", "call_id": "c", "name": "f", "arguments": {"a": 1}},
    {"type": "function_call_output", "output": "42"},
    {"type": "function_call_output", "call_id": "c"},
    {"type": "reasoning", "summary": []},
    {"role": "assistant", "content": [{"type": "input_text", "text": "hi"}]},
    {"role": "user", "content": [{"type": "output_text", "text": "hi"}]},
    {"role": "tool", "content": "42"},
    {"type": "tool_result", "call_id": "c", "output": "42"},
])
def test_the_request_schema_catches_real_mistakes(item):
    assert schema.errors(item, REQUEST) != []


def test_the_request_schema_accepts_an_easy_message():
    assert schema.errors({"role": "user", "content": "hi"}, REQUEST) == []


# --- what the chunker promises -----------------------------------------------------------------

@MANY
@given(wire.cases())
def test_cases_keep_their_promises(case):
    check_stream_shape(case)
    check_items_rebuild_from_their_events(case)
    check_case_truth(case)
    check_one_kind_per_tool_name(case)


def check_one_kind_per_tool_name(case):
    """A request declares each tool name once (providers refuse two tools of one name), so
    no answer calls a function tool and a custom tool of the same name."""
    kinds: dict = {}
    for item in case.message["output"]:
        if item["type"] in ("function_call", "custom_tool_call"):
            assert kinds.setdefault(item["name"], item["type"]) == item["type"], item["name"]


def check_stream_shape(case):
    chunks, response = case.chunks, case.message
    assert case.quirks == wire.quirks_of(chunks) and case.quirks <= wire.QUIRKS
    heads = [c["type"] for c in chunks[:3]]
    queued = heads[1] == "response.queued"
    assert heads[:3 if queued else 2] == ["response.created", *(["response.queued"] * queued),
                                          "response.in_progress"]
    for head in chunks[:3 if queued else 2]:
        assert head["response"]["status"] in ("in_progress", "queued")
        assert head["response"]["output"] == [] and head["response"]["usage"] is None
        assert head["response"]["id"] == response["id"]
    assert case.done_at == len(chunks) - 1
    end = "response.incomplete" if response["status"] == "incomplete" else "response.completed"
    assert chunks[-1] == {"type": end, "response": response,
                          **({"sequence_number": len(chunks) - 1}
                             if "sequence_number" in chunks[0] else {})}
    numbers = [c.get("sequence_number") for c in chunks]
    assert numbers in ([None] * len(chunks), list(range(len(chunks))))


STREAMED = {"function_call": "arguments", "custom_tool_call": "input", "mcp_call": "arguments",
            "code_interpreter_call": "code"}


def check_items_rebuild_from_their_events(case):
    output = case.message["output"]
    added = [c for c in case.chunks if c["type"] == "response.output_item.added"]
    done = [c for c in case.chunks if c["type"] == "response.output_item.done"]
    assert [c["output_index"] for c in added] == list(range(len(output)))
    assert [c["item"] for c in done] == output
    for index, item in enumerate(output):
        events = [c for c in case.chunks if c.get("output_index") == index]
        assert events[0]["type"] == "response.output_item.added"
        assert events[-1]["type"] == "response.output_item.done"
        assert all(e.get("item_id", item["id"]) == item["id"] for e in events[1:-1])
        start = events[0]["item"]
        deltas = [e for e in events if e["type"].endswith(".delta")]
        kind = item["type"]
        if kind in STREAMED:
            field = STREAMED[kind]
            assert start[field] == "" and start["id"] == item["id"]
            assert "".join(d["delta"] for d in deltas) == item[field]
        elif kind == "message":
            assert start == {**item, "status": "in_progress", "content": []}
            for number, part in enumerate(item["content"]):
                field = "text" if part["type"] == "output_text" else "refusal"
                text = "".join(d["delta"] for d in deltas if d["content_index"] == number)
                assert text == part[field]
                if field == "text":
                    notes = [e["annotation"] for e in events
                             if e["type"] == "response.output_text.annotation.added"
                             and e["content_index"] == number]
                    assert notes == part["annotations"]
        elif kind == "reasoning":
            assert {**start, "summary": item["summary"],
                    **({"content": item["content"]} if "content" in item else {})} == {
                key: value for key, value in item.items()
                if key != "encrypted_content" or key in start}
            for number, part in enumerate(item["summary"]):
                text = "".join(d["delta"] for d in deltas if d.get("summary_index") == number)
                assert text == part["text"]
            for number, part in enumerate(item.get("content", ())):
                text = "".join(d["delta"] for d in deltas if d.get("content_index") == number)
                assert text == part["text"]
        elif kind == "shell_call":
            for number, command in enumerate(item["action"]["commands"]):
                own = [e for e in events if e.get("command_index") == number]
                assert own[0]["command"] + "".join(e["delta"] for e in own[1:-1]) == command
                assert own[-1]["command"] == command


def check_case_truth(case):
    output = case.message["output"]
    answered = {i.get("call_id") for i in output if i["type"].endswith("_output")}
    client = [i for i in output if i["type"] in CLIENT_KINDS and i["call_id"] not in answered
              and "environment" not in i]
    assert [(c.kind, c.id) for c in case.calls] == [(CLIENT_KINDS[i["type"]], i["call_id"])
                                                    for i in client]
    for call, item in zip(case.calls, client):
        if call.kind == "function":
            assert (call.name, call.arguments, call.input) == (
                item["name"], json.loads(item["arguments"]), None)
        elif call.kind == "custom":
            assert (call.name, call.arguments, call.input) == (item["name"], {}, item["input"])
        else:  # built-in tools: named by their kind, their payload as arguments
            assert call.name == call.kind and call.input is None
            assert all(call.arguments[key] == item[key] for key in call.arguments)
    assert all(c.error is None for c in case.calls)
    assert len({c.id for c in case.calls}) == len(case.calls)
    ids = [i["id"] for i in output]
    assert len(set(ids)) == len(ids)
    assert case.text == "".join(p["text"] for i in output if i["type"] == "message"
                                for p in i["content"] if p["type"] == "output_text")
    assert {t["name"] for t in case.message["tools"]} == {
        c.name for c in case.calls if c.kind in ("function", "custom")}
    assert case.response == case.message


CLIENT_KINDS = {"function_call": "function", "custom_tool_call": "custom",
                "computer_call": "computer", "local_shell_call": "local_shell",
                "shell_call": "shell", "apply_patch_call": "apply_patch"}


# --- the official SDK as oracle ----------------------------------------------------------------

def _for_sdk(value, number):
    """The installed SDK requires a `sequence_number` on every event, which early-2025
    servers did not send (the `no-sequence-number` quirk); nothing else is patched."""
    if "type" in value and "sequence_number" not in value:
        value = dict(value, sequence_number=number)
    return value


def assert_contains(got, want, where="response"):
    """Every field of `want` is in `got` with the same value (the SDK adds `parsed`, ...)."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        for key, value in want.items():
            assert key in got, f"{where}.{key}"
            assert_contains(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for number, (a, b) in enumerate(zip(got, want)):
            assert_contains(a, b, f"{where}[{number}]")
    else:
        assert got == want, where


def sdk_replay(chunks):
    """Feed every event to the SDK's stream state; return the events it emits."""
    state = ResponseStreamState(input_tools=omit, text_format=omit)
    emitted = []
    for number, chunk in enumerate(chunks):
        emitted += state.handle_event(EVENT.validate_python(_for_sdk(chunk, number)))
    return emitted


def assert_sdk_agrees(case):
    Response.model_validate(case.message)
    emitted = sdk_replay(case.chunks)
    assert emitted[-1].type in ("response.completed", "response.incomplete")
    assert_contains(emitted[-1].response.model_dump(mode="json"), case.message)
    last = {}  # the SDK's own snapshot after each delta, rebuilt from the deltas alone
    for event in emitted:
        if event.type == "response.output_text.delta":
            last[(event.output_index, event.content_index)] = event.snapshot
        elif event.type == "response.function_call_arguments.delta":
            last[(event.output_index, None)] = event.snapshot
    output = case.message["output"]
    for (index, part), snapshot in last.items():
        item = output[index]
        assert snapshot == (item["arguments"] if part is None else item["content"][part]["text"])
    expected = {(i, None) for i, item in enumerate(output) if item["type"] == "function_call"
                and item["arguments"]}
    assert {key for key in last if key[1] is None} == expected


@MANY
@given(wire.cases())
def test_the_sdk_accepts_and_rebuilds_every_stream(case):
    assert_sdk_agrees(case)


@SOME
@given(wire.messages().flatmap(lambda m: wire.chunkings(m).map(lambda c: wire.case_of(m, c))))
def test_chunkings_of_a_given_response(case):
    check_stream_shape(case)
    check_items_rebuild_from_their_events(case)
    assert_sdk_agrees(case)


# --- shrinking ---------------------------------------------------------------------------------

def test_a_case_with_a_call_shrinks_to_a_tiny_stream():
    case = find(wire.cases(), lambda c: len(c.calls) >= 1, settings=SHRINK)
    assert [item["type"] for item in case.message["output"]] == ["function_call"]
    assert case.calls[0].arguments == {}
    assert len(case.chunks) <= 7  # created, in_progress, added, a delta, done, item done, completed


def _is_cut(chunk):
    return (chunk["type"] == "response.function_call_arguments.delta" and chunk["delta"]
            and not chunk["delta"].endswith("}"))


def test_a_cut_argument_shrinks_to_two_pieces():
    case = find(wire.cases(), lambda c: any(_is_cut(e) for e in c.chunks), settings=SHRINK)
    index = next(e["output_index"] for e in case.chunks if _is_cut(e))
    fragments = [c["delta"] for c in case.chunks
                 if c["type"] == "response.function_call_arguments.delta"
                 and c["output_index"] == index]
    assert len([f for f in fragments if f]) == 2
    assert len(case.message["output"][index]["arguments"]) <= 16
    # the shrinker usually deletes every other item; sometimes one empty call survives
    others = [item for i, item in enumerate(case.message["output"]) if i != index]
    assert len(others) <= 1 and all(item.get("arguments", "{}") == "{}" for item in others)


# --- the reference reassembles every case ------------------------------------------------------


@MANY
@given(wire.cases())
def test_the_reference_builds_the_response_before_it_completes(case):
    strategy = OpenAIResponsesStrategy()
    buffer = LLMStreamBuffer([strategy])
    for chunk in copy.deepcopy(case.chunks[:case.done_at]):
        buffer.add(chunk)
    assert not buffer.is_done()
    assert strategy.extract(buffer.as_dict()) == case.calls
    assert strategy.content_text(buffer.as_dict()) == case.text


# --- quirks and provider errors ----------------------------------------------------------------

@SOME
@given(wire.cases(quirks=frozenset()))
def test_no_quirks_validates_against_the_sdk_unpatched(case):
    assert case.quirks == frozenset() == wire.quirks_of(case.chunks)
    Response.model_validate(case.message)
    for chunk in case.chunks:
        EVENT.validate_python(chunk)


@SOME
@given(wire.cases(quirks={"no-sequence-number"}))
def test_named_quirks_are_the_only_ones_drawn(case):
    assert case.quirks <= {"no-sequence-number"}


@MANY
@given(wire.cases(errors=True))
def test_error_cases_end_in_an_error_the_reference_raises(case):
    from mcs_reference.errors import ProviderError
    assert case.chunks[case.error_at]["type"] == "error"
    assert case.chunks[-1]["type"] == "response.failed"
    assert all(c["type"] not in ("response.completed", "response.incomplete")
               for c in case.chunks)
    for chunk in case.chunks:
        assert schema.errors(chunk, CHUNK) == [], chunk
    strategy = OpenAIResponsesStrategy()
    buffer = LLMStreamBuffer([strategy])
    for chunk in copy.deepcopy(case.chunks[:case.error_at]):
        buffer.add(chunk)
    with pytest.raises(ProviderError) as raised:
        buffer.add(copy.deepcopy(case.chunks[case.error_at]))
    assert case.error["message"] in str(raised.value)
    assert not buffer.is_done()
    assert strategy.extract(buffer.as_dict()) == case.calls

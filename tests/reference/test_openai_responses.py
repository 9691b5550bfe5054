"""OpenAIResponsesStrategy: the quirks of real Responses streams, and reassembly properties.

The streams here are written for these tests, modelled on the documented event format (see
QUIRKS.md, "OpenAI Responses"). The official SDK is the oracle of shape (`Response`,
`ResponseStreamEvent`, request input items) and its `ResponseStreamState` a second
accumulator to compare with.
"""
from __future__ import annotations

import copy
import json
import re
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import Response, ResponseInputParam, ResponseStreamEvent

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.errors import (
    EventOutOfOrder,
    MalformedChunk,
    ProviderError,
    StreamError,
)
from mcs_reference.openai_responses import OpenAIResponsesStrategy
from mcs_reference.sse import decode_body

STRATEGY = OpenAIResponsesStrategy()
EVENTS = pydantic.TypeAdapter(ResponseStreamEvent)
INPUT_ITEMS = pydantic.TypeAdapter(ResponseInputParam)


# ---------------------------------------------------------------------------------------
# Small hand-written streams
# ---------------------------------------------------------------------------------------

def response(status: str = "in_progress", output: list | None = None, rid: str = "resp_1"):
    return {
        "id": rid, "object": "response", "created_at": 1700000000, "status": status,
        "error": None, "incomplete_details": None, "instructions": None, "metadata": {},
        "model": "gpt-test", "output": [] if output is None else output,
        "parallel_tool_calls": True, "temperature": 1.0, "tool_choice": "auto", "tools": [],
        "top_p": 1.0, "usage": None,
    }


def lifecycle(kind: str, status: str = "in_progress", output: list | None = None, **kw):
    return {"type": f"response.{kind}", "response": response(status, output, **kw)}


def call_item(name="get_capital", call_id="call_1", item_id="fc_1", arguments="",
              status="in_progress"):
    return {"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
            "arguments": arguments, "status": status}


def call_events(index: int, fragments: list[str], *, name="get_capital", call_id="call_1",
                item_id="fc_1", done=True) -> list[dict]:
    """A function call streamed like OpenAI's server does it."""
    whole = "".join(fragments)
    events = [{"type": "response.output_item.added", "output_index": index,
               "item": call_item(name, call_id, item_id)}]
    events += [{"type": "response.function_call_arguments.delta", "item_id": item_id,
                "output_index": index, "delta": piece} for piece in fragments]
    if done:
        events += [
            {"type": "response.function_call_arguments.done", "item_id": item_id,
             "output_index": index, "arguments": whole},
            {"type": "response.output_item.done", "output_index": index,
             "item": call_item(name, call_id, item_id, whole, "completed")},
        ]
    return events


def message_item(texts: list[str], item_id="msg_1", status="completed", **extra):
    parts = [{"type": "output_text", "annotations": [], "logprobs": [], "text": t} for t in texts]
    return {"type": "message", "id": item_id, "role": "assistant", "status": status,
            "content": parts, **extra}


def message_events(index: int, fragments: list[str], *, item_id="msg_1", **extra) -> list[dict]:
    whole = "".join(fragments)
    empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    events = [
        {"type": "response.output_item.added", "output_index": index,
         "item": {**message_item([], item_id, "in_progress"), **extra}},
        {"type": "response.content_part.added", "item_id": item_id, "output_index": index,
         "content_index": 0, "part": empty},
    ]
    events += [{"type": "response.output_text.delta", "item_id": item_id, "output_index": index,
                "content_index": 0, "delta": piece, "logprobs": []} for piece in fragments]
    events += [
        {"type": "response.output_text.done", "item_id": item_id, "output_index": index,
         "content_index": 0, "text": whole, "logprobs": []},
        {"type": "response.content_part.done", "item_id": item_id, "output_index": index,
         "content_index": 0, "part": dict(empty, text=whole)},
        {"type": "response.output_item.done", "output_index": index,
         "item": {**message_item([whole], item_id), **extra}},
    ]
    return events


def numbered(events: list[dict]) -> list[dict]:
    return [dict(event, sequence_number=n) for n, event in enumerate(events)]


def feed(events, strategy=STRATEGY) -> LLMStreamBuffer:
    buffer = LLMStreamBuffer(strategy)
    for event in events:
        buffer.add(event)
    return buffer


def capital_stream(*, sequence=True) -> list[dict]:
    items = [call_item(arguments='{"country":"France"}', status="completed")]
    events = [lifecycle("created"), lifecycle("in_progress"),
              *call_events(0, ['{"', "country", '":"', "France", '"}']),
              lifecycle("completed", "completed", items)]
    return numbered(events) if sequence else events


# ---------------------------------------------------------------------------------------
# Quirks (QUIRKS.md, OpenAI Responses)
# ---------------------------------------------------------------------------------------

def test_function_call_grows_from_empty_arguments_by_output_index():
    events = capital_stream()
    buffer = LLMStreamBuffer(STRATEGY)
    seen = []
    for event in events[:-3]:  # up to the last argument delta
        buffer.add(event)
        output = buffer.as_dict()["output"]
        seen.append(output[0]["arguments"] if output else None)
    assert seen == [None, None, "", '{"', '{"country', '{"country":"', '{"country":"France',
                    '{"country":"France"}']
    assert buffer.forming_name() == "get_capital"
    assert not buffer.is_done()


def test_every_done_event_carries_the_whole_arguments_and_the_last_one_wins():
    events = capital_stream()
    buffer = feed(events)
    assert buffer.is_done()
    assert buffer.as_dict() == events[-1]["response"]
    assert STRATEGY.extract(buffer.as_dict()) == [
        ExtractedCall("get_capital", {"country": "France"}, "call_1")]


def test_done_value_replaces_what_the_deltas_built():
    events = capital_stream()[:-1]
    events[-2] = dict(events[-2], arguments='{"country":"Spain"}')  # arguments.done
    acc = STRATEGY.new_accumulator()
    for event in events[:-1]:
        STRATEGY.accumulate(acc, event)
    assert STRATEGY.as_message(acc)["output"][0]["arguments"] == '{"country":"Spain"}'


def test_output_item_done_replaces_the_whole_item():
    events = capital_stream()[:-1]
    final = call_item(arguments='{"country":"Peru"}', status="completed")
    events[-1] = dict(events[-1], item=final)
    assert feed(events).as_dict()["output"] == [final]


def test_built_from_deltas_equals_completed_response():
    events = capital_stream()
    before = feed(events[:-1]).as_dict()
    completed = events[-1]["response"]
    assert before["output"] == completed["output"]
    assert before["status"] == "in_progress" and before["id"] == completed["id"]


def test_early_2025_streams_without_sequence_number():
    with_numbers = feed(capital_stream(sequence=True)).as_dict()
    without = capital_stream(sequence=False)
    assert all("sequence_number" not in event for event in without)
    assert feed(without).as_dict() == with_numbers


def test_bedrock_data_line_before_event_line_and_sorted_keys():
    events = [lifecycle("created"),
              *call_events(0, ["{}"], name="first_tool", call_id="call_0", item_id="fc_a"),
              lifecycle("completed", "completed",
                        [call_item("first_tool", "call_0", "fc_a", "{}", "completed")])]
    body = "".join(
        f"data: {json.dumps(event, sort_keys=True)}\nevent: {event['type']}\n\n"
        for event in numbered(events)
    ).encode()
    chunks = decode_body(body)
    assert [chunk["type"] for chunk in chunks] == [event["type"] for event in events]
    buffer = feed(chunks)
    assert buffer.is_done()
    assert STRATEGY.extract(buffer.as_dict()) == [ExtractedCall("first_tool", {}, "call_0")]


def test_bedrock_reused_call_ids_pair_each_result_with_its_own_turn():
    turns = []
    for turn, tool in enumerate(["first_tool", "second_tool"]):
        item = call_item(tool, "call_0", f"fc_{turn}", "{}", "completed")
        events = [lifecycle("created", rid=f"resp_{turn}"),
                  *call_events(0, ["{}"], name=tool, call_id="call_0", item_id=f"fc_{turn}"),
                  lifecycle("completed", "completed", [item], rid=f"resp_{turn}")]
        message = feed(events).as_dict()
        records = [ToolCallRecord(tool, {}, result=f"result {turn}", tool_call_id="call_0")]
        turns.append(STRATEGY.result_messages(message, records))
    assert [history[-1] for history in turns] == [
        {"type": "function_call_output", "call_id": "call_0", "output": "result 0"},
        {"type": "function_call_output", "call_id": "call_0", "output": "result 1"},
    ]
    assert [history[0]["name"] for history in turns] == ["first_tool", "second_tool"]


def test_a_second_response_in_one_buffer_is_refused():
    events = [lifecycle("created", rid="resp_1"), lifecycle("in_progress", rid="resp_2")]
    with pytest.raises(EventOutOfOrder, match="resp_2"):
        feed(events)


def test_reasoning_with_encrypted_content_and_summary_deltas():
    rid = "rs_1"
    summary = "**Plan**\n\nAdd 12 and 7."
    reasoning = {"type": "reasoning", "id": rid, "encrypted_content": "gAAA-opaque", "summary": []}
    done = dict(reasoning, summary=[{"type": "summary_text", "text": summary}])
    events = [
        lifecycle("created"),
        {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
        {"type": "response.reasoning_summary_part.added", "item_id": rid, "output_index": 0,
         "summary_index": 0, "part": {"type": "summary_text", "text": ""}},
        *[{"type": "response.reasoning_summary_text.delta", "item_id": rid, "output_index": 0,
           "summary_index": 0, "delta": piece, "obfuscation": "x"}
          for piece in ["**Pl", "an**\n", "\nAdd 12", " and 7."]],
    ]
    buffer = feed(events)
    assert buffer.as_dict()["output"] == [done]
    assert buffer.pop_display() == ""  # reasoning is not visible text
    rest = [
        {"type": "response.reasoning_summary_text.done", "item_id": rid, "output_index": 0,
         "summary_index": 0, "text": summary},
        {"type": "response.reasoning_summary_part.done", "item_id": rid, "output_index": 0,
         "summary_index": 0, "part": {"type": "summary_text", "text": summary}},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        *call_events(1, ['{"a":', "12}"], name="calculator"),
    ]
    for event in rest:
        buffer.add(event)
    message = buffer.as_dict()
    assert message["output"][0] == done
    history = STRATEGY.result_messages(message, [ToolCallRecord("calculator", {"a": 12}, 19,
                                                                tool_call_id="call_1")])
    assert history[0]["encrypted_content"] == "gAAA-opaque"
    assert history[0]["summary"] == [{"type": "summary_text", "text": summary}]
    assert history[1]["type"] == "function_call" and history[1]["arguments"] == '{"a":12}'
    assert history[2] == {"type": "function_call_output", "call_id": "call_1", "output": "19"}
    INPUT_ITEMS.validate_python(history)


def test_reasoning_text_deltas_as_content_parts():
    rid = "rs_2"
    events = [
        lifecycle("created"),
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "reasoning", "id": rid, "status": "in_progress", "content": [],
                  "summary": []}},
        {"type": "response.content_part.added", "item_id": rid, "output_index": 0,
         "content_index": 0, "part": {"type": "reasoning_text", "text": ""}},
        *[{"type": "response.reasoning_text.delta", "item_id": rid, "output_index": 0,
           "content_index": 0, "delta": piece} for piece in ["The", " user", " asks."]],
    ]
    buffer = feed(events)
    item = buffer.as_dict()["output"][0]
    assert item["content"] == [{"type": "reasoning_text", "text": "The user asks."}]
    assert item["summary"] == []
    assert STRATEGY.content_text(buffer.as_dict()) == ""


def test_commentary_message_before_a_call_keeps_its_phase():
    text = ["I\u2019ll check", " the capital of \u201cPotatoLand.\u201d"]
    events = [lifecycle("created"), *message_events(0, text, phase="commentary"),
              *call_events(1, ['{"country":"PotatoLand"}'])]
    buffer = LLMStreamBuffer(STRATEGY)
    display = "".join(buffer.add(event) for event in events)
    message = buffer.as_dict()
    assert message["output"][0]["phase"] == "commentary"
    assert display == "".join(text) == STRATEGY.content_text(message)
    assert STRATEGY.forming_name(message) == buffer.forming_name() == "get_capital"
    assert [c.arguments for c in STRATEGY.extract(message)] == [{"country": "PotatoLand"}]


def test_forming_name_is_the_last_call_even_when_a_message_follows_it():
    events = [lifecycle("created"), *message_events(0, ["Let me look."]),
              *call_events(1, ['{"country":"Chad"}'], name="first"),
              *call_events(2, ["{}"], name="second", call_id="call_2", item_id="fc_2"),
              *message_events(3, ["Both calls made."], item_id="msg_2")]
    names = []
    buffer = LLMStreamBuffer(STRATEGY)
    for event in events:
        buffer.add(event)
        names.append(buffer.forming_name())
        assert names[-1] == STRATEGY.forming_name(buffer.as_dict())
    first = 1 + len(message_events(0, ["Let me look."]))  # the first call's output_item.added
    second = first + len(call_events(1, ['{"country":"Chad"}']))
    assert events[first]["item"]["name"] == "first" and events[second]["item"]["name"] == "second"
    assert names[:first] == [None] * first
    assert set(names[first:second]) == {"first"}
    assert set(names[second:]) == {"second"}
    end = lifecycle("completed", "completed", buffer.as_dict()["output"])
    buffer.add(end)
    assert buffer.forming_name() == STRATEGY.forming_name(buffer.as_dict()) == "second"


def test_error_event_then_response_failed():
    quota = {"type": "insufficient_quota", "code": "insufficient_quota",
             "message": "You exceeded your current quota.", "param": None}
    failed = response("failed")
    failed["error"] = {"code": "insufficient_quota", "message": "You exceeded your current quota."}
    events = numbered([lifecycle("created"), lifecycle("in_progress"),
                       {"type": "error", "error": quota},
                       {"type": "response.failed", "response": failed}])
    buffer = LLMStreamBuffer(STRATEGY)
    buffer.add(events[0])
    buffer.add(events[1])
    with pytest.raises(ProviderError) as caught:
        buffer.add(events[2])
    assert caught.value.error == quota and caught.value.index == 2
    assert "insufficient_quota" in str(caught.value)
    assert buffer.as_dict() == dict(events[1]["response"])  # what was assembled before
    with pytest.raises(ProviderError) as caught:
        buffer.add(events[3])
    assert caught.value.error == failed["error"] and caught.value.index == 3
    assert buffer.as_dict()["status"] == "failed"
    assert not buffer.is_done()


def test_documented_error_event_with_top_level_code():
    event = {"type": "error", "code": "server_error", "message": "boom", "param": None,
             "sequence_number": 4}
    assert STRATEGY.recognizes(event)
    with pytest.raises(ProviderError) as caught:
        feed([lifecycle("created"), event])
    assert caught.value.error == event and "boom" in str(caught.value)


def test_failed_response_keeps_the_items_streamed_before_it():
    events = [lifecycle("created"), *call_events(0, ['{"country":'], done=False)]
    failed = response("failed")
    failed["error"] = {"code": "server_error", "message": "The model crashed"}
    buffer = feed(events)
    with pytest.raises(ProviderError, match="The model crashed"):
        buffer.add({"type": "response.failed", "response": failed})
    assert buffer.as_dict()["output"][0]["arguments"] == '{"country":'


def test_custom_tool_call_input_deltas_grow_the_input_of_a_custom_call():
    cid = "ct_1"
    item = {"type": "custom_tool_call", "id": cid, "call_id": "call_sql", "name": "write_sql",
            "input": ""}
    events = [lifecycle("created"),
              {"type": "response.output_item.added", "output_index": 0, "item": item},
              *[{"type": "response.custom_tool_call_input.delta", "item_id": cid,
                 "output_index": 0, "delta": piece} for piece in ["SELECT * ", "FROM t"]]]
    buffer = feed(events)
    assert buffer.as_dict()["output"] == [dict(item, input="SELECT * FROM t")]
    # freeform input is kept as text, not parsed as JSON arguments
    assert STRATEGY.extract(buffer.as_dict()) == [ExtractedCall(
        "write_sql", {}, "call_sql", kind="custom", input="SELECT * FROM t")]
    assert buffer.forming_name() == "write_sql"


def test_incomplete_response_ends_the_stream():
    events = [lifecycle("created"), *message_events(0, ["Half an ans"])]
    end = lifecycle("incomplete", "incomplete", [message_item(["Half an ans"])])
    end["response"]["incomplete_details"] = {"reason": "max_output_tokens"}
    buffer = feed(events + [end])
    assert buffer.is_done()
    assert buffer.as_dict() == end["response"]


def test_is_done_only_on_the_end_of_the_response():
    for event in capital_stream()[:-1] + [lifecycle("failed", "failed")]:
        assert not STRATEGY.is_done(event), event["type"]
    assert STRATEGY.is_done(lifecycle("completed", "completed"))
    assert STRATEGY.is_done(lifecycle("incomplete", "incomplete"))
    for garbage in (None, "x", [], {"type": ["response.completed"]}, {"type": {}}):
        assert STRATEGY.is_done(garbage) is False


def test_completed_without_output_takes_the_built_items():
    events = capital_stream()
    end = copy.deepcopy(events[-1])
    del end["response"]["output"]
    assert feed(events[:-1] + [end]).as_dict()["output"] == events[-1]["response"]["output"]


def test_refusal_deltas():
    mid = "msg_r"
    events = [
        lifecycle("created"),
        {"type": "response.output_item.added", "output_index": 0,
         "item": message_item([], mid, "in_progress")},
        {"type": "response.content_part.added", "item_id": mid, "output_index": 0,
         "content_index": 0, "part": {"type": "refusal", "refusal": ""}},
        *[{"type": "response.refusal.delta", "item_id": mid, "output_index": 0,
           "content_index": 0, "delta": piece} for piece in ["I can", "not help."]],
    ]
    buffer = LLMStreamBuffer(STRATEGY)
    assert "".join(buffer.add(event) for event in events) == ""
    assert buffer.as_dict()["output"][0]["content"] == [{"type": "refusal",
                                                         "refusal": "I cannot help."}]


def test_logprobs_and_annotations_accumulate_on_the_text_part():
    events = message_events(0, ["Hi", " there"])[:4]
    events[2] = dict(events[2], logprobs=[{"token": "Hi", "logprob": -0.1}])
    events[3] = dict(events[3], logprobs=[{"token": " there", "logprob": -0.2}])
    note = {"type": "url_citation", "url": "https://example.com", "title": "x",
            "start_index": 0, "end_index": 2}
    events.append({"type": "response.output_text.annotation.added", "item_id": "msg_1",
                   "output_index": 0, "content_index": 0, "annotation_index": 0,
                   "annotation": note})
    part = feed([lifecycle("created"), *events]).as_dict()["output"][0]["content"][0]
    assert part["text"] == "Hi there"
    assert [lp["token"] for lp in part["logprobs"]] == ["Hi", " there"]
    assert part["annotations"] == [note]
    assert events[1]["part"]["logprobs"] == [] and events[1]["part"]["annotations"] == []


def test_unknown_response_events_are_ignored():
    events = capital_stream()
    events.insert(3, {"type": "response.brand_new_thing.delta", "output_index": 99})
    assert feed(events).as_dict() == events[-1]["response"]


def test_stream_may_start_without_response_created():
    buffer = feed(call_events(0, ['{"country":"France"}'], done=False))
    message = buffer.as_dict()
    assert STRATEGY.recognizes(message)
    assert STRATEGY.extract(message) == [ExtractedCall("get_capital", {"country": "France"},
                                                       "call_1")]


def test_a_resumed_stream_continues_the_items_its_first_event_carries():
    started = call_item(arguments='{"country":')
    events = [lifecycle("queued"), lifecycle("in_progress", output=[started]),
              {"type": "response.function_call_arguments.delta", "item_id": "fc_1",
               "output_index": 0, "delta": '"Chile"}'}]
    assert feed(events).as_dict()["output"] == [dict(started, arguments='{"country":"Chile"}')]


def test_an_item_done_without_added_is_placed_whole():
    item = call_item(arguments="{}", status="completed")
    done = {"type": "response.output_item.done", "output_index": 0, "item": item}
    assert feed([lifecycle("created"), done]).as_dict()["output"] == [item]


@pytest.mark.parametrize(
    ("event", "error", "words"),
    [
        ({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
          "output_index": 3, "delta": "x"}, EventOutOfOrder, "output_index 3"),
        ({"type": "response.function_call_arguments.delta", "item_id": "fc_other",
          "output_index": 0, "delta": "x"}, EventOutOfOrder, "fc_other"),
        ({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
          "output_index": 0, "delta": 7}, MalformedChunk, "delta"),
        ({"type": "response.function_call_arguments.delta", "item_id": "fc_1",
          "output_index": True, "delta": "x"}, EventOutOfOrder, "output_index True"),
        ({"type": "response.output_text.delta", "item_id": "fc_1", "output_index": 0,
          "content_index": 0, "delta": "x"}, EventOutOfOrder, "content_index"),
        ({"type": "response.output_item.added", "output_index": 2,
          "item": call_item(item_id="fc_2")}, EventOutOfOrder, "next free output_index, 1"),
        ({"type": "response.output_item.added", "output_index": 1, "item": {"id": "x"}},
         MalformedChunk, "string type"),
        ({"type": "response.output_item.done", "output_index": 0,
          "item": message_item(["x"], "fc_1")}, EventOutOfOrder, "same item"),
        ({"type": "response.completed", "response": "done"}, MalformedChunk, "Response"),
        ({"type": "response.created", "response": dict(response(), id="resp_9")},
         EventOutOfOrder, "resp_9"),
        ({"no": "type"}, MalformedChunk, "type"),
        ({"type": 12}, MalformedChunk, "type"),
        ({"type": "message_start"}, MalformedChunk, "response."),
        (["response.created"], MalformedChunk, "object"),
        ("data: {}", MalformedChunk, "object"),
    ],
)
def test_bad_events_name_what_was_wrong(event, error, words):
    buffer = feed([lifecycle("created"), *call_events(0, ["{"], done=False)])
    with pytest.raises(error, match=re.escape(words)) as caught:
        buffer.add(event)
    assert caught.value.index == 3
    assert "chunk 3" in str(caught.value)


def test_events_after_the_end_or_after_an_item_is_done_are_out_of_order():
    events = capital_stream()
    delta = dict(events[3])
    with pytest.raises(EventOutOfOrder, match="after its response.output_item.done"):
        feed(events[:-1] + [delta])
    with pytest.raises(EventOutOfOrder, match="after the response ended"):
        feed(events + [delta])
    with pytest.raises(EventOutOfOrder, match="after the response ended"):
        feed(events + [events[-1]])


def test_part_delta_on_the_wrong_part_type():
    events = message_events(0, ["a"])[:2]
    refusal = {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0,
               "content_index": 0, "delta": "no"}
    with pytest.raises(EventOutOfOrder, match="'output_text' part"):
        feed([lifecycle("created"), *events, refusal])


def test_arguments_delta_on_a_message_item():
    events = message_events(0, ["a"])[:2]
    delta = {"type": "response.function_call_arguments.delta", "item_id": "msg_1",
             "output_index": 0, "delta": "{"}
    with pytest.raises(EventOutOfOrder, match="'message' item"):
        feed([lifecycle("created"), *events, delta])


# ---------------------------------------------------------------------------------------
# recognizes / extract / content_text / forming_name / result_messages
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (lifecycle("created"), True),
        ({"type": "response.output_text.delta", "delta": "x"}, True),
        ({"type": "response.reasoning_summary_text.delta"}, True),
        ({"type": "error", "code": "server_error", "message": "x"}, True),
        ({"type": "error", "sequence_number": 2, "error": {"code": "x", "message": "y"}}, True),
        ({"type": "error", "error": {"type": "overloaded_error", "message": "x"}}, False),
        (response("completed"), True),
        ({"output": [call_item()]}, True),
        ({"output": []}, False),
        ({"output": ["text"]}, False),
        ({"output": "text"}, False),
        ({"type": "message_start", "message": {}}, False),
        ({"type": "message", "role": "assistant", "content": []}, False),
        ({"id": "c", "object": "chat.completion.chunk", "choices": []}, False),
        ({"role": "assistant", "content": "hi", "tool_calls": None}, False),
        ({"model": "llama", "message": {"role": "assistant", "content": ""}, "done": False},
         False),
        ("response.created", False),
        (None, False),
        ([lifecycle("created")], False),
    ],
)
def test_recognizes(shape, expected):
    assert STRATEGY.recognizes(shape) is expected


def test_extract_arguments_forms_and_ids():
    message = response("completed", [
        message_item(["text before"]),
        call_item("a", "call_a", "fc_a", "{}", "completed"),
        call_item("b", "call_b", "fc_b", "", "completed"),
        call_item("c", "call_c", "fc_c", '{"city":"\u5357\u4eac","n":1}', "completed"),
        call_item("d", "call_d", "fc_d", '{"unterminated', "completed"),
        call_item("e", "call_e", "fc_e", "[1, 2]", "completed"),
    ])
    calls = STRATEGY.extract(message)
    assert [(c.name, c.arguments, c.id, c.error is None) for c in calls] == [
        ("a", {}, "call_a", True), ("b", {}, "call_b", True),
        ("c", {"city": "\u5357\u4eac", "n": 1}, "call_c", True),
        ("d", {}, "call_d", False), ("e", {}, "call_e", False),
    ]
    assert calls[3].raw_arguments == '{"unterminated'
    assert STRATEGY.content_text(message) == "text before"
    assert STRATEGY.forming_name(message) == "e"


@pytest.mark.parametrize("bad", [None, "text", {"output": None}, {"output": [1]},
                                 {"output": [{"type": "function_call", "name": None}]}])
def test_extract_bad_messages_raise_stream_errors(bad):
    with pytest.raises(StreamError):
        STRATEGY.extract(bad)


def test_content_text_joins_output_text_of_message_items_only():
    message = response("completed", [
        {"type": "reasoning", "id": "rs", "summary": [{"type": "summary_text", "text": "no"}]},
        message_item(["Hello", ", world"]),
        {"type": "message", "id": "m2", "role": "assistant", "status": "completed",
         "content": [{"type": "refusal", "refusal": "no"},
                     {"type": "output_text", "text": "!", "annotations": []}]},
    ])
    assert STRATEGY.content_text(message) == "Hello, world!"


def test_result_messages_output_kinds():
    message = response("completed", [
        message_item(["Calling tools."]),
        call_item("a", "call_a", "fc_a", "{}", "completed"),
        call_item("b", "call_b", "fc_b", '{"x":1}', "completed"),
        call_item("c", "call_c", "fc_c", "{}", "completed"),
    ])
    records = [ToolCallRecord("a", {}, result={"temp": "21\u00b0C"}, tool_call_id="call_a"),
               ToolCallRecord("b", {"x": 1}, error="tool raised ValueError: x",
                              tool_call_id="call_b"),
               ToolCallRecord("c", {}, result="plain text")]  # no id: matched by name
    history = STRATEGY.result_messages(message, records)
    assert history[:4] == message["output"]
    assert history[4:] == [
        {"type": "function_call_output", "call_id": "call_a", "output": '{"temp": "21\u00b0C"}'},
        {"type": "function_call_output", "call_id": "call_b",
         "output": "Error: tool raised ValueError: x"},
        {"type": "function_call_output", "call_id": "call_c", "output": "plain text"},
    ]
    INPUT_ITEMS.validate_python(history)
    history[0]["content"].clear()
    assert message["output"][0]["content"], "result_messages must copy the items"


def test_as_message_returns_fresh_objects():
    events = capital_stream()
    for cut in (len(events) - 1, len(events)):
        buffer = feed(events[:cut])
        first = buffer.as_dict()
        first["output"][0]["arguments"] = "changed"
        first["tools"].append("changed")
        first["output"].append("changed")
        assert buffer.as_dict() != first
        assert buffer.as_dict()["output"][0]["arguments"] == '{"country":"France"}'
    assert events == capital_stream()


# ---------------------------------------------------------------------------------------
# Generated responses: built-from-deltas equals the completed response, for any cutting
# ---------------------------------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=24)
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def arguments_texts(draw) -> str:
    if draw(st.booleans()):
        return "{}"
    value = draw(st.dictionaries(TEXT, JSON_VALUES, max_size=3))
    return json.dumps(value, ensure_ascii=draw(st.booleans()))


def other_item(draw, kind: str, n: int) -> dict:
    """A finished item of a client-run built-in tool, a custom tool or a hosted tool."""
    call = {"id": f"it_{n}", "call_id": f"call_{n}", "status": "completed"}
    if kind == "custom_tool_call":
        return {"type": kind, "id": f"ctc_{n}", "call_id": f"call_{n}", "name": draw(NAMES),
                "input": draw(TEXT)}
    if kind == "computer_call":
        return {"type": kind, **call, "pending_safety_checks": [],
                "action": {"type": "click", "button": "left", "x": draw(st.integers(0, 99)),
                           "y": 7}}
    if kind == "local_shell_call":
        return {"type": kind, **call,
                "action": {"type": "exec", "command": draw(st.lists(TEXT, max_size=2)),
                           "env": {}}}
    if kind == "shell_call":
        return {"type": kind, **call, "action": {"commands": draw(st.lists(TEXT, max_size=2)),
                                                 "timeout_ms": None, "max_output_length": None}}
    if kind == "apply_patch_call":
        return {"type": kind, **call,
                "operation": {"type": "update_file", "path": "a.py", "diff": draw(TEXT)}}
    if kind == "web_search_call":
        return {"type": kind, "id": f"ws_{n}", "status": "completed",
                "action": {"type": "search", "query": draw(TEXT)}}
    if kind == "mcp_call":
        return {"type": kind, "id": f"mcp_{n}", "name": draw(NAMES), "server_label": "srv",
                "arguments": draw(arguments_texts()), "output": draw(TEXT), "error": None,
                "status": "completed"}
    return {"type": "code_interpreter_call", "id": f"ci_{n}", "code": draw(TEXT),
            "container_id": "cntr_1", "outputs": [], "status": "completed"}


OTHER_ITEMS = ["custom_tool_call", "computer_call", "local_shell_call", "shell_call",
               "apply_patch_call", "web_search_call", "mcp_call", "code_interpreter_call"]


@st.composite
def final_responses(draw) -> dict:
    kinds = draw(st.lists(st.sampled_from(["reasoning", "message", "call", "call", *OTHER_ITEMS]),
                          max_size=5))
    output, calls = [], 0
    for n, kind in enumerate(kinds):
        if kind in OTHER_ITEMS:
            output.append(other_item(draw, kind, n))
        elif kind == "reasoning":
            item = {"type": "reasoning", "id": f"rs_{n}",
                    "summary": [{"type": "summary_text", "text": t}
                                for t in draw(st.lists(TEXT, max_size=2))]}
            if draw(st.booleans()):
                item["encrypted_content"] = draw(st.from_regex(r"gAAA[A-Za-z0-9_-]{0,20}",
                                                               fullmatch=True))
            if draw(st.booleans()):
                item["content"] = [{"type": "reasoning_text", "text": draw(TEXT)}]
            output.append(item)
        elif kind == "message":
            parts = draw(st.lists(st.one_of(
                st.builds(lambda t: {"type": "output_text", "annotations": [], "logprobs": [],
                                     "text": t}, TEXT),
                st.builds(lambda t: {"type": "refusal", "refusal": t}, TEXT),
            ), min_size=1, max_size=2))
            item = {"type": "message", "id": f"msg_{n}", "role": "assistant",
                    "status": "completed", "content": parts}
            if draw(st.booleans()):
                item["phase"] = "commentary"
            output.append(item)
        elif calls < 3:
            calls += 1
            output.append(call_item(draw(NAMES), f"call_{n}", f"fc_{n}",
                                    draw(arguments_texts()), "completed"))
    final = response("completed", output, rid=f"resp_{draw(st.integers(0, 99))}")
    final["usage"] = {"input_tokens": 3,
                      "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                      "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                      "total_tokens": 8}
    return final


def cut(draw, text: str) -> list[str]:
    """Fragments of `text`: few, early cut points shrink best; empty fragments allowed."""
    points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    bounds = [0, *points, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


STREAMED = {
    "function_call": ("arguments", "response.function_call_arguments"),
    "custom_tool_call": ("input", "response.custom_tool_call_input"),
    "mcp_call": ("arguments", "response.mcp_call_arguments"),
    "code_interpreter_call": ("code", "response.code_interpreter_call_code"),
}
STATUS_EVENTS = {
    "web_search_call": ("in_progress", "searching", "completed"),
    "mcp_call": ("in_progress", "completed"),
    "code_interpreter_call": ("in_progress", "interpreting", "completed"),
}


def stream_events(draw, final: dict, *, with_done: bool) -> list[dict]:
    """The events a Responses server sends for `final`, its strings cut anywhere."""
    start = dict(final, status="in_progress", output=[], usage=None)
    events = [{"type": "response.created", "response": start},
              {"type": "response.in_progress", "response": start}]

    def where(index, item, extra=()):
        return {"item_id": item["id"], "output_index": index, **dict(extra)}

    for index, item in enumerate(final["output"]):
        kind = item["type"]
        streamed = STREAMED.get(kind)  # (the item's streamed field, its events' prefix)
        if streamed is not None:
            added = dict(item, **{streamed[0]: ""})
        elif kind == "message":
            added = dict(item, content=[])
        elif kind == "reasoning":
            added = dict(item, summary=[], **({"content": []} if "content" in item else {}))
        elif kind == "shell_call":
            added = dict(item, action=dict(item["action"], commands=[]))
        else:
            added = dict(item)
        if "status" in added:
            added["status"] = "in_progress"
        events.append({"type": "response.output_item.added", "output_index": index,
                       "item": added})
        if streamed is not None:
            field, prefix = streamed
            events += [{"type": prefix + ".delta", "delta": piece, **where(index, item)}
                       for piece in cut(draw, item[field])]
            if with_done:
                events.append({"type": prefix + ".done", field: item[field],
                               **where(index, item)})
        if kind == "shell_call":
            for at, command in enumerate(item["action"]["commands"]):
                first, *rest = cut(draw, command)
                here = {"output_index": index, "command_index": at}
                events.append({"type": "response.shell_call_command.added", "command": first,
                               **here})
                events += [{"type": "response.shell_call_command.delta", "delta": piece,
                            **here} for piece in rest]
                if with_done:
                    events.append({"type": "response.shell_call_command.done",
                                   "command": command, **here})
        if kind in STATUS_EVENTS:
            events += [{"type": f"response.{kind}.{status}", **where(index, item)}
                       for status in STATUS_EVENTS[kind]]
        for key, index_key in (("summary", "summary_index"), ("content", "content_index")):
            for at, part in enumerate(item.get(key, ())):
                field = "refusal" if part["type"] == "refusal" else "text"
                prefix = {"summary_text": "response.reasoning_summary_text",
                          "reasoning_text": "response.reasoning_text",
                          "output_text": "response.output_text",
                          "refusal": "response.refusal"}[part["type"]]
                added_type = ("response.reasoning_summary_part" if key == "summary"
                              else "response.content_part")
                here = where(index, item, {index_key: at})
                events.append({"type": added_type + ".added", "part": dict(part, **{field: ""}),
                               **here})
                extra = {"logprobs": []} if part["type"] == "output_text" else {}
                events += [{"type": prefix + ".delta", "delta": piece, **here, **extra}
                           for piece in cut(draw, part[field])]
                if with_done:
                    events += [{"type": prefix + ".done", field: part[field], **here, **extra},
                               {"type": added_type + ".done", "part": part, **here}]
        if with_done:
            events.append({"type": "response.output_item.done", "output_index": index,
                           "item": item})
    events.append({"type": "response.completed", "response": final})
    return events


KINDS = {"function_call": "function", "custom_tool_call": "custom", "computer_call": "computer",
         "local_shell_call": "local_shell", "shell_call": "shell",
         "apply_patch_call": "apply_patch"}
OUTPUT_TYPES = {"function": "function_call_output", "custom": "custom_tool_call_output",
                "computer": "computer_call_output", "local_shell": "local_shell_call_output",
                "shell": "shell_call_output", "apply_patch": "apply_patch_call_output"}


@st.composite
def generated_streams(draw):
    final = draw(final_responses())
    with_done = draw(st.booleans())
    events = stream_events(draw, final, with_done=with_done)
    if draw(st.booleans()):
        events = numbered(events)
    return final, events, with_done


def without_status(output: list[dict]) -> list[dict]:
    return [{k: v for k, v in item.items() if k != "status"} for item in output]


def visible_text(final: dict) -> str:
    return "".join(part["text"] for item in final["output"] if item["type"] == "message"
                   for part in item["content"] if part["type"] == "output_text")


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_streams())
def test_built_from_deltas_equals_the_completed_response(stream):
    final, events, with_done = stream
    pristine = copy.deepcopy(events)
    buffer = LLMStreamBuffer(STRATEGY)
    display = []
    for event in events[:-1]:
        display.append(buffer.add(event))
        assert STRATEGY.forming_name_of(buffer._acc) == STRATEGY.forming_name(buffer.as_dict())
        assert not buffer.is_done()
    built = buffer.as_dict()
    if with_done:
        assert built["output"] == final["output"]
    else:
        assert without_status(built["output"]) == without_status(final["output"])
    assert built["id"] == final["id"] and built["status"] == "in_progress"
    Response.model_validate(built)
    assert STRATEGY.extract(built) == STRATEGY.extract(final)
    assert STRATEGY.content_text(built) == visible_text(final)

    display.append(buffer.add(events[-1]))
    assert buffer.is_done()
    assert buffer.as_dict() == final
    Response.model_validate(buffer.as_dict())
    assert "".join(display) == STRATEGY.content_text(final) == visible_text(final)
    assert events == pristine, "the strategy mutated an input event"
    calls = STRATEGY.extract(final)
    assert [(c.kind, c.id) for c in calls] == [
        (KINDS[i["type"]], i["call_id"]) for i in final["output"] if i["type"] in KINDS]
    history = STRATEGY.result_messages(
        final, [ToolCallRecord(c.name, c.arguments, "ok", tool_call_id=c.id) for c in calls])
    INPUT_ITEMS.validate_python(history)
    assert [(h["type"], h.get("call_id", h.get("id"))) for h in history[len(final["output"]):]] \
        == [(OUTPUT_TYPES[c.kind], c.id) for c in calls]


def sdk_item(item: Any) -> dict:
    """An SDK output item as the wire sent it: without the SDK's parse results."""
    plain = item.to_dict()
    plain.pop("parsed_arguments", None)
    for part in plain.get("content") or ():
        if isinstance(part, dict):
            part.pop("parsed", None)
    return plain


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_streams())
def test_sdk_stream_state_agrees_at_every_delta(stream):
    final, events, _ = stream
    sdk = ResponseStreamState(input_tools=omit, text_format=omit)
    acc = STRATEGY.new_accumulator()
    completed = False
    for event in numbered(events):
        typed = EVENTS.validate_python(event)  # our generated events are valid SDK events
        STRATEGY.accumulate(acc, event)
        for out in sdk.handle_event(typed):
            snapshot = getattr(out, "snapshot", None)
            if out.type == "response.output_text.delta":
                ours = STRATEGY.as_message(acc)["output"][out.output_index]
                assert ours["content"][out.content_index]["text"] == snapshot
            elif out.type == "response.function_call_arguments.delta":
                ours = STRATEGY.as_message(acc)["output"][out.output_index]
                assert ours["arguments"] == snapshot
            elif out.type == "response.completed":
                theirs = out.response
                ours = STRATEGY.as_message(acc)
                assert theirs.output_text == STRATEGY.content_text(ours)
                assert [(i.name, i.arguments, i.call_id) for i in theirs.output
                        if i.type == "function_call"] == [
                    (i["name"], i["arguments"], i["call_id"]) for i in ours["output"]
                    if i["type"] == "function_call"]
                assert theirs.id == ours["id"] and len(theirs.output) == len(ours["output"])
                assert [sdk_item(i) for i in theirs.output] == ours["output"]
                completed = True
    assert completed, "the SDK accumulator never completed the response"


# ---------------------------------------------------------------------------------------
# Bad input: only StreamError, never a crash; the input is never mutated
# ---------------------------------------------------------------------------------------

GARBAGE = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False)
    | st.sampled_from(["", "x", "response.created", "fc_0", "msg_0", "output_text",
                       "function_call", "message", "summary_text", "refusal"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["type", "item", "part", "delta", "output_index", "content_index",
                         "summary_index", "item_id", "response", "output", "id", "text",
                         "arguments", "error", "logprobs", "annotation", "name"]),
        inner, max_size=4),
    max_leaves=8,
)
EVENT_TYPES = st.sampled_from([
    "response.created", "response.in_progress", "response.completed", "response.incomplete",
    "response.failed", "response.output_item.added", "response.output_item.done",
    "response.content_part.added", "response.content_part.done",
    "response.output_text.delta", "response.output_text.done", "response.refusal.delta",
    "response.function_call_arguments.delta", "response.function_call_arguments.done",
    "response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
    "response.reasoning_text.delta", "response.custom_tool_call_input.delta",
    "response.output_text.annotation.added", "error",
])


@st.composite
def damaged_streams(draw):
    _, events, _ = draw(generated_streams())
    events = copy.deepcopy(events)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["field", "drop-field", "drop-event", "swap", "garbage",
                                    "typed-garbage"]))
        at = draw(st.integers(0, len(events) - 1))
        if how == "field" and isinstance(events[at], dict) and events[at]:
            key = draw(st.sampled_from(sorted(events[at])))
            events[at][key] = draw(GARBAGE)
        elif how == "drop-field" and isinstance(events[at], dict) and events[at]:
            del events[at][draw(st.sampled_from(sorted(events[at])))]
        elif how == "drop-event" and len(events) > 1:
            del events[at]
        elif how == "swap":
            other = draw(st.integers(0, len(events) - 1))
            events[at], events[other] = events[other], events[at]
        elif how == "garbage":
            events.insert(at, draw(GARBAGE))
        elif how == "typed-garbage":
            junk = draw(GARBAGE)
            junk = dict(junk) if isinstance(junk, dict) else {}
            junk["type"] = draw(EVENT_TYPES)
            events.insert(at, junk)
    return events


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_streams())
def test_damaged_streams_raise_only_stream_errors(events):
    pristine = copy.deepcopy(events)
    acc = STRATEGY.new_accumulator()
    for event in events:
        try:
            STRATEGY.accumulate(acc, event)
        except StreamError:
            pass
        STRATEGY.is_done(event)
        STRATEGY.forming_name_of(acc)
        message = STRATEGY.as_message(acc)  # whatever was accepted still assembles
        assert STRATEGY.recognizes(message) in (True, False)
        for query in (STRATEGY.extract, STRATEGY.content_text):
            try:
                query(message)
            except StreamError:
                pass
    assert events == pristine, "the strategy mutated an input event"


@settings(max_examples=200, deadline=None)
@given(st.lists(GARBAGE | st.builds(lambda t, g: {"type": t, "x": g}, EVENT_TYPES, GARBAGE),
                max_size=6))
def test_garbage_through_the_buffer_raises_only_stream_errors(chunks):
    buffer = LLMStreamBuffer(STRATEGY)
    for chunk in [lifecycle("created"), *chunks]:
        try:
            buffer.add(chunk)
        except StreamError as exc:
            assert exc.index is not None
            assert "could not read this chunk" not in str(exc), "a bug type escaped"
        assert STRATEGY.recognizes(chunk) in (True, False)
        buffer.as_dict()


@pytest.mark.parametrize("bad_id", [[], {}, 7, None])
def test_a_malformed_call_id_is_no_id_in_calls_and_history(bad_id):
    """Found by robust.bad-input: a final output item whose call_id is not a str made
    result_messages() raise TypeError (an unhashable id checked against the claimed ones)."""
    strategy = OpenAIResponsesStrategy()
    message = {"object": "response", "status": "completed", "output": [
        {"type": "function_call", "id": "fc_1", "call_id": bad_id, "name": "f",
         "arguments": "{}", "status": "completed"}]}

    [call] = strategy.extract(message)
    assert (call.name, call.arguments, call.id) == ("f", {}, None)
    history = strategy.result_messages(
        message, [ToolCallRecord(name="f", arguments={}, result="ok", tool_call_id=None)])
    assert history[-1] == {"type": "function_call_output", "call_id": None, "output": "ok"}


@pytest.mark.parametrize("kind", [[], {}, ["function_call"]])
def test_an_item_type_that_is_not_a_string_names_no_call(kind):
    """Found by robust.bad-input: a list as an item's type made `forming_name` raise
    TypeError (unhashable) instead of answering that no call forms."""
    message = {"id": "resp_1", "object": "response", "status": "completed",
               "output": [{"type": kind, "name": "get_weather", "call_id": "call_1",
                           "arguments": "{}"}]}
    assert OpenAIResponsesStrategy().forming_name(message) is None

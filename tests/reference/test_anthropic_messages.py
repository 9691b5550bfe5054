"""Tests of `AnthropicMessagesStrategy`: each provider quirk, bad input, and the SDK as oracle."""
from __future__ import annotations

import copy
import json

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_reference.anthropic_messages import AnthropicMessagesStrategy
from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.errors import EventOutOfOrder, MalformedChunk, ProviderError, StreamError

S = AnthropicMessagesStrategy()


# -- small stream builders ---------------------------------------------------------------
def start(content=None, usage=None, **extra):
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
               "content": content or [], "stop_reason": None, "stop_sequence": None,
               "usage": usage or {"input_tokens": 10, "output_tokens": 1}}
    message.update(extra)
    return {"type": "message_start", "message": message}


def block_start(index, block):
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index, kind, **fields):
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, **fields}}


def text_d(index, text):
    return delta(index, "text_delta", text=text)


def json_d(index, piece):
    return delta(index, "input_json_delta", partial_json=piece)


def stop(index):
    return {"type": "content_block_stop", "index": index}


def msg_delta(stop_reason="end_turn", usage=None, **extra):
    return {"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": None, **extra},
            "usage": usage if usage is not None else {"output_tokens": 5}}


PING = {"type": "ping"}
END = {"type": "message_stop"}
TEXT0 = {"type": "text", "text": ""}


def tool(id_="toolu_1", name="get_weather", **extra):
    return {"type": "tool_use", "id": id_, "name": name, "input": {}, **extra}


def feed(events, strategy=S):
    """Run events through the strategy directly; return (acc, display text)."""
    acc = strategy.new_accumulator()
    shown = "".join(strategy.accumulate(acc, event) for event in events)
    return acc, shown


def message_of(events):
    acc, _ = feed(events)
    return S.as_message(acc)


# -- recognition ---------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["message_start", "content_block_start", "content_block_delta",
                                  "content_block_stop", "message_delta", "message_stop", "ping"])
def test_recognizes_every_stream_event(kind):
    assert S.recognizes({"type": kind})


def test_recognizes_anthropic_error_event_but_not_the_responses_one():
    assert S.recognizes({"type": "error", "error": {"type": "overloaded_error", "message": "x"}})
    assert not S.recognizes({"type": "error", "code": "server_error", "message": "x", "sequence_number": 3})


def test_recognizes_messages_and_request_shape():
    assert S.recognizes(message_of([start(), END]))
    assert S.recognizes({"type": "message", "content": []})
    assert S.recognizes({"role": "assistant", "content": [TEXT0, tool()]})


@pytest.mark.parametrize("shape", [
    {"role": "assistant", "content": "hello"},
    {"role": "assistant", "content": None, "tool_calls": [], "refusal": None},
    {"role": "assistant", "content": [{"type": "text", "text": "x"}], "tool_calls": []},
    {"role": "assistant", "content": ["not a block"]},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "x"}]},
    {"object": "response", "output": [], "status": "completed"},
    {"type": "response.output_text.delta", "delta": "x"},
    {"model": "llama", "message": {"role": "assistant", "content": "x"}, "done": False},
    {"type": ["unhashable"], "content": []},
    {"type": {"x": 1}},
    "message_start", ["message_start"], None, 3, b"{}",
])
def test_refuses_foreign_and_odd_shapes(shape):
    assert S.recognizes(shape) is False


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


@given(json_values)
def test_recognizes_never_raises(value):
    assert S.recognizes(value) in (True, False)


# -- quirks seen in real streams (corpora-real/QUIRKS.md, Anthropic section) --------------
def test_text_then_tool_use_with_empty_first_fragment_and_mid_word_cuts():
    events = [start(), block_start(0, TEXT0), PING, text_d(0, "Let me "), text_d(0, "check."), stop(0),
              block_start(1, tool(caller={"type": "direct"})), json_d(1, ""), json_d(1, '{"locat'),
              json_d(1, 'ion": "P'), json_d(1, "ar"), json_d(1, 'is"}'), stop(1),
              msg_delta("tool_use"), END]
    acc, shown = feed(events)
    message = S.as_message(acc)
    assert shown == "Let me check." == S.content_text(message)
    assert message["content"][1] == {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
                                     "input": {"location": "Paris"}, "caller": {"type": "direct"}}
    assert S.extract(message) == [ExtractedCall("get_weather", {"location": "Paris"}, "toolu_1")]
    assert message["stop_reason"] == "tool_use"


@pytest.mark.parametrize("fragments", [[""], ["", ""], [], ["  "]])
def test_input_that_joins_to_nothing_is_an_empty_object(fragments):
    events = [start(), block_start(0, tool()), *[json_d(0, f) for f in fragments], stop(0), END]
    message = message_of(events)
    assert message["content"][0]["input"] == {}
    assert S.extract(message) == [ExtractedCall("get_weather", {}, "toolu_1")]


def test_two_parallel_calls_without_arguments():
    events = [start(), block_start(0, tool("toolu_a", "gen")), json_d(0, ""), stop(0),
              block_start(1, tool("toolu_b", "gen")), json_d(1, ""), stop(1), msg_delta("tool_use"), END]
    calls = S.extract(message_of(events))
    assert calls == [ExtractedCall("gen", {}, "toolu_a"), ExtractedCall("gen", {}, "toolu_b")]


def test_prefilled_input_without_deltas_is_kept():
    caller = {"type": "code_execution_20250825", "tool_id": "srvtoolu_1"}
    events = [start(), block_start(0, tool("toolu_r", "rollDie", caller=caller) | {"input": {"player": "p1"}}),
              stop(0), msg_delta("tool_use"), END]
    message = message_of(events)
    assert message["content"][0]["input"] == {"player": "p1"}
    assert message["content"][0]["caller"] == caller
    assert S.extract(message) == [ExtractedCall("rollDie", {"player": "p1"}, "toolu_r")]


def test_continuation_stream_is_message_start_with_content_then_stop():
    content = [{"type": "text", "text": "Rolling."},
               tool("toolu_c", "rollDie") | {"input": {"player": "p2"}}]
    container = {"id": "container_1", "expires_at": "2025-01-01T00:00:00Z"}
    events = [start(content, stop_reason="tool_use", container=container), END]
    acc, shown = feed(events)
    message = S.as_message(acc)
    assert shown == "Rolling."
    assert message["content"] == content
    assert message["container"] == container and message["stop_reason"] == "tool_use"
    assert S.extract(message) == [ExtractedCall("rollDie", {"player": "p2"}, "toolu_c")]
    assert S.forming_name_of(acc) == "rollDie"


def test_continuation_blocks_are_closed_and_later_blocks_continue_the_index():
    events = [start([{"type": "text", "text": "a"}]), block_start(1, TEXT0), text_d(1, "b")]
    acc, shown = feed(events)
    assert shown == "ab"
    with pytest.raises(EventOutOfOrder, match="after its content_block_stop"):
        S.accumulate(acc, text_d(0, "late"))


def test_pings_anywhere_are_absorbed():
    core = [start(), block_start(0, TEXT0), text_d(0, "hi"), stop(0), msg_delta(), END]
    with_pings = [PING]
    for event in core:
        with_pings += [event, PING, PING]
    assert message_of(with_pings) == message_of(core)
    acc, shown = feed(with_pings)
    assert shown == "hi"


def test_thinking_with_empty_delta_and_signature():
    events = [start(), block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
              delta(0, "thinking_delta", thinking="Let me"), delta(0, "thinking_delta", thinking=" think."),
              delta(0, "thinking_delta", thinking=""), delta(0, "signature_delta", signature="EoQDsig=="),
              stop(0), block_start(1, TEXT0), text_d(1, "Answer."), stop(1), msg_delta(), END]
    acc, shown = feed(events)
    message = S.as_message(acc)
    assert shown == "Answer."  # thinking is not visible text
    assert message["content"][0] == {"type": "thinking", "thinking": "Let me think.", "signature": "EoQDsig=="}
    assert S.content_text(message) == "Answer."


def test_redacted_thinking_arrives_whole():
    redacted = {"type": "redacted_thinking", "data": "EqkECkYIBxgC"}
    events = [start(), block_start(0, redacted), PING, stop(0), block_start(1, TEXT0), text_d(1, "ok"),
              stop(1), END]
    assert message_of(events)["content"] == [redacted, {"type": "text", "text": "ok"}]


def test_server_tool_use_is_assembled_but_not_extracted():
    server = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search", "input": {}}
    result = {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
              "content": {"type": "tool_search_tool_search_result",
                          "tool_references": [{"type": "tool_reference", "tool_name": "rate"}]}}
    events = [start(), block_start(0, server), json_d(0, ""), json_d(0, '{"query": "US'), json_d(0, 'D"}'),
              stop(0), block_start(1, result), stop(1), block_start(2, tool("toolu_2", "rate")),
              json_d(2, '{"to": "EUR"}'), stop(2), msg_delta("tool_use"), END]
    message = message_of(events)
    assert message["content"][0]["input"] == {"query": "USD"}
    assert message["content"][1] == result
    assert S.extract(message) == [ExtractedCall("rate", {"to": "EUR"}, "toolu_2")]


def test_max_tokens_cut_tool_json_without_block_stop_is_an_error_call():
    events = [start(), block_start(0, TEXT0), text_d(0, "Writing."), stop(0),
              block_start(1, tool("toolu_m", "make_file")), json_d(1, ""), json_d(1, '{"filename": "a.txt'),
              json_d(1, '", "lines": [\n"Filing'), msg_delta("max_tokens", {"output_tokens": 124}), END]
    acc, _ = feed(events)
    message = S.as_message(acc)
    assert message["stop_reason"] == "max_tokens"
    assert message["content"][1]["input"] == '{"filename": "a.txt", "lines": [\n"Filing'
    [call] = S.extract(message)
    assert call.name == "make_file" and call.id == "toolu_m" and call.arguments == {}
    assert call.error and call.raw_arguments == '{"filename": "a.txt", "lines": [\n"Filing'
    assert S.is_done(END)


def test_tool_input_that_is_json_but_not_an_object_is_an_error_call():
    events = [start(), block_start(0, tool()), json_d(0, "[1, 2]"), stop(0), END]
    [call] = S.extract(message_of(events))
    assert call.error and "object" in call.error and call.raw_arguments == "[1, 2]"


def test_usage_is_replaced_never_added():
    usage = {"input_tokens": 100, "cache_read_input_tokens": 7, "output_tokens": 1, "service_tier": "standard"}
    events = [start(usage=usage),
              msg_delta(usage={"output_tokens": 10}),
              msg_delta(usage={"input_tokens": 100, "output_tokens": 15, "cache_read_input_tokens": None,
                               "output_tokens_details": {"thinking_tokens": 3}}),
              END]
    assert message_of(events)["usage"] == {"input_tokens": 100, "cache_read_input_tokens": 7,
                                           "output_tokens": 15, "service_tier": "standard",
                                           "output_tokens_details": {"thinking_tokens": 3}}


def test_message_delta_sets_every_key_it_carries():
    container = {"id": "container_1", "expires_at": "later"}
    events = [start(), msg_delta("tool_use", stop_details=None, container=container), END]
    message = message_of(events)
    assert message["stop_reason"] == "tool_use" and message["stop_sequence"] is None
    assert message["stop_details"] is None and message["container"] == container


def test_citations_delta_collects_citations():
    cite = {"type": "char_location", "cited_text": "sky", "document_index": 0, "start_char_index": 0,
            "end_char_index": 3}
    events = [start(), block_start(0, {"type": "text", "text": "", "citations": None}), text_d(0, "Blue."),
              delta(0, "citations_delta", citation=cite), stop(0), END]
    assert message_of(events)["content"] == [{"type": "text", "text": "Blue.", "citations": [cite]}]


def test_error_event_raises_provider_error_and_keeps_what_came_before():
    error = {"type": "overloaded_error", "message": "Overloaded"}
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    buffer.add(start())
    buffer.add(block_start(0, TEXT0))
    buffer.add(text_d(0, "partial"))
    with pytest.raises(ProviderError) as caught:
        buffer.add({"type": "error", "error": error})
    assert caught.value.error == error and caught.value.index == 3
    assert "overloaded_error" in str(caught.value)
    assert buffer.as_dict()["content"] == [{"type": "text", "text": "partial"}]
    assert not buffer.is_done()


def test_error_event_as_the_only_event():
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    with pytest.raises(ProviderError):
        buffer.add({"type": "error", "error": {"type": "api_error", "message": "boom"}})
    assert buffer.as_dict() == {"type": "message", "role": "assistant", "content": []}


def test_unknown_event_and_delta_types_after_start_are_ignored():
    events = [start(), {"type": "future_event", "x": 1}, block_start(0, TEXT0),
              delta(0, "future_delta", x=1), text_d(0, "ok"), stop(0),
              block_start(1, {"type": "future_block", "payload": [1]}), delta(1, "future_delta"), stop(1), END]
    acc, shown = feed(events)
    assert shown == "ok"
    assert S.as_message(acc)["content"] == [{"type": "text", "text": "ok"},
                                            {"type": "future_block", "payload": [1]}]


def test_is_done_only_on_message_stop():
    assert S.is_done(END)
    for chunk in [start(), block_start(0, TEXT0), text_d(0, "x"), stop(0), msg_delta(), PING,
                  {"type": "error", "error": {}}, None, [], "message_stop", {"type": ["message_stop"]}]:
        assert S.is_done(chunk) is False


def test_as_message_returns_fresh_objects_and_caches_closed_blocks():
    events = [start(), block_start(0, tool()), json_d(0, '{"a": {"b": [1]}}'), stop(0), msg_delta(), END]
    acc, _ = feed(events)
    first = S.as_message(acc)
    expected = copy.deepcopy(first)
    first["content"][0]["input"]["a"]["b"].append(2)
    first["usage"]["output_tokens"] = 999
    first["content"].clear()
    assert S.as_message(acc) == expected
    assert S.as_message(acc)["content"][0]["input"] is not S.as_message(acc)["content"][0]["input"]


def test_as_message_mid_stream_and_before_start():
    assert S.as_message(S.new_accumulator()) == {"type": "message", "role": "assistant", "content": []}
    acc, _ = feed([start(), block_start(0, tool()), json_d(0, '{"a": ')])
    assert S.as_message(acc)["content"][0]["input"] == '{"a": '
    S.accumulate(acc, json_d(0, "1}"))
    assert S.as_message(acc)["content"][0]["input"] == {"a": 1}


def test_forming_name_tracks_the_last_block():
    acc, _ = feed([start(), block_start(0, TEXT0)])
    assert S.forming_name_of(acc) is None and S.forming_name(S.as_message(acc)) is None
    S.accumulate(acc, block_start(1, tool(name="lookup")))
    assert S.forming_name_of(acc) == "lookup" == S.forming_name(S.as_message(acc))
    S.accumulate(acc, block_start(2, {"type": "server_tool_use", "id": "s", "name": "web", "input": {}}))
    assert S.forming_name_of(acc) is None and S.forming_name(S.as_message(acc)) is None


# -- bad input: each raises the right StreamError, with a useful message --------------------
BAD = [
    ("delta before start", [text_d(0, "x")], EventOutOfOrder, "before message_start"),
    ("block before start", [block_start(0, TEXT0)], EventOutOfOrder, "before message_start"),
    ("stop before start", [END], EventOutOfOrder, "before message_start"),
    ("unknown before start", [{"type": "future"}], EventOutOfOrder, "before message_start"),
    ("delta to unstarted block", [start(), text_d(0, "x")], EventOutOfOrder, "not started"),
    ("negative index", [start(), block_start(0, TEXT0), text_d(-1, "x")], EventOutOfOrder, "not started"),
    ("skipped block index", [start(), block_start(1, TEXT0)], EventOutOfOrder, "index 0"),
    ("bool index", [start(), block_start(False, TEXT0)], MalformedChunk, "index"),
    ("string index", [start(), block_start(0, TEXT0), text_d("0", "x")], MalformedChunk, "index"),
    ("text delta to tool", [start(), block_start(0, tool()), text_d(0, "x")], EventOutOfOrder,
     "input_json_delta"),
    ("json delta to text", [start(), block_start(0, TEXT0), json_d(0, "{")], EventOutOfOrder, "text_delta"),
    ("signature to text", [start(), block_start(0, TEXT0), delta(0, "signature_delta", signature="s")],
     EventOutOfOrder, "a text block"),
    ("delta to redacted", [start(), block_start(0, {"type": "redacted_thinking", "data": "d"}),
                           text_d(0, "x")], EventOutOfOrder, "arrives whole"),
    ("delta after block stop", [start(), block_start(0, TEXT0), stop(0), text_d(0, "x")], EventOutOfOrder,
     "after its content_block_stop"),
    ("second block stop", [start(), block_start(0, TEXT0), stop(0), stop(0)], EventOutOfOrder, "second"),
    ("second message_start", [start(), start()], EventOutOfOrder, "second message_start"),
    ("delta after message_stop", [start(), block_start(0, TEXT0), END, text_d(0, "x")], EventOutOfOrder,
     "after message_stop"),
    ("message_delta after stop", [start(), END, msg_delta()], EventOutOfOrder, "after message_stop"),
    ("second message_stop", [start(), END, END], EventOutOfOrder, "after message_stop"),
    ("text not a string", [start(), block_start(0, TEXT0), text_d(0, 3)], MalformedChunk, "'text'"),
    ("partial_json not a string", [start(), block_start(0, tool()), json_d(0, None)], MalformedChunk,
     "partial_json"),
    ("signature not a string", [start(), block_start(0, {"type": "thinking", "thinking": ""}),
                                delta(0, "signature_delta", signature=1)], MalformedChunk, "signature"),
    ("citation not an object", [start(), block_start(0, TEXT0), delta(0, "citations_delta", citation="c")],
     MalformedChunk, "citation"),
    ("delta not an object",
     [start(), block_start(0, TEXT0), {"type": "content_block_delta", "index": 0, "delta": "x"}],
     MalformedChunk, "delta"),
    ("list chunk", [[1]], MalformedChunk, "list"),
    ("string chunk", ["data: {}"], MalformedChunk, "str"),
    ("none chunk", [None], MalformedChunk, "NoneType"),
    ("no type", [{"index": 0}], MalformedChunk, "type"),
    ("int type", [start(), {"type": 5}], MalformedChunk, "type"),
    ("message not an object", [{"type": "message_start", "message": []}], MalformedChunk, "message"),
    ("content not a list", [{"type": "message_start", "message": {"content": {}}}], MalformedChunk,
     "content"),
    ("content block not an object", [start(["x"])], MalformedChunk, "content[0]"),
    ("usage not an object", [start(usage=[1])], MalformedChunk, "usage"),
    ("tool without name", [start(), block_start(0, {"type": "tool_use", "id": "t", "input": {}})],
     MalformedChunk, "'name'"),
    ("tool input a string", [start(), block_start(0, tool() | {"input": "{}"})], MalformedChunk, "input"),
    ("text block text missing", [start(), block_start(0, {"type": "text"})], MalformedChunk, "'text'"),
    ("block without type", [start(), block_start(0, {"text": ""})], MalformedChunk, "type"),
    ("message_delta without delta", [start(), {"type": "message_delta", "usage": {}}], MalformedChunk,
     "delta"),
    ("message_delta usage a list", [start(), msg_delta(usage=[1])], MalformedChunk, "usage"),
    ("message_delta replacing content", [start(), msg_delta(content=[])], MalformedChunk, "content"),
]


@pytest.mark.parametrize(("events", "error", "words"), [case[1:] for case in BAD], ids=[c[0] for c in BAD])
def test_bad_input_raises_the_right_stream_error(events, error, words):
    acc = S.new_accumulator()
    for event in events[:-1]:
        S.accumulate(acc, event)
    with pytest.raises(error) as caught:
        S.accumulate(acc, events[-1])
    assert words in str(caught.value)
    S.as_message(acc)  # what came before is still readable


def test_buffer_names_the_chunk_index_of_a_bad_event():
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    buffer.add(start())
    with pytest.raises(EventOutOfOrder) as caught:
        buffer.add(text_d(4, "x"))
    assert caught.value.index == 1 and str(caught.value).startswith("chunk 1: ")


# -- messages given to the driver ----------------------------------------------------------
def test_extract_and_content_text_on_request_shape_and_odd_inputs():
    message = {"role": "assistant", "content": [
        {"type": "text", "text": "A"}, tool("t1", "f") | {"input": {"x": "é"}},
        {"type": "tool_use", "id": "t2", "name": "g"},
        {"type": "tool_use", "id": "t3", "name": "h", "input": "{bad"},
        {"type": "text", "text": "B"}]}
    calls = S.extract(message)
    assert calls[:2] == [ExtractedCall("f", {"x": "é"}, "t1"), ExtractedCall("g", {}, "t2")]
    assert calls[2].name == "h" and calls[2].error and calls[2].raw_arguments == "{bad"
    assert S.content_text(message) == "AB"
    for bad in [None, "text", {"content": "x"}, {"content": [1]}]:
        for method in (S.extract, S.content_text, S.forming_name):
            with pytest.raises(MalformedChunk):
                method(bad)
    with pytest.raises(MalformedChunk, match="name"):
        S.extract({"role": "assistant", "content": [{"type": "tool_use", "id": "t"}]})


def test_result_messages_gives_request_shape_and_one_user_message():
    cite = {"type": "char_location", "cited_text": "c", "document_index": 0, "start_char_index": 0,
            "end_char_index": 1}
    server = {"type": "server_tool_use", "id": "srv", "name": "web_search", "input": {"q": "x"},
              "caller": {"type": "direct"}}
    server_result = {"type": "web_search_tool_result", "tool_use_id": "srv", "content": []}
    message = message_of([
        start(), block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        delta(0, "thinking_delta", thinking="hmm"), delta(0, "signature_delta", signature="sig"), stop(0),
        block_start(1, {"type": "redacted_thinking", "data": "opaque"}), stop(1),
        block_start(2, TEXT0), stop(2),
        block_start(3, {"type": "text", "text": "", "citations": None}), text_d(3, "See."),
        delta(3, "citations_delta", citation=cite), stop(3),
        block_start(4, server), stop(4), block_start(5, server_result), stop(5),
        block_start(6, tool("toolu_a", "add", caller={"type": "direct"})), json_d(6, '{"a": 1}'), stop(6),
        block_start(7, tool("toolu_b", "fail")), json_d(7, "{oops"), stop(7),
        msg_delta("tool_use"), END])
    records = [ToolCallRecord("add", {"a": 1}, result={"sum": 1}, tool_call_id="toolu_a"),
               ToolCallRecord("fail", {}, error="arguments are not valid JSON", tool_call_id="toolu_b")]
    snapshot = copy.deepcopy(message)
    history = S.result_messages(message, records)
    assert message == snapshot
    assert history == [
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "text", "text": "See.", "citations": [cite]},
            server, server_result,
            {"type": "tool_use", "id": "toolu_a", "name": "add", "input": {"a": 1},
             "caller": {"type": "direct"}},  # ToolUseBlockParam takes the caller back
            {"type": "tool_use", "id": "toolu_b", "name": "fail", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_a", "content": '{"sum": 1}'},
            {"type": "tool_result", "tool_use_id": "toolu_b", "content": "arguments are not valid JSON",
             "is_error": True}]},
    ]
    history[0]["content"][3]["input"]["q"] = "changed"
    assert message == snapshot  # the history holds copies


def test_result_messages_matches_records_without_ids_by_name_and_order():
    message = message_of([start(), block_start(0, tool("t1", "f")), stop(0), block_start(1, tool("t2", "g")),
                          stop(1), block_start(2, tool("t3", "f")), stop(2), END])
    records = [ToolCallRecord("f", {}, result="one"), ToolCallRecord("g", {}, result=None),
               ToolCallRecord("f", {}, result="two")]
    results = S.result_messages(message, records)[1]["content"]
    assert [(r["tool_use_id"], r["content"]) for r in results] == [("t1", "one"), ("t2", ""), ("t3", "two")]
    turn = [{"type": "tool_use", "id": f"t{i}", "name": name, "input": {}}
            for i, name in ((1, "f"), (2, "g"), (3, "f"))]
    assert S.result_messages(message, []) == [{"role": "assistant", "content": turn}]


# -- generated streams: the official SDK as oracle, round trip, no mutation -----------------
def cut(draw, text):
    """`text` cut at a few drawn points (duplicates give empty fragments)."""
    points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


tool_inputs = st.dictionaries(
    st.text(max_size=8),
    st.recursive(st.none() | st.booleans() | st.integers(-2**53, 2**53)
                 | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
                 lambda inner: st.lists(inner, max_size=3)
                 | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                 max_leaves=6),
    max_size=4,
)
CITATION = {"type": "char_location", "cited_text": "c", "document_index": 0, "document_title": None,
            "start_char_index": 0, "end_char_index": 1}


@st.composite
def streams(draw):
    """(native message, events without pings, events with pings) for a drawn Message."""
    kinds = draw(st.lists(st.sampled_from(["text", "thinking", "redacted", "tool", "server"]),
                          max_size=6).filter(lambda ks: ks.count("tool") <= 3))
    content, body = [], []
    for kind in kinds:
        index = len(content)
        if kind == "server":  # a server tool streams its input like tool_use, then its result
            value = draw(tool_inputs)
            block = {"type": "server_tool_use", "id": f"srvtoolu_{index}", "name": "web_search",
                     "input": value}
            result = {"type": "web_search_tool_result", "tool_use_id": block["id"], "content": []}
            body += [block_start(index, block | {"input": {}}),
                     *[json_d(index, p) for p in cut(draw, json.dumps(value))], stop(index),
                     block_start(index + 1, result), stop(index + 1)]
            content += [block, result]
            continue
        if kind == "text":
            text = draw(st.text(max_size=20))
            cites = draw(st.integers(0, 2))
            block = {"type": "text", "text": text} | ({"citations": [CITATION] * cites} if cites else {})
            pieces = [p for p in cut(draw, text) if p or draw(st.booleans())]
            body += [block_start(index, TEXT0), *[text_d(index, p) for p in pieces],
                     *[delta(index, "citations_delta", citation=CITATION) for _ in range(cites)], stop(index)]
        elif kind == "thinking":
            thinking = draw(st.text(max_size=20))
            signature = draw(st.text("abcXYZ+/=", min_size=1, max_size=12))
            block = {"type": "thinking", "thinking": thinking, "signature": signature}
            body += [block_start(index, {"type": "thinking", "thinking": "", "signature": ""}),
                     *[delta(index, "thinking_delta", thinking=p) for p in cut(draw, thinking)],
                     delta(index, "signature_delta", signature=signature), stop(index)]
        elif kind == "redacted":
            block = {"type": "redacted_thinking", "data": draw(st.text("abc=", min_size=1, max_size=8))}
            body += [block_start(index, block), stop(index)]
        else:
            value = draw(tool_inputs)
            name = draw(st.sampled_from(["f", "get_x", "ü"]))
            block = {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": value}
            if draw(st.booleans()):  # a programmatic call, made by code the provider ran
                block["caller"] = {"type": "code_execution_20250825", "tool_id": "srvtoolu_0"}
            text = json.dumps(value, ensure_ascii=draw(st.booleans()))
            if not value and draw(st.booleans()):
                text = ""  # what real streams send for a call without arguments
            body += [block_start(index, block | {"input": {}}), *[json_d(index, p) for p in cut(draw, text)],
                     stop(index)]
        content.append(block)
    usage_in, usage_out = draw(st.integers(0, 10**6)), draw(st.integers(1, 10**6))
    stop_reason = "tool_use" if "tool" in kinds else "end_turn"
    events = [start(usage={"input_tokens": usage_in, "output_tokens": 1}), *body,
              msg_delta(stop_reason, {"output_tokens": usage_out}), END]
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
               "content": content, "stop_reason": stop_reason, "stop_sequence": None,
               "usage": {"input_tokens": usage_in, "output_tokens": usage_out}}
    pinged = list(events)
    for position in sorted(draw(st.lists(st.integers(0, len(events)), max_size=4)), reverse=True):
        pinged.insert(position, PING)
    return message, events, pinged


def assert_agrees(ours, theirs, path="message"):
    """Equal on every field we define; a field only the SDK has must be None (unset)."""
    if isinstance(ours, dict):
        assert isinstance(theirs, dict), path
        for key, value in ours.items():
            assert key in theirs, f"{path}.{key} missing from the SDK snapshot"
            assert_agrees(value, theirs[key], f"{path}.{key}")
        for key in theirs.keys() - ours.keys():
            assert theirs[key] is None, f"{path}.{key} = {theirs[key]!r} only in the SDK snapshot"
    elif isinstance(ours, list):
        assert isinstance(theirs, list) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_agrees(a, b, f"{path}[{i}]")
    else:
        assert ours == theirs, f"{path}: {ours!r} != {theirs!r}"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(streams())
def test_agrees_with_the_official_sdk_accumulator(drawn):
    message, events, pinged = drawn
    snapshot, json_bufs = None, {}
    for event in events:  # the SDK's transport drops pings before accumulate_event sees them
        snapshot = accumulate_event(event=copy.deepcopy(event), current_snapshot=snapshot, json_bufs=json_bufs)
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    for event in pinged:
        buffer.add(event)
    ours = buffer.as_dict()
    assert_agrees(ours, snapshot.to_dict())
    sdk_calls = [(b.name, b.input, b.id) for b in snapshot.content if b.type == "tool_use"]
    assert [(c.name, c.arguments, c.id) for c in S.extract(ours)] == sdk_calls
    assert [b.to_dict() for b in snapshot.content if b.type != "text"] == [
        b for b in ours["content"] if b["type"] != "text"]  # server blocks included


@settings(max_examples=150, deadline=None)
@given(streams())
def test_round_trip_display_prefix_and_no_mutation(drawn):
    message, _, pinged = drawn
    frozen = copy.deepcopy(pinged)
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    shown = ""
    for event in pinged:
        shown += buffer.add(event)
        so_far = buffer.as_dict()
        assert S.recognizes(so_far)
        assert S.content_text(so_far) == shown  # display deltas are exactly the visible text
    assert pinged == frozen  # events are never mutated
    assert buffer.is_done()
    assert buffer.as_dict() == message
    assert S.extract(message) == [ExtractedCall(b["name"], b["input"], b["id"])
                                  for b in message["content"] if b["type"] == "tool_use"]
    history = S.result_messages(message, [ToolCallRecord(c.name, c.arguments, "ok", None, c.id)
                                          for c in S.extract(message)])
    assert message == buffer.as_dict()  # result_messages did not touch the message either
    assert history[0]["role"] == "assistant"
    if any(b["type"] == "tool_use" for b in message["content"]):
        assert [r["tool_use_id"] for r in history[1]["content"]] == [
            b["id"] for b in message["content"] if b["type"] == "tool_use"]


# -- garbage: only StreamError, from the strategy and from the buffer ----------------------
EVENT_TYPES = ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
               "message_delta", "message_stop", "ping", "error", "future"]
DELTA_TYPES = ["text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta", "x"]
BLOCK_TYPES = ["text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "other"]
small = st.one_of(json_values, st.integers(-2, 3))
deltas = st.fixed_dictionaries({"type": st.sampled_from(DELTA_TYPES)}, optional={
    "text": small, "partial_json": small, "thinking": small, "signature": small, "citation": small})
blocks = st.fixed_dictionaries({"type": st.sampled_from(BLOCK_TYPES)}, optional={
    "text": small, "thinking": small, "signature": small, "data": small, "id": small, "name": small,
    "input": small})
event_like = st.fixed_dictionaries({"type": st.sampled_from(EVENT_TYPES) | small}, optional={
    "index": small, "delta": deltas | small, "content_block": blocks | small, "usage": small,
    "error": small,
    "message": st.fixed_dictionaries({"content": st.lists(blocks | small, max_size=2) | small},
                                     optional={"usage": small, "id": small}) | small,
})
garbage = st.one_of(json_values, event_like)


def read_everything(acc):
    """Reading the message back may only raise StreamError, never anything else."""
    message = S.as_message(acc)
    assert S.forming_name_of(acc) in (None, *[b.get("name") for b in message["content"]])
    for method in (S.extract, S.content_text, S.forming_name):
        try:
            method(message)
        except StreamError:
            pass


@settings(max_examples=300, deadline=None)
@given(st.lists(garbage, max_size=8), st.booleans())
def test_garbage_raises_only_stream_errors_from_accumulate(chunks, prefix):
    acc = S.new_accumulator()
    if prefix:
        S.accumulate(acc, start())
        S.accumulate(acc, block_start(0, TEXT0))
    frozen = copy.deepcopy(chunks)
    for chunk in chunks:
        try:
            assert isinstance(S.accumulate(acc, chunk), str)
        except StreamError:
            pass
        S.is_done(chunk)
        read_everything(acc)
    assert chunks == frozen


@settings(max_examples=300, deadline=None)
@given(st.lists(garbage, min_size=1, max_size=8))
def test_garbage_raises_only_stream_errors_from_the_buffer(chunks):
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    for chunk in chunks:
        try:
            buffer.add(chunk)
        except StreamError as error:
            assert error.index is not None
        buffer.as_dict()


@settings(max_examples=150, deadline=None)
@given(streams().flatmap(lambda drawn: st.permutations(drawn[2])))
def test_shuffled_events_raise_only_stream_errors(events):
    acc = S.new_accumulator()
    for event in events:
        try:
            S.accumulate(acc, event)
        except StreamError:
            pass
        read_everything(acc)

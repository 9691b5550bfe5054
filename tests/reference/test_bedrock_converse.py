"""`BedrockConverseStrategy`: `converse-stream` events into the whole `Converse` response.

botocore is the oracle of the shapes. `valid(value, shape)` runs botocore's `ParamValidator`
on a dict against a shape of the `bedrock-runtime` service model: the check botocore runs on
every request's parameters, which walks any shape (types, required members, unknown keys,
one member per union), so it serves for the output shape `ConverseResponse` and for the
request's `Message` too. Serializing would not: botocore's serializers write requests only,
and an output shape is never serialized. boto3's own event parser (`EventStreamJSONParser`
over `EventStream`) reads the bodies our encoder writes, so the chunks boto3 yields and the
chunks our decoder yields are checked to reassemble alike.
"""
from __future__ import annotations

import base64
import copy

import botocore.session
import pytest
from botocore.eventstream import EventStream
from botocore.exceptions import EventStreamError
from botocore.parsers import EventStreamJSONParser
from botocore.validate import ParamValidator

import mcs_reference.bedrock_converse as module
from mcs_reference import (BaseDriver, BedrockConverseStrategy, EventOutOfOrder, ExtractedCall,
                           LLMStreamBuffer, MalformedChunk, ProviderError, StreamError,
                           default_chain, encode_chunk_frame)
from mcs_reference.calls import ToolCallRecord
from mcs_reference.sse import decode_body

MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")
RESPONSE = MODEL.operation_model("Converse").output_shape
EVENT = MODEL.operation_model("ConverseStream").output_shape.members["stream"]
S = BedrockConverseStrategy()
USAGE = {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15}
TAIL = [{"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": USAGE, "metrics": {"latencyMs": 42}}}]
REDACTED = base64.b64encode(b"\x00secret\xff").decode()
SIG = "RXJjQkNrZ0lCaEFCR0FJaVFE"


def valid(value: dict, shape=RESPONSE) -> bool:
    """Does botocore's ParamValidator accept `value` as `shape` (see the module docstring)?"""
    report = ParamValidator().validate(value, shape)
    assert not report.has_errors(), report.generate_report()
    return True


def start(index: int, **kind) -> dict:
    return {"contentBlockStart": {"contentBlockIndex": index, "start": kind}}


def tool_start(index: int, name: str, id: str, **extra) -> dict:
    return start(index, toolUse={"toolUseId": id, "name": name, **extra})


def delta(index: int, **kind) -> dict:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": kind}}


def stop(index: int) -> dict:
    return {"contentBlockStop": {"contentBlockIndex": index}}


def stream(*events: dict, tail=TAIL) -> list[dict]:
    return [{"messageStart": {"role": "assistant"}}, *events, *tail]


def run(chunks: list) -> tuple[dict, str, LLMStreamBuffer]:
    buf = LLMStreamBuffer()
    shown = buf.add_all(chunks)
    assert buf.strategy.name == "bedrock-converse"
    return buf.as_dict(), shown, buf


def content(message: dict) -> list[dict]:
    return message["output"]["message"]["content"]


def boto3_events(chunks: list) -> list[dict]:
    """The chunks boto3's `converse_stream()` yields for the body our encoder writes."""
    class Body:
        def stream(self):
            yield b"".join(encode_chunk_frame(chunk) for chunk in chunks)

    return list(EventStream(Body(), EVENT, EventStreamJSONParser(), "ConverseStream"))


EVERY_KIND = stream(
    {"contentBlockDelta": {"contentBlockIndex": 0, "p": "pad",
                           "delta": {"reasoningContent": {"text": "Let me"}}}},
    delta(0, reasoningContent={"text": " think."}),
    delta(0, reasoningContent={"signature": SIG}), stop(0),
    delta(1, reasoningContent={"redactedContent": REDACTED}), stop(1),
    delta(2, text="Sure, "), delta(2, text="checking."), stop(2),
    tool_start(3, "get_weather", "tooluse_a", type="tool_use"),
    delta(3, toolUse={"input": ""}), delta(3, toolUse={"input": '{"city": "Pa'}),
    delta(3, toolUse={"input": 'ris"}'}), stop(3),
    tool_start(4, "code_interpreter", "tooluse_s", type="server_tool_use"),
    delta(4, toolUse={"input": '{"snippet": "1+1"}'}), stop(4),
    start(5, toolResult={"toolUseId": "tooluse_s", "status": "success", "type": "x_result"}),
    delta(5, toolResult=[{"json": {"stdOut": "2"}}]), delta(5, toolResult=[{"text": "done"}]),
    stop(5),
    delta(6, text="As cited"), delta(6, citation={"title": "Doc", "location": {
        "documentChar": {"documentIndex": 0, "start": 0, "end": 4}}}), stop(6),
    delta(7, citation={"title": "Other", "sourceContent": [{"text": "src"}]}), stop(7),
    start(8, image={"format": "png"}), delta(8, image={"source": {"bytes": "aW1n"}}), stop(8),
)
EVERY_BLOCK = [
    {"reasoningContent": {"reasoningText": {"text": "Let me think.", "signature": SIG}}},
    {"reasoningContent": {"redactedContent": REDACTED}},
    {"text": "Sure, checking."},
    {"toolUse": {"toolUseId": "tooluse_a", "name": "get_weather", "input": {"city": "Paris"},
                 "type": "tool_use"}},
    {"toolUse": {"toolUseId": "tooluse_s", "name": "code_interpreter",
                 "input": {"snippet": "1+1"}, "type": "server_tool_use"}},
    {"toolResult": {"toolUseId": "tooluse_s", "content": [{"json": {"stdOut": "2"}},
                                                          {"text": "done"}],
                    "status": "success", "type": "x_result"}},
    {"citationsContent": {"content": [{"text": "As cited"}], "citations": [{"title": "Doc",
        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 4}}}]}},
    {"citationsContent": {"citations": [{"title": "Other", "sourceContent": [{"text": "src"}]}]}},
    {"image": {"format": "png", "source": {"bytes": "aW1n"}}},
]


def test_identity_and_place_in_the_default_chain():
    names = [strategy.name for strategy in default_chain()]
    assert names[-3:] == ["gemini", "bedrock-converse", "text-json"]
    assert S.name == "bedrock-converse" and S.leaks_into_text


def test_every_block_kind_reassembles_into_the_converse_response():
    message, shown, buf = run(EVERY_KIND)
    assert content(message) == EVERY_BLOCK
    assert message == {"output": {"message": {"role": "assistant", "content": EVERY_BLOCK}},
                       "stopReason": "tool_use", "usage": USAGE, "metrics": {"latencyMs": 42}}
    assert valid(message) and buf.is_done()
    assert shown == "Sure, checking.As cited" == S.content_text(message)
    assert S.extract(message) == [ExtractedCall("get_weather", {"city": "Paris"}, "tooluse_a")]
    assert buf.forming_name() == S.forming_name(message) == "code_interpreter"


def test_boto3s_own_chunks_reassemble_to_the_same_response():
    events = boto3_events(EVERY_KIND)
    assert events[1] == {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {
        "reasoningContent": {"text": "Let me"}}}}  # boto3 drops the padding
    assert events[5]["contentBlockDelta"]["delta"]["reasoningContent"]["redactedContent"] == (
        b"\x00secret\xff")  # and gives bytes, read back as the wire's base64
    assert run(events)[0] == run(EVERY_KIND)[0]
    body = b"".join(encode_chunk_frame(chunk) for chunk in EVERY_KIND)
    assert decode_body(body, format="eventstream") == EVERY_KIND


def test_parallel_tool_blocks_even_interleaved_keep_index_order():
    message, _, buf = run(stream(
        delta(0, text="Two cities."), stop(0),
        tool_start(1, "weather", "tooluse_1"), tool_start(2, "weather", "tooluse_2"),
        delta(2, toolUse={"input": '{"city": "Rome"}'}),
        delta(1, toolUse={"input": '{"city": '}), delta(1, toolUse={"input": '"Oslo"}'}),
        stop(2), stop(1)))
    assert S.extract(message) == [ExtractedCall("weather", {"city": "Oslo"}, "tooluse_1"),
                                  ExtractedCall("weather", {"city": "Rome"}, "tooluse_2")]
    assert valid(message) and buf.forming_name() == "weather"


def test_an_empty_first_input_delta_a_tool_without_deltas_and_one_whole_delta():
    message, _, _ = run(stream(
        tool_start(0, "a", "t0"), delta(0, toolUse={"input": ""}),
        delta(0, toolUse={"input": '{"x": 1}'}), stop(0),
        tool_start(1, "no_args", "t1"), stop(1),  # no delta at all
        tool_start(2, "b", "t2"), delta(2, toolUse={"input": '{"deep": {"y": [1, 2]}}'}), stop(2),
        tool_start(3, "c", "t3"), delta(3, toolUse={"input": ""}), stop(3)))  # only ""
    assert [block["toolUse"]["input"] for block in content(message)] == [
        {"x": 1}, {}, {"deep": {"y": [1, 2]}}, {}]
    assert valid(message)


def test_invalid_joined_json_is_kept_as_text_and_becomes_a_failed_call_record():
    chunks = stream(tool_start(0, "get_weather", "tooluse_cut"),
                    delta(0, toolUse={"input": '{"city": "Par'}), stop(0),
                    tail=[{"messageStop": {"stopReason": "max_tokens"}}, TAIL[1]])
    message, _, _ = run(chunks)
    assert content(message)[0]["toolUse"]["input"] == '{"city": "Par'
    [call] = S.extract(message)
    assert call.error and call.arguments == {} and call.raw_arguments == '{"city": "Par'
    ran = []
    reply = BaseDriver({"get_weather": lambda city: ran.append(city)}).process_llm_response(message)
    assert reply.call_failed and not ran and reply.executed_calls[0].error
    assert reply.executed_calls[0].tool_call_id == "tooluse_cut"


@pytest.mark.parametrize("text", ["null", "[1, 2]", '"{}"', "3"])
def test_input_that_is_json_but_no_object_is_kept_as_text_and_never_runs(text):
    message, _, _ = run(stream(tool_start(0, "f", "t"), delta(0, toolUse={"input": text}),
                               stop(0)))
    assert content(message)[0]["toolUse"]["input"] == text
    [call] = S.extract(message)
    assert call.error and call.raw_arguments == text and call.arguments == {}
    ran = []
    assert BaseDriver({"f": lambda **kw: ran.append(kw)}).process_llm_response(message).call_failed
    assert ran == []


def test_server_tool_use_and_answered_calls_are_not_extracted():
    message, _, _ = run(stream(
        tool_start(0, "nova_code_interpreter", "tooluse_s", type="server_tool_use"),
        delta(0, toolUse={"input": "{}"}), stop(0),
        tool_start(1, "web_search", "tooluse_w"), delta(1, toolUse={"input": "{}"}), stop(1),
        start(2, toolResult={"toolUseId": "tooluse_w"}), delta(2, toolResult=[{"text": "ok"}]),
        stop(2),
        tool_start(3, "final_result", "tooluse_f", type="tool_use"), stop(3)))
    assert S.extract(message) == [ExtractedCall("final_result", {}, "tooluse_f")]
    assert valid(message)


@pytest.mark.parametrize("name", ["throttlingException", "modelStreamErrorException",
                                  "validationException", "internalServerException",
                                  "serviceUnavailableException", "modelTimeoutException"])
def test_an_exception_event_is_a_provider_error_and_keeps_what_came_before(name):
    buf = LLMStreamBuffer()
    buf.add_all(stream(delta(0, text="Hel"), tail=[]))
    payload = {"message": "Too many requests", "originalStatusCode": 429, "p": "xx"}
    with pytest.raises(ProviderError) as caught:
        buf.add({name: payload})
    assert caught.value.error == {"type": name, "message": "Too many requests",
                                  "originalStatusCode": 429}
    assert caught.value.index == 2 and caught.value.message == "Too many requests"
    assert content(buf.as_dict()) == [{"text": "Hel"}] and not buf.is_done()
    if name != "modelTimeoutException":  # not in the model's event union
        with pytest.raises(EventStreamError, match="Too many requests"):
            boto3_events([{name: {"message": "Too many requests"}}])


def test_the_padding_field_is_ignored_everywhere():
    padded = stream(
        delta(0, text="Hi", p="abc"),
        {"contentBlockStop": {"contentBlockIndex": 0, "p": "abcdef"}},
        {"contentBlockStart": {"contentBlockIndex": 1, "p": "ab", "start": {
            "p": "x", "toolUse": {"toolUseId": "t", "name": "n", "p": "y"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "p": "abc",
                               "delta": {"toolUse": {"input": "{}"}}}}, stop(1),
        tail=[{"messageStop": {"stopReason": "tool_use", "p": "a"}},
              {"metadata": {"usage": USAGE, "metrics": {"latencyMs": 1}, "p": "abcd"}}])
    plain = stream(delta(0, text="Hi"), stop(0), tool_start(1, "n", "t"),
                   delta(1, toolUse={"input": "{}"}), stop(1),
                   tail=[{"messageStop": {"stopReason": "tool_use"}},
                         {"metadata": {"usage": USAGE, "metrics": {"latencyMs": 1}}}])
    padded[0]["messageStart"]["p"] = "abcdefg"
    assert run(padded)[0] == run(plain)[0] and "'p'" not in repr(run(padded)[0])
    assert valid(run(padded)[0])


def test_before_the_stop_and_the_metadata_the_response_has_what_came():
    buf = LLMStreamBuffer()
    buf.add({"messageStart": {"role": "assistant"}})
    assert buf.as_dict() == {"output": {"message": {"role": "assistant", "content": []}}}
    buf.add_all([delta(0, text="Hi"), stop(0), TAIL[0]])
    assert buf.as_dict()["stopReason"] == "tool_use" and "usage" not in buf.as_dict()
    assert not buf.is_done()
    buf.add(TAIL[1])
    assert buf.is_done() and valid(buf.as_dict())


def test_messagestop_and_metadata_fields_are_copied_and_the_last_wins():
    extra = {"additionalModelResponseFields": {"delta": {"stop_sequence": None}}}
    message, _, _ = run(stream(delta(0, text="x"), stop(0), tail=[
        {"messageStop": {"stopReason": "end_turn", **extra}},
        {"metadata": {"usage": USAGE, "metrics": {"latencyMs": 1}, "trace": {"guardrail": {}},
                      "serviceTier": {"type": "priority"}}},
        {"metadata": {"usage": {**USAGE, "totalTokens": 16}, "metrics": {"latencyMs": 2}}}]))
    assert message["additionalModelResponseFields"] == extra["additionalModelResponseFields"]
    assert message["usage"]["totalTokens"] == 16 and message["metrics"] == {"latencyMs": 2}
    assert message["trace"] == {"guardrail": {}} and valid(message)


def test_a_lone_empty_text_block_is_kept_and_boto3_bytes_are_read_as_base64():
    message, shown, _ = run(stream(
        delta(0, text=""), stop(0),
        delta(1, reasoningContent={"redactedContent": b"ab"}),
        delta(1, reasoningContent={"redactedContent": "Y2Q="}), stop(1),
        delta(2, reasoningContent={"signature": SIG}), stop(2)))
    assert content(message) == [
        {"text": ""}, {"reasoningContent": {"redactedContent": "YWI=Y2Q="}},
        {"reasoningContent": {"reasoningText": {"text": "", "signature": SIG}}}]
    assert shown == "" and valid(message)


def test_result_messages_send_the_turn_back_in_the_request_shape():
    message, _, _ = run(EVERY_KIND[:13] + TAIL)
    records = [ToolCallRecord("get_weather", {"city": "Paris"}, {"temp": 18},
                              tool_call_id="tooluse_a"),
               ToolCallRecord("get_weather", {}, "sunny", tool_call_id="tooluse_b"),
               ToolCallRecord("get_weather", {}, error="boom", tool_call_id="tooluse_c"),
               ToolCallRecord("get_weather", {}, [1, object()], tool_call_id="tooluse_d")]
    assistant, user = S.result_messages(message, records)
    assert assistant == {"role": "assistant", "content": content(message)}
    assert [block["toolResult"] for block in user["content"]] == [
        {"toolUseId": "tooluse_a", "content": [{"json": {"temp": 18}}], "status": "success"},
        {"toolUseId": "tooluse_b", "content": [{"text": "sunny"}], "status": "success"},
        {"toolUseId": "tooluse_c", "content": [{"text": "boom"}], "status": "error"},
        {"toolUseId": "tooluse_d", "content": [{"text": str(records[3].result)}],
         "status": "success"}]
    assert user["role"] == "user"
    for turn in (assistant, user):
        assert valid(turn, MODEL.shape_for("Message"))
    assert S.result_messages(message, []) == [assistant]
    assistant["content"][0]["reasoningContent"]["reasoningText"]["text"] = "changed"
    assert content(message)[0]["reasoningContent"]["reasoningText"]["text"] == "Let me think."


def test_the_driver_runs_a_streamed_call_and_writes_the_history():
    driver = BaseDriver({"get_weather": lambda city: f"18 in {city}"})
    buf = driver.new_stream_buffer()
    for chunk in EVERY_KIND:
        buf.add(chunk)
        reply = driver.process_llm_response(buf)
    assert reply.call_executed and reply.executed_calls[0].result == "18 in Paris"
    assert reply.messages[-1]["content"][0]["toolResult"]["toolUseId"] == "tooluse_a"


def test_the_forming_name_follows_the_stream_in_constant_time():
    acc = S.new_accumulator()
    for chunk in EVERY_KIND:
        S.accumulate(acc, chunk)
        assert S.forming_name_of(acc) == S.forming_name(S.as_message(acc))


def test_tool_input_is_parsed_once_a_block_is_stopped(monkeypatch):
    parsed = []
    real = module._parse_input
    monkeypatch.setattr(module, "_parse_input", lambda text: parsed.append(text) or real(text))
    acc = S.new_accumulator()
    for chunk in stream(tool_start(0, "f", "t"), *[delta(0, toolUse={"input": piece})
                                                   for piece in ('{"a": "', "x" * 10, '"}')],
                        tail=[]):
        S.accumulate(acc, chunk)
        assert parsed == []  # deltas only append
    S.accumulate(acc, stop(0))
    for _ in range(3):
        assert content(S.as_message(acc))[0]["toolUse"]["input"] == {"a": "x" * 10}
    assert parsed == ['{"a": "xxxxxxxxxx"}']
    cut = S.new_accumulator()  # a block cut by max_tokens never stops: the message end freezes it
    for chunk in stream(tool_start(0, "f", "t"), delta(0, toolUse={"input": '{"a'})):
        S.accumulate(cut, chunk)
    parsed.clear()
    for _ in range(3):
        assert content(S.as_message(cut))[0]["toolUse"]["input"] == '{"a'
    assert parsed == ['{"a']


def test_as_message_hands_out_fresh_objects_and_chunks_are_not_kept():
    chunks = copy.deepcopy(EVERY_KIND)
    acc = S.new_accumulator()
    for chunk in chunks:
        S.accumulate(acc, chunk)
    assert chunks == EVERY_KIND
    first = S.as_message(acc)
    content(first)[3]["toolUse"]["input"]["city"] = "changed"
    chunks[2]["contentBlockDelta"]["delta"]["reasoningContent"]["text"] = "changed"
    assert S.as_message(acc) == run(EVERY_KIND)[0]


CONVERSE_SHAPES = [*EVERY_KIND, {"throttlingException": {"message": "slow"}},
                   {"output": {"message": {"role": "assistant", "content": []}},
                    "stopReason": "end_turn"}, {"output": {}, "stopReason": "end_turn"}]


@pytest.mark.parametrize("shape", CONVERSE_SHAPES)
def test_converse_shapes_are_claimed_by_this_strategy_only(shape):
    assert S.recognizes(shape)
    assert [s.name for s in default_chain() if s.recognizes(shape)] == ["bedrock-converse"]
    if not any(key.endswith("Exception") for key in shape):  # the text wire's native keys
        assert not default_chain().text_strategies()[0].recognizes({**shape, "content": "x"})


@pytest.mark.parametrize("shape", [
    {"choices": []}, {"type": "message_start", "message": {}}, {"candidates": []},
    {"message": {"role": "assistant", "content": ""}, "done": True},
    {"type": "response.completed", "response": {"output": []}},
    {"output": [], "status": "completed"}, {"messageStart": "x"}, {"messageStart": {}, "x": {}},
    {"someEvent": {}}, "text", None, [], {1: {}},
])
def test_recognizes_nothing_else(shape):
    assert not S.recognizes(shape)


def test_recognizes_never_raises():
    class Hostile(dict):
        def items(self):
            raise RuntimeError("no")

    assert not S.recognizes(Hostile(a=1))


@pytest.mark.parametrize("bad, says", [
    ("text", "chunk is a str"),
    ({"messageStart": {"role": "assistant"}, "metadata": {}}, "with keys"),
    ({"messageStart": []}, "payload is a list"),
    ({"messageStart": {"role": 1}}, "messageStart.role"),
    ({"unknownEvent": {}}, "unknown event"),
    (delta(-1, text="x"), "contentBlockIndex is -1"),
    ({"contentBlockDelta": {"delta": {"text": "x"}}}, "contentBlockIndex is None"),
    (delta(5, text=1), ".text is a int"),
    (delta(5, text="a", toolUse={"input": ""}), "has keys"),
    (delta(5), "has keys []"),
    (delta(5, audio={}), "has keys ['audio']"),
    (delta(0, toolUse={"input": 3}), "no string 'input'"),
    (delta(0, toolUse="x"), "no string 'input'"),
    (delta(0, toolUse={"input": "x"}, text="y"), "has keys"),
    (delta(False, toolUse={"input": "x"}), "contentBlockIndex is False"),
    (delta(0.0, toolUse={"input": "x"}), "contentBlockIndex is 0.0"),
    ({"contentBlockDelta": {"contentBlockIndex": 0, "delta": []}}, "delta is a list"),
    (delta(5, reasoningContent={"text": "a", "signature": "b"}), "has keys"),
    (delta(5, reasoningContent={"signature": None}), "signature is a NoneType"),
    (delta(0, toolResult={"text": "x"}), "toolResult is not a list"),
    (delta(5, citation="x"), "citation is a str"),
    (start(5, toolUse={"name": "n"}), "toolUse.toolUseId is NoneType"),
    (start(5, toolUse={"toolUseId": "t", "name": "n", "type": 3}), "type is int"),
    (start(5, toolResult={"status": "success"}), "toolResult.toolUseId"),
    (start(5, video={}), "has keys ['video']"),
    ({"contentBlockStart": {"contentBlockIndex": 5}}, "is a NoneType, not an object"),
    ({"messageStop": {}}, "stopReason is None"),
    ({"metadata": {"usage": []}}, "metadata.usage is a list"),
    ({"metadata": {"output": {}}}, "carries 'output'"),
])
def test_a_malformed_event_says_what_and_leaves_no_trace(bad, says):
    acc = S.new_accumulator()
    for chunk in stream(tool_start(0, "f", "t"), delta(0, toolUse={"input": '{"a"'}), tail=[]):
        S.accumulate(acc, chunk)
    before = S.as_message(acc)
    with pytest.raises(MalformedChunk, match=None) as caught:
        S.accumulate(acc, bad)
    assert says in str(caught.value) and caught.value.expected
    assert S.as_message(acc) == before and S.forming_name_of(acc) == "f"


@pytest.mark.parametrize("events, says", [
    ([{"messageStart": {"role": "assistant"}}], "messageStart after the message began"),
    ([delta(0, text="b")], "block 0 after its contentBlockStop"),
    ([delta(1, toolUse={"input": "{}"})], "a toolUse delta for block 1, a text block"),
    ([delta(2, reasoningContent={"text": "x"})], "a reasoningText delta for block 2, a toolUse"),
    ([delta(3, toolUse={"input": "{}"})], "which no start opened"),
    ([tool_start(1, "f", "t")], "a second start for block 1"),
    ([tool_start(0, "f", "t")], "a second start for block 0"),
    ([stop(0)], "was already stopped"), ([stop(7)], "never began"),
    ([delta(3, text="x"), delta(2, text="y")], "a text delta for block 2, a toolUse"),
    ([delta(4, text="x"), tool_start(3, "f", "t")], "opens block 3 after block 4"),
    ([TAIL[0], delta(3, text="x")], "contentBlockDelta after messageStop"),
    ([TAIL[0], delta(2, toolUse={"input": "{}"})], "contentBlockDelta after messageStop"),
    ([TAIL[1], delta(1, text="x")], "contentBlockDelta after metadata"),
    ([TAIL[1], stop(2)], "contentBlockStop after metadata"),
])
def test_events_out_of_order_are_refused(events, says):
    chunks = stream(delta(0, text="a"), stop(0), delta(1, text="b"), tool_start(2, "f", "t"),
                    tail=[])
    acc = S.new_accumulator()
    for chunk in chunks + events[:-1]:
        S.accumulate(acc, chunk)
    before = S.as_message(acc)
    with pytest.raises(EventOutOfOrder, match=says):
        S.accumulate(acc, events[-1])
    assert S.as_message(acc) == before


def test_a_stream_without_message_start_and_metadata_before_message_stop():
    """The shape of vercel/ai's hand-written fixtures: taken, the role defaults."""
    message, _, buf = run([delta(0, text="x"), stop(0), TAIL[1], TAIL[0]])
    assert message["output"]["message"]["role"] == "assistant" and buf.is_done()
    assert message["stopReason"] == "tool_use" and valid(message)


def test_a_bad_chunk_in_a_buffer_names_its_position():
    buf = LLMStreamBuffer()
    buf.add({"messageStart": {"role": "assistant"}})
    with pytest.raises(StreamError) as caught:
        buf.add(delta(0, toolUse="x"))
    assert caught.value.index == 1


@pytest.mark.parametrize("body", [
    "text", {}, {"output": []}, {"output": {"message": {"content": "x"}}},
    {"output": {"message": {"content": ["x"]}}},
])
def test_reading_a_bad_response_raises_a_stream_error(body):
    with pytest.raises(MalformedChunk):
        S.extract(body)
    with pytest.raises(MalformedChunk):
        S.content_text(body)


def test_a_response_without_a_message_and_odd_tool_blocks_are_read_safely():
    assert S.extract({"output": {}, "stopReason": "end_turn"}) == []
    odd = {"output": {"message": {"role": "assistant", "content": [
        {"toolUse": "x"}, {"toolUse": {"toolUseId": "t", "input": {}}},
        {"toolUse": {"name": "f", "input": [1]}}]}}}
    found = S.extract(odd)
    assert [call.error is not None for call in found] == [True, True, True]
    assert found[1].id == "t" and S.forming_name(odd) == "f"

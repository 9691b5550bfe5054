"""OpenAIChatStrategy: the quirks of real servers, bad input, and the official SDK as oracle.

Streams here are written by hand after the quirks listed in shared QUIRKS.md (no recording is
copied); the oracle test generates streams with Hypothesis and feeds the same chunks to
openai's `ChatCompletionStreamState`.
"""
from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from mcs_reference import (
    ExtractedCall,
    LLMStreamBuffer,
    OpenAIChatStrategy,
    ProviderError,
    StreamError,
    ToolCallRecord,
)
from mcs_reference.errors import MalformedChunk, UnrecognisedStream
from mcs_reference.sse import decode_body

ID = "chatcmpl-test1"


def chunk(*deltas: Any, finish: str | None = None, index: int = 0, **top: Any) -> dict:
    """One chunk; each positional delta becomes one choice entry (same `index`)."""
    choices = [
        {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
        for delta in (deltas or ({},))
    ]
    body = {"id": ID, "object": "chat.completion.chunk", "created": 1700000000,
            "model": "gpt-test", "choices": choices}
    body.update(top)
    return body


def usage_chunk(**usage: int) -> dict:
    usage = usage or {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
    return {"id": ID, "object": "chat.completion.chunk", "created": 1700000000,
            "model": "gpt-test", "choices": [], "usage": usage}


def call_delta(index: int | None = None, id: str | None = None, name: str | None = None,
               arguments: str | None = None, **extra: Any) -> dict:
    entry: dict[str, Any] = dict(extra)
    if index is not None:
        entry["index"] = index
    if id is not None:
        entry["id"] = id
    function = {}
    if name is not None:
        function["name"] = name
    if arguments is not None:
        function["arguments"] = arguments
    if function:
        entry["function"] = function
    return {"tool_calls": [entry]}


def run(chunks: list, strategy: OpenAIChatStrategy | None = None):
    """Feed chunks to a fresh accumulator; return (strategy, acc, display deltas)."""
    strategy = strategy or OpenAIChatStrategy()
    acc = strategy.new_accumulator()
    shown = [strategy.accumulate(acc, c) for c in chunks]
    return strategy, acc, shown


def calls_of(message: dict) -> list[tuple]:
    return [(c.name, c.arguments, c.id) for c in OpenAIChatStrategy().extract(message)]


# ---------------------------------------------------------------------------- recognition
class TestRecognizes:
    s = OpenAIChatStrategy()

    @pytest.mark.parametrize("shape", [
        chunk({"role": "assistant", "content": ""}),
        {k: v for k, v in chunk({"content": "x"}).items() if k != "object"},  # Zhipu
        {"choices": [], "created": 0, "id": "", "model": "", "object": "",
         "prompt_filter_results": [{"prompt_index": 0}]},  # Azure's first chunk
        usage_chunk(),
        {"error": {"message": "Tool call validation failed", "code": "tool_use_failed"}},
        {"role": "assistant", "content": "hi", "tool_calls": None},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
         "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"},
                      "finish_reason": "stop"}]},
        {"choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}]},
    ])
    def test_claims_its_shapes(self, shape):
        assert self.s.recognizes(shape) is True

    @pytest.mark.parametrize("shape", [
        "data: {}",
        "[DONE]",
        {"role": "assistant", "content": "a call written as text"},  # the text strategy's
        {"role": "assistant", "content": [{"type": "text", "text": "x"}], "tool_calls": []},
        {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
        {"type": "message_start", "message": {"content": []}},
        {"type": "response.output_text.delta", "delta": "x"},
        {"model": "llama3", "message": {"role": "assistant", "content": "x"}, "done": False},
        {"error": "model not found"},  # Ollama's error is a string
        {"choices": "not a list"},
        {"choices": [1]},
        {"choices": [{"index": 0, "text": "legacy completions"}]},
        {"object": "response", "output": []},
        None, 3, [], b"{}",
    ])
    def test_refuses_other_shapes(self, shape):
        assert self.s.recognizes(shape) is False

    def test_never_raises_even_for_a_hostile_mapping(self):
        class Hostile(dict):
            def get(self, *args):
                raise RuntimeError("boom")

            def __contains__(self, key):
                raise RuntimeError("boom")

        assert self.s.recognizes(Hostile(choices=[])) is False

    def test_names(self):
        assert OpenAIChatStrategy.name == "openai-chat"
        assert OpenAIChatStrategy.leaks_into_text is False


# ---------------------------------------------------------------------------- accumulation
def test_text_stream_display_deltas_and_message():
    s, acc, shown = run([
        chunk({"role": "assistant", "content": "", "refusal": None}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, finish="stop"),
        usage_chunk(),
    ])
    assert shown == ["", "Hel", "lo", "", ""]
    assert s.as_message(acc) == {"role": "assistant", "content": "Hello", "refusal": None,
                                 "annotations": []}


def test_content_is_none_when_no_content_ever_came_and_empty_when_only_empty_came():
    s, acc, _ = run([chunk({"role": "assistant", "content": None}), chunk({}, finish="stop")])
    assert s.as_message(acc)["content"] is None
    s, acc, _ = run([chunk({"role": "assistant", "content": ""}), chunk({}, finish="stop")])
    assert s.as_message(acc)["content"] == ""


def test_refusal_streams_in_its_own_field():
    s, acc, shown = run([
        chunk({"role": "assistant", "content": None, "refusal": ""}),
        chunk({"refusal": "I can't"}),
        chunk({"refusal": " help."}),
        chunk({}, finish="stop"),
    ])
    message = s.as_message(acc)
    assert message["refusal"] == "I can't help."
    assert message["content"] is None
    assert shown == ["", "", "", ""]  # a refusal is not content text
    assert s.content_text(message) == ""


def test_extra_string_fields_join_and_role_never_repeats():
    s, acc, _ = run([
        chunk({"role": "assistant", "content": None, "reasoning_content": "Think"}),
        chunk({"role": "assistant", "reasoning_content": "ing."}),  # Snowflake repeats role
        chunk({"content": "", "reasoning_content": None}, finish="stop"),
    ])
    message = s.as_message(acc)
    assert message["role"] == "assistant"
    assert message["reasoning_content"] == "Thinking."
    assert message["content"] == ""


def test_n_greater_than_one_interleaved_merges_by_choice_index():
    s, acc, shown = run([
        chunk({"role": "assistant", "content": ""}, index=0),
        chunk({"content": "A"}, index=0),
        chunk({"role": "assistant", "content": ""}, index=1),
        chunk({"content": "x"}, index=1),
        chunk({"content": "B"}, index=0),
        chunk({"content": "y"}, index=1),
        chunk({}, index=1, finish="length"),
        chunk({}, index=0, finish="stop"),
    ])
    assert shown == ["", "A", "", "", "B", "", "", ""]  # the display follows choice 0 only
    body = s.as_response(acc)
    assert [c["message"]["content"] for c in body["choices"]] == ["AB", "xy"]
    assert [c["finish_reason"] for c in body["choices"]] == ["stop", "length"]
    assert [c["index"] for c in body["choices"]] == [0, 1]
    assert s.as_message(acc)["content"] == "AB"


def test_several_choices_in_one_chunk():
    both = chunk({"content": "a"})
    both["choices"].append({"index": 1, "delta": {"content": "b"}, "finish_reason": None})
    s, acc, shown = run([both])
    assert shown == ["a"]
    assert [c["message"]["content"] for c in s.as_response(acc)["choices"]] == ["a", "b"]


def test_parallel_calls_interleaved_merge_strictly_by_index():
    s, acc, _ = run([
        chunk({"role": "assistant", "content": None}),
        chunk(call_delta(0, "call_a", "get_weather", "", type="function")),
        chunk(call_delta(1, "call_b", "get_time", "", type="function")),
        chunk(call_delta(0, arguments='{"ci')),
        chunk(call_delta(1, arguments='{"tz": "UTC"}')),
        chunk(call_delta(0, arguments='ty": "Oslo"}')),
        chunk({}, finish="tool_calls"),
    ])
    message = s.as_message(acc)
    assert message["tool_calls"] == [
        {"id": "call_a", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}},
        {"id": "call_b", "type": "function",
         "function": {"name": "get_time", "arguments": '{"tz": "UTC"}'}},
    ]
    assert calls_of(message) == [("get_weather", {"city": "Oslo"}, "call_a"),
                                 ("get_time", {"tz": "UTC"}, "call_b")]


def test_several_fragments_of_one_call_in_one_chunk():
    delta = {"tool_calls": [
        {"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a"'}},
        {"index": 0, "function": {"arguments": ": 1}"}},
        {"index": 1, "id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}},
    ]}
    s, acc, _ = run([chunk(delta, finish="tool_calls")])
    assert calls_of(s.as_message(acc)) == [("f", {"a": 1}, "c1"), ("g", {}, "c2")]


def test_mistral_calls_without_index_whole_in_one_delta():
    s, acc, _ = run([
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": None, "tool_calls": [
            {"id": "AbC123xyz", "function": {"name": "weather", "arguments": '{"location": "Rome"}'}},
            {"id": "DeF456uvw", "function": {"name": "weather", "arguments": '{"location": "Oslo"}'}},
        ]}, finish="tool_calls", usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}),
    ])
    message = s.as_message(acc)
    assert calls_of(message) == [("weather", {"location": "Rome"}, "AbC123xyz"),
                                 ("weather", {"location": "Oslo"}, "DeF456uvw")]
    assert all(c["type"] == "function" for c in message["tool_calls"])  # type was never sent
    assert s.as_response(acc)["usage"]["total_tokens"] == 3


def test_a_delta_without_index_continues_the_last_call_unless_it_brings_a_new_id():
    s, acc, _ = run([
        chunk(call_delta(id="c1", name="f", arguments='{"a":')),
        chunk(call_delta(arguments=" 1}")),  # no index, no id: the same call
        chunk(call_delta(id="c1", arguments="")),  # the same id again: still the same call
        chunk(call_delta(id="c2", name="g", arguments="{}")),  # a new id: a new call
        chunk(call_delta(id="", arguments="")),  # an empty id is no new id
    ])
    assert calls_of(s.as_message(acc)) == [("f", {"a": 1}, "c1"), ("g", {}, "c2")]


def test_empty_id_name_and_type_on_continuations_never_overwrite():
    s, acc, _ = run([
        chunk(call_delta(0, "call_eee", "weather", "", type="function")),
        chunk(call_delta(0, "", arguments='{"location": "San ', type="function")),
        chunk(call_delta(0, "", "", 'Francisco"}', type="")),
        chunk(call_delta(0, "", arguments="")),
        chunk({}, finish="tool_calls"),
    ])
    assert s.as_message(acc)["tool_calls"] == [
        {"id": "call_eee", "type": "function",
         "function": {"name": "weather", "arguments": '{"location": "San Francisco"}'}}]


def test_vllm_split_id_then_name_then_escaped_arguments():
    s, acc, _ = run([
        chunk({"role": "assistant"}),
        chunk({"tool_calls": [{"id": "chatcmpl-tool-1", "type": "function", "index": 0}]}),
        chunk(call_delta(0, name="get_weather")),
        chunk(call_delta(0, arguments='{"cityName": "')),
        chunk(call_delta(0, arguments="\\u5357\\u4eac")),
        chunk(call_delta(0, arguments="")),
        chunk(call_delta(0, arguments='"}')),
        chunk({"content": ""}, finish="tool_calls"),
    ])
    message = s.as_message(acc)
    assert message["tool_calls"][0]["function"]["arguments"] == '{"cityName": "\\u5357\\u4eac"}'
    assert calls_of(message) == [("get_weather", {"cityName": "南京"}, "chatcmpl-tool-1")]


def test_name_fragments_concatenate_like_the_sdk():
    s, acc, _ = run([chunk(call_delta(0, "c", "get_")), chunk(call_delta(0, name="weather"))])
    assert s.as_message(acc)["tool_calls"][0]["function"]["name"] == "get_weather"


def test_finish_reason_on_the_first_chunk_twice_or_never():
    s = OpenAIChatStrategy()
    zhipu_first = chunk({"role": "assistant", "tool_calls": [
        {"id": "call_1_0", "index": 0, "type": "function",
         "function": {"name": "get_weather", "arguments": '{"cityName": "南京"}'}}]},
        finish="tool_calls")
    del zhipu_first["object"]
    zhipu_second = chunk({"role": "assistant", "content": ""}, finish="tool_calls",
                         usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})
    del zhipu_second["object"]
    buf = LLMStreamBuffer(s)
    buf.add(zhipu_first)
    assert buf.is_done()
    buf.add(zhipu_second)
    assert buf.response()["choices"][0]["finish_reason"] == "tool_calls"
    assert calls_of(buf.as_dict()) == [("get_weather", {"cityName": "南京"}, "call_1_0")]

    snowflake = [
        {"choices": [{"delta": {"content": "4", "refusal": "", "role": "assistant", "tool_calls": None},
                      "index": 0, "logprobs": {"content": None, "refusal": None}}],
         "created": 0, "id": "", "model": "m", "object": "chat.completion.chunk"},
        {"choices": [], "created": 0, "id": "", "model": "m", "object": "chat.completion.chunk",
         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
    ]
    buf = LLMStreamBuffer(s)
    buf.add_all(snowflake)
    assert not buf.is_done()  # no finish_reason ever: the client closes when the body ends
    assert buf.as_dict()["content"] == "4"
    assert buf.response()["choices"][0]["finish_reason"] is None
    assert buf.response()["id"] == "" and buf.response()["created"] == 0
    buf.close()
    assert buf.is_done()


def test_usage_only_moderation_and_obfuscation_chunks_are_absorbed():
    moderation = {"id": ID, "object": "chat.completion.chunk", "created": 1700000000,
                  "model": "gpt-test", "choices": [], "usage": None,
                  "moderation": {"input": {"flagged": False}}, "obfuscation": "Lml3"}
    s, acc, shown = run([
        chunk({"role": "assistant", "content": "", "refusal": None}, obfuscation="D3Wb"),
        chunk({"content": "Paris."}, obfuscation="NNp"),
        chunk({}, finish="stop", obfuscation="Zar"),
        usage_chunk(prompt_tokens=3, completion_tokens=4, total_tokens=7),
        moderation,
    ])
    assert shown == ["", "Paris.", "", "", ""]
    body = s.as_response(acc)
    # usage is kept: the SDK would reset it to None from the moderation chunk's `usage: null`
    assert body["usage"] == {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    assert body["moderation"] == {"input": {"flagged": False}}
    assert "obfuscation" not in body
    assert s.as_message(acc) == {"role": "assistant", "content": "Paris.", "refusal": None,
                                 "annotations": []}


def test_azure_empty_first_chunk_then_the_real_header():
    first = {"choices": [], "created": 0, "id": "", "model": "", "object": "",
             "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]}
    buf = LLMStreamBuffer(OpenAIChatStrategy())
    assert buf.add(first) == ""
    buf.add(chunk({"role": "assistant", "content": ""}, system_fingerprint=None))
    buf.add(chunk({"content": "Hi"}, system_fingerprint=None))
    buf.add(chunk({}, finish="stop", system_fingerprint=None))
    body = buf.response()
    assert (body["id"], body["model"], body["created"]) == (ID, "gpt-test", 1700000000)
    assert body["prompt_filter_results"] == [{"prompt_index": 0, "content_filter_results": {}}]
    assert body["system_fingerprint"] is None
    assert buf.as_dict()["content"] == "Hi"


def test_as_response_is_the_whole_stream_false_body():
    s, acc, _ = run([
        chunk({"role": "assistant", "content": None}, system_fingerprint="fp_1", service_tier="default"),
        chunk(call_delta(0, "call_1", "f", "", type="function"), system_fingerprint="fp_1",
              service_tier="default"),
        chunk(call_delta(0, arguments='{"x": 1}'), system_fingerprint="fp_1", service_tier="default"),
        chunk({}, finish="tool_calls", system_fingerprint="fp_1", service_tier="default"),
        dict(usage_chunk(), system_fingerprint="fp_1", service_tier="default"),
    ])
    assert s.as_response(acc) == {
        "id": ID, "object": "chat.completion", "created": 1700000000, "model": "gpt-test",
        "system_fingerprint": "fp_1", "service_tier": "default",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": None, "refusal": None, "annotations": [],
                        "tool_calls": [{"id": "call_1", "type": "function",
                                        "function": {"name": "f", "arguments": '{"x": 1}'}}]},
            "logprobs": None,
            "finish_reason": "tool_calls",
        }],
        "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
    }


def test_logprobs_and_annotations_accumulate():
    token = lambda t: {"token": t, "logprob": -0.1, "bytes": None, "top_logprobs": []}  # noqa: E731
    first = chunk({"role": "assistant", "content": "a"})
    first["choices"][0]["logprobs"] = {"content": [token("a")], "refusal": None}
    second = chunk({"content": "b", "annotations": [{"type": "url_citation", "url_citation": {"url": "u"}}]})
    second["choices"][0]["logprobs"] = {"content": [token("b")], "refusal": None}
    s, acc, _ = run([first, second])
    body = s.as_response(acc)
    assert body["choices"][0]["logprobs"] == {"content": [token("a"), token("b")], "refusal": None}
    assert body["choices"][0]["message"]["annotations"] == [
        {"type": "url_citation", "url_citation": {"url": "u"}}]


def test_vendor_fields_that_are_not_strings_stay_out_of_the_message():
    s, acc, _ = run([chunk({"index": 0, "content": "", "reasoning_details": [{"text": "x"}],
                            "content_filter_results": {}})])
    assert s.as_message(acc) == {"role": "assistant", "content": "", "refusal": None,
                                 "annotations": []}


def test_as_message_and_as_response_return_fresh_objects():
    s, acc, _ = run([chunk(call_delta(0, "c", "f", '{"a": 1}')), usage_chunk()])
    message = s.as_message(acc)
    message["tool_calls"][0]["function"]["name"] = "changed"
    message["annotations"].append("junk")
    body = s.as_response(acc)
    body["usage"]["total_tokens"] = -1
    body["choices"][0]["message"]["content"] = "junk"
    assert s.as_message(acc)["tool_calls"][0]["function"]["name"] == "f"
    assert s.as_message(acc)["annotations"] == []
    assert s.as_response(acc)["usage"]["total_tokens"] == 12


def test_empty_accumulator_reads_as_an_empty_message():
    s = OpenAIChatStrategy()
    acc = s.new_accumulator()
    assert s.as_message(acc) == {"role": "assistant", "content": None, "refusal": None,
                                 "annotations": []}
    assert s.as_response(acc)["choices"] == []
    assert s.forming_name_of(acc) is None


# ---------------------------------------------------------------------------- errors and end
def test_error_chunk_raises_provider_error_before_folding_anything():
    buf = LLMStreamBuffer(OpenAIChatStrategy())
    buf.add(chunk({"role": "assistant", "content": "partial"}))
    error = {"code": 400, "message": "Token limit reached"}
    bad = chunk({"content": " MORE"}, error=error)
    with pytest.raises(ProviderError) as info:
        buf.add(bad)
    assert info.value.error == error
    assert info.value.index == 1
    assert "Token limit reached" in str(info.value)
    assert buf.as_dict()["content"] == "partial"  # nothing of the error chunk was folded in
    assert isinstance(buf.error, ProviderError)


def test_error_only_first_chunk_resolves_to_this_wire_and_raises():
    buf = LLMStreamBuffer(OpenAIChatStrategy())  # an error-only chunk resolves the wire
    error = {"message": "validation failed", "type": "invalid_request_error",
             "code": "tool_use_failed"}
    with pytest.raises(ProviderError) as info:
        buf.add({"error": error})
    assert buf.strategy.name == "openai-chat"
    assert info.value.error["code"] == "tool_use_failed"


def test_done_marker_is_absorbed_and_ends_the_stream():
    s = OpenAIChatStrategy()
    buf = LLMStreamBuffer(s)
    buf.add(chunk({"content": "x"}))
    assert not buf.is_done()
    assert buf.add("[DONE]") == ""
    assert buf.is_done()
    assert s.is_done("[DONE]") is True
    assert buf.as_dict()["content"] == "x"


@pytest.mark.parametrize("chunk_, done", [
    (chunk({}, finish="stop"), True),
    (chunk({}, finish=None), False),
    (usage_chunk(), False),
    ({"choices": [{"index": 0, "delta": {}}, {"index": 1, "delta": {}, "finish_reason": "length"}]}, True),
    ("[DONE]", True),
    ("other", False),
    (None, False),
    ({"choices": "x"}, False),
    ({"choices": [None]}, False),
])
def test_is_done(chunk_, done):
    assert OpenAIChatStrategy().is_done(chunk_) is done


MALFORMED = [
    ([chunk({}, index=1)], "choice index 1"),
    ([chunk({}), chunk({}, index=2)], "choice index 2"),
    ([chunk({}, index=-1)], "choice index -1"),
    ([chunk({}, index="0")], "choice index '0'"),
    ([chunk({}, index=True)], "choice index True"),
    ([{"id": ID, "choices": [{"delta": {"content": "x"}}]}], "choice index None"),
    ([chunk(call_delta(1, "c", "f", ""))], "tool-call index 1"),
    ([chunk(call_delta(0, "c", "f", "")), chunk(call_delta(2, "d", "g", ""))], "tool-call index 2"),
    ([chunk(call_delta(-1, "c", "f", ""))], "tool-call index -1"),
    ([chunk(call_delta("0", "c", "f", ""))], "tool-call index '0'"),
    ([chunk(call_delta(0.0, "c", "f", ""))], "tool-call index 0.0"),
    ([["not", "a", "chunk"]], "must be a JSON object"),
    ([42], "must be a JSON object"),
    ([None], "must be a JSON object"),
    (["data: {}"], "must be a JSON object"),
    ([{"id": ID}], "no 'choices' list"),
    ([{"choices": {"0": {}}}], "'choices' must be a list"),
    ([{"choices": ["x"]}], "each choice must be an object"),
    ([chunk("hello")], "'delta' must be an object"),
    ([chunk([1])], "'delta' must be an object"),
    ([chunk({"content": 5})], "delta 'content' must be a string"),
    ([chunk({"refusal": ["x"]})], "delta 'refusal' must be a string"),
    ([chunk({"role": 1})], "delta 'role' must be a string"),
    ([chunk({"tool_calls": {"index": 0}})], "'tool_calls' must be a list"),
    ([chunk({"tool_calls": ["x"]})], "each tool-call delta must be an object"),
    ([chunk({"annotations": "x"})], "delta 'annotations' must be a list"),
    ([chunk({"tool_calls": "x"})], "delta 'tool_calls' must be a list"),
    ([chunk({"annotations": 1})], "'annotations' must be a list"),
    ([chunk({"tool_calls": [{"index": 0, "function": "f"}]})], "'function' must be an object"),
    ([chunk(call_delta(0, "c", "f", {"a": 1}))], "'arguments' must be a string"),
    ([chunk(call_delta(0, "c", 7, ""))], "'name' must be a string"),
    ([chunk(call_delta(0, 7, "f", ""))], "'id' must be a string"),
    ([chunk(call_delta(0, "c", "f", "", type=1))], "'type' must be a string"),
    ([chunk({}, finish=1)], "'finish_reason' must be a string"),
    ([dict(usage_chunk(), usage=[1])], "'usage' must be an object"),
    ([chunk({}, id=7)], "'id' must be str"),
    ([chunk({}, created="now")], "'created' must be int or float"),
    ([dict(chunk({}), choices=[{"index": 0, "delta": {}, "logprobs": "x"}])], "'logprobs' must be"),
    ([dict(chunk({}), choices=[{"index": 0, "delta": {}, "logprobs": {"content": 1}}])],
     "'logprobs.content' must be"),
]


@pytest.mark.parametrize("chunks, needle", MALFORMED)
def test_bad_input_raises_malformed_chunk_with_a_clear_message(chunks, needle):
    s = OpenAIChatStrategy()
    acc = s.new_accumulator()
    with pytest.raises(MalformedChunk) as info:
        for c in chunks:
            s.accumulate(acc, c)
    assert needle in str(info.value)
    assert "expected" in str(info.value)


KEPT = [chunk({"role": "assistant", "content": "a"}), chunk(call_delta(0, "c1", "f", "{"))]
# A good part first, then a bad one, in the same chunk: the good part must not be kept.
HALF_GOOD = [
    (chunk({"content": "b"}, "x"), "'delta' must be an object"),
    (dict(chunk({"content": "b"}), choices=[chunk({"content": "b"})["choices"][0], "x"]),
     "each choice must be an object"),
    (chunk({"content": "b", "refusal": 3}), "delta 'refusal' must be a string"),
    (chunk({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}, {"index": 5}]}),
     "tool-call index 5"),
    (chunk({"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "g"}}, "x"]}),
     "each tool-call delta must be an object"),
    (dict(chunk({}), choices=[{"index": 1, "delta": {"content": "b"}}, {"index": 3, "delta": {}}]),
     "choice index 3"),
    (dict(chunk({}, index=3), usage={"total_tokens": 1}), "choice index 3"),
    (dict(chunk({}, index=3), system_fingerprint="fp_new"), "choice index 3"),
    (dict(chunk({}), choices=[{"index": 0, "delta": {}, "finish_reason": "stop"},
                              {"index": 0, "delta": {}, "finish_reason": 1}]),
     "'finish_reason' must be"),
    (dict(chunk({}), choices=[{"index": 0, "delta": {}, "logprobs": {
        "content": [{"token": "a", "logprob": 0}], "refusal": 1}}]), "'logprobs.refusal' must be"),
]


@pytest.mark.parametrize("bad, needle", HALF_GOOD)
def test_a_bad_chunk_leaves_no_trace_not_even_its_good_parts(bad, needle):
    s, acc, _ = run(KEPT)
    before, name = s.as_response(acc), s.forming_name_of(acc)
    with pytest.raises(MalformedChunk, match=needle):
        s.accumulate(acc, bad)
    assert s.as_response(acc) == before and s.forming_name_of(acc) == name
    assert s.accumulate(acc, chunk({"content": "b"})) == "b"  # and the stream goes on
    assert s.as_message(acc)["content"] == "ab"


def test_a_bad_first_chunk_leaves_no_header():
    s = OpenAIChatStrategy()
    acc = s.new_accumulator()
    with pytest.raises(MalformedChunk, match="choice index 2"):
        s.accumulate(acc, chunk({"content": "a"}, index=2))
    assert s.as_response(acc)["id"] is None
    s.accumulate(acc, chunk({"content": "a"}, id="chatcmpl-2"))
    assert s.as_response(acc)["id"] == "chatcmpl-2"


def test_the_buffer_names_the_offending_chunk():
    buf = LLMStreamBuffer(OpenAIChatStrategy())
    buf.add(chunk({"content": "a"}))
    with pytest.raises(MalformedChunk) as info:
        buf.add(chunk({}, index=5))
    assert info.value.index == 1
    assert str(info.value).startswith("chunk 1: ")


# ---------------------------------------------------------------------------- assembled messages
WHOLE_BODY = {
    "id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": "m",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "logprobs": None, "message": {
        "role": "assistant", "content": "Let me check.", "refusal": None, "annotations": [],
        "tool_calls": [
            {"index": 0, "id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "ping", "arguments": ""}},
            {"id": "c3", "type": "function", "function": {"name": "broken", "arguments": '{"a": '}},
            {"id": "c4", "type": "function", "function": {"name": "listy", "arguments": "[1]"}},
        ]}}],
}


def test_extract_reads_calls_in_order_from_a_message_or_a_whole_body():
    s = OpenAIChatStrategy()
    for shape in (WHOLE_BODY, WHOLE_BODY["choices"][0]["message"]):
        calls = s.extract(shape)
        assert [c.name for c in calls] == ["get_weather", "ping", "broken", "listy"]
        assert calls[0] == ExtractedCall("get_weather", {"city": "Paris"}, "c1")
        assert calls[1] == ExtractedCall("ping", {}, "c2")  # "" arguments mean {}
        assert calls[2].error and calls[2].arguments == {} and calls[2].raw_arguments == '{"a": '
        assert "object" in calls[3].error and calls[3].raw_arguments == "[1]"
        assert s.content_text(shape) == "Let me check."
        assert s.forming_name(shape) == "listy"


@pytest.mark.parametrize("tool_calls", [None, []])
def test_null_or_empty_tool_calls_is_authoritative_and_has_no_calls(tool_calls):
    s = OpenAIChatStrategy()
    message = {"role": "assistant", "content": '{"tool": "rm", "arguments": {}}',
               "tool_calls": tool_calls}
    assert s.recognizes(message)
    assert s.extract(message) == []
    assert s.forming_name(message) is None
    assert s.content_text(message) == '{"tool": "rm", "arguments": {}}'


def test_content_text_of_null_content_is_empty():
    s = OpenAIChatStrategy()
    assert s.content_text({"role": "assistant", "content": None, "tool_calls": []}) == ""
    assert s.content_text({"choices": []}) == ""


@pytest.mark.parametrize("message", [
    {"tool_calls": "x"},
    {"tool_calls": [1]},
    {"tool_calls": [{"id": "c"}]},
    {"tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]},
    {"choices": "x"},
    {"choices": [{"delta": {}}]},
    "text",
    None,
])
def test_extract_of_a_bad_message_raises_a_stream_error(message):
    with pytest.raises(StreamError):
        OpenAIChatStrategy().extract(message)


def test_forming_name_mid_stream_and_from_the_accumulator():
    s = OpenAIChatStrategy()
    buf = LLMStreamBuffer(s)
    buf.add(chunk({"role": "assistant", "content": None}))
    assert buf.forming_name() is None and s.forming_name(buf.as_dict()) is None
    buf.add(chunk({"tool_calls": [{"index": 0, "id": "c", "type": "function"}]}))
    assert buf.forming_name() is None  # the name is not known yet
    buf.add(chunk(call_delta(0, name="get_weather", arguments='{"ci')))
    assert buf.forming_name() == "get_weather" == s.forming_name(buf.as_dict())
    buf.add(chunk(call_delta(1, "d", "get_time", "")))
    assert buf.forming_name() == "get_time" == s.forming_name(buf.as_dict())


def test_result_messages_in_request_shape():
    s = OpenAIChatStrategy()
    records = [
        ToolCallRecord("get_weather", {"city": "Paris"}, result={"temp": 21, "sky": "clair"},
                       tool_call_id="c1"),
        ToolCallRecord("ping", {}, result="pong", tool_call_id="c2"),
        ToolCallRecord("broken", {}, error="arguments are not valid JSON", tool_call_id="c3"),
    ]
    history = s.result_messages(WHOLE_BODY, records)
    assistant = history[0]
    assert assistant == {
        "role": "assistant", "content": "Let me check.",
        "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
            {"id": "c2", "type": "function", "function": {"name": "ping", "arguments": ""}},
            {"id": "c3", "type": "function", "function": {"name": "broken", "arguments": '{"a": '}},
            {"id": "c4", "type": "function", "function": {"name": "listy", "arguments": "[1]"}},
        ]}
    assert history[1:] == [
        {"role": "tool", "tool_call_id": "c1", "content": '{"temp": 21, "sky": "clair"}'},
        {"role": "tool", "tool_call_id": "c2", "content": "pong"},
        {"role": "tool", "tool_call_id": "c3", "content": "Error: arguments are not valid JSON"},
    ]
    refused = s.result_messages({"role": "assistant", "content": None, "refusal": "No.",
                                 "tool_calls": None}, [])
    assert refused == [{"role": "assistant", "content": None, "refusal": "No."}]


def test_result_messages_do_not_share_objects_with_the_message():
    s = OpenAIChatStrategy()
    body = copy.deepcopy(WHOLE_BODY)
    history = s.result_messages(body, [])
    history[0]["tool_calls"][0]["function"]["name"] = "changed"
    assert body == WHOLE_BODY


# ---------------------------------------------------------------------------- SDK objects
def test_sdk_chunk_objects_can_be_added_straight_to_the_buffer():
    raw = [
        chunk({"role": "assistant", "content": None, "refusal": None}),
        chunk(call_delta(0, "call_1", "get_weather", "", type="function")),
        chunk(call_delta(0, arguments='{"city": ')),
        chunk(call_delta(0, arguments='"Oslo"}')),
        chunk({}, finish="tool_calls"),
        usage_chunk(),
    ]
    buf = LLMStreamBuffer(OpenAIChatStrategy())  # resolves the wire from an SDK object too
    for c in raw:
        buf.add(ChatCompletionChunk.model_validate(c))
    assert buf.strategy.name == "openai-chat"
    assert buf.is_done()
    assert calls_of(buf.as_dict()) == [("get_weather", {"city": "Oslo"}, "call_1")]
    assert buf.response()["usage"]["total_tokens"] == 12


# ---------------------------------------------------------------------------- SDK as oracle
NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)
TEXT = st.text(max_size=30)
ARG_VALUES = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
ARGUMENTS = st.dictionaries(st.text(max_size=6), ARG_VALUES, max_size=3)


@st.composite
def pieces(draw, text: str) -> list[str]:
    """`text` cut at a few points (shrinks toward fewer, earlier cuts)."""
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=4))))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def interleave(draw, queues: list[list]) -> list:
    """Merge queues keeping each one's order; queue k starts only after queue k-1 started
    (choices and calls first appear in index order, as every server sends them)."""
    queues = [list(q) for q in queues if q]
    out: list = []
    started = 0
    while any(queues):
        live = [k for k, q in enumerate(queues) if q and k <= started]
        k = draw(st.sampled_from(live)) if len(live) > 1 else live[0]
        out.append(queues[k].pop(0))
        if k == started:
            started += 1
    return out


@st.composite
def choice_plan(draw, index: int) -> tuple[dict, list[dict], str]:
    """One choice: its expected message, its deltas in order, its finish reason."""
    kind = draw(st.sampled_from(["text", "refusal", "calls"]))
    content = refusal = None
    calls: list[tuple[str, str, str]] = []
    if kind == "text":
        content = draw(TEXT)
    elif kind == "refusal":
        refusal = draw(TEXT)
    else:
        content = draw(st.none() | TEXT)
        for j in range(draw(st.integers(0, 3))):
            arguments = json.dumps(draw(ARGUMENTS), ensure_ascii=draw(st.booleans()))
            calls.append((f"call_{index}_{j}", draw(NAMES), arguments))
    role: dict[str, Any] = {"role": "assistant", "content": None if content is None else "",
                            "refusal": None if refusal is None else ""}
    deltas: list[dict] = [role]
    for text, key in ((content, "content"), (refusal, "refusal")):
        if text:
            deltas += [{key: piece} for piece in draw(pieces(text))]
    call_queues = []
    for j, (call_id, name, arguments) in enumerate(calls):
        head, *rest = draw(pieces(name)) if draw(st.booleans()) else [name]
        queue = [{"index": j, "id": call_id, "type": "function",
                  "function": {"name": head, "arguments": ""}}]
        queue += [{"index": j, "function": {"name": part}} for part in rest]
        queue += [{"index": j, "function": {"arguments": piece}}
                  for piece in draw(pieces(arguments))]
        call_queues.append(queue)
    entries = draw(interleave(call_queues))
    while entries:  # one or a few tool-call fragments per delta
        size = draw(st.integers(1, 3))
        deltas.append({"tool_calls": entries[:size]})
        entries = entries[size:]
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal,
                               "annotations": []}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls]
    return message, deltas, "tool_calls" if calls else "stop"


@st.composite
def chat_streams(draw) -> tuple[list[dict], list[dict], dict | None]:
    """(expected messages per choice, chunks, usage) of an OpenAI-style stream, n <= 2."""
    n = draw(st.integers(1, 2))
    plans = [draw(choice_plan(i)) for i in range(n)]
    queues = [
        [(i, delta, None) for delta in deltas] + [(i, {}, finish)]
        for i, (_, deltas, finish) in enumerate(plans)
    ]
    fingerprint = draw(st.none() | st.just("fp_test"))
    head = {"id": "chatcmpl-oracle", "object": "chat.completion.chunk", "created": 1727346170,
            "model": "gpt-4o-2024-08-06"}
    if fingerprint:
        head["system_fingerprint"] = fingerprint
    chunks = [
        dict(head, choices=[{"index": i, "delta": delta, "logprobs": None, "finish_reason": finish}])
        for i, delta, finish in draw(interleave(queues))
    ]
    usage = None
    if draw(st.booleans()):
        usage = {"prompt_tokens": 11, "completion_tokens": 22, "total_tokens": 33}
        chunks.append(dict(head, choices=[], usage=usage))
    return [plan[0] for plan in plans], chunks, usage


def sdk_view(value: Any, *, call: bool = False) -> Any:
    """The SDK's dump minus what only the SDK defines: `parsed`, `parsed_arguments`, and the
    streaming `index` it keeps on each tool call (stream=false has none)."""
    if isinstance(value, dict):
        return {
            key: sdk_view(item, call=False) if key != "tool_calls" else
            [sdk_view(entry, call=True) for entry in item] if isinstance(item, list) else item
            for key, item in value.items()
            if key not in ("parsed", "parsed_arguments") and not (call and key == "index")
        }
    if isinstance(value, list):
        return [sdk_view(item) for item in value]
    return value


def assert_same_where_both_define(ours: Any, theirs: Any, path: str = "$") -> None:
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in ours.keys() & theirs.keys():
            assert_same_where_both_define(ours[key], theirs[key], f"{path}.{key}")
        for key in theirs.keys() - ours.keys():
            assert theirs[key] is None, f"{path}.{key}: only the SDK defines it: {theirs[key]!r}"
        return
    if isinstance(ours, list) and isinstance(theirs, list):
        assert len(ours) == len(theirs), f"{path}: {len(ours)} items vs the SDK's {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_same_where_both_define(a, b, f"{path}[{i}]")
        return
    assert ours == theirs, f"{path}: {ours!r} != SDK {theirs!r}"


def without_annotations(body: dict) -> dict:
    # Deliberate difference: stream=false returns `annotations: []`, the SDK leaves it None
    # when no annotation delta came. Everything else must match.
    body = copy.deepcopy(body)
    for choice in body.get("choices", []):
        choice["message"].pop("annotations", None)
    return body


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chat_streams())
def test_the_official_sdk_accumulator_agrees(stream):
    expected, chunks, usage = stream
    pristine = copy.deepcopy(chunks)
    strategy = OpenAIChatStrategy()
    acc = strategy.new_accumulator()
    state = ChatCompletionStreamState()
    shown = []
    for c in chunks:
        shown.append(strategy.accumulate(acc, c))
        state.handle_chunk(ChatCompletionChunk.model_validate(c))
        # mid-stream too: the SDK's snapshot and ours agree after every chunk
        assert_same_where_both_define(
            without_annotations(strategy.as_response(acc)),
            without_annotations(sdk_view(state.current_completion_snapshot.to_dict())),
        )
    assert chunks == pristine, "accumulate mutated a chunk"

    final = sdk_view(state.get_final_completion().to_dict())
    ours = strategy.as_response(acc)
    assert_same_where_both_define(without_annotations(ours), without_annotations(final))
    assert [c["message"] for c in ours["choices"]] == expected  # and the ground truth
    assert strategy.as_message(acc) == expected[0]
    assert ours.get("usage") == usage
    assert "".join(shown) == (expected[0]["content"] or "")
    assert [c.name for c in strategy.extract(strategy.as_message(acc))] == [
        c["function"]["name"] for c in expected[0].get("tool_calls", [])]

    buf = LLMStreamBuffer(OpenAIChatStrategy())  # the same stream as SDK objects
    for c in chunks:
        buf.add(ChatCompletionChunk.model_validate(c))
    assert buf.strategy.name == "openai-chat"
    assert buf.as_dict() == expected[0]
    assert buf.is_done()


def test_sdk_view_keeps_what_we_compare():
    dumped = {"message": {"parsed": None, "tool_calls": [
        {"index": 0, "id": "c", "function": {"name": "f", "arguments": "", "parsed_arguments": None}}]}}
    assert sdk_view(dumped) == {"message": {"tool_calls": [
        {"id": "c", "function": {"name": "f", "arguments": ""}}]}}


# ---------------------------------------------------------------------------- garbage
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
KEYS = st.sampled_from(["id", "object", "created", "model", "choices", "usage", "error",
                        "index", "delta", "finish_reason", "logprobs", "content", "refusal",
                        "role", "tool_calls", "function", "name", "arguments", "type",
                        "annotations", "reasoning_content", "system_fingerprint"])


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += paths(item, (*prefix, i))
    return found


@st.composite
def damaged_streams(draw) -> list:
    """A valid stream with one place changed: a value replaced, a key dropped or added."""
    _, chunks, _ = draw(chat_streams())
    chunks = copy.deepcopy(chunks)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(chunks) - 1))
        path = draw(st.sampled_from(paths(chunks[at])))
        how = draw(st.sampled_from(["replace", "drop", "add"]))
        if not path:
            chunks[at] = draw(JSON)
            continue
        parent = chunks[at]
        for step in path[:-1]:
            parent = parent[step]
        if how == "replace":
            parent[path[-1]] = draw(JSON)
        elif how == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif isinstance(parent, dict):
            parent[draw(KEYS)] = draw(JSON)
    return chunks


def only_stream_errors(feed) -> None:
    try:
        feed()
    except StreamError:
        pass


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_streams())
def test_damaged_streams_raise_only_stream_errors_and_are_not_mutated(chunks):
    pristine = copy.deepcopy(chunks)
    strategy = OpenAIChatStrategy()
    acc = strategy.new_accumulator()

    def direct():
        for c in chunks:
            strategy.accumulate(acc, c)
            assert isinstance(strategy.is_done(c), bool)
            strategy.as_message(acc)
            strategy.as_response(acc)
            strategy.forming_name_of(acc)

    buf = LLMStreamBuffer(OpenAIChatStrategy())
    only_stream_errors(direct)
    only_stream_errors(lambda: buf.add_all(chunks))
    assert chunks == pristine
    message = strategy.as_message(acc)  # whatever was assembled is still readable
    strategy.extract(message)
    strategy.content_text(message)
    strategy.result_messages(message, [])


@settings(max_examples=300, deadline=None)
@given(st.lists(JSON, min_size=1, max_size=4))
def test_random_json_values_raise_only_stream_errors(values):
    strategy = OpenAIChatStrategy()
    acc = strategy.new_accumulator()
    for value in values:
        assert strategy.recognizes(value) in (True, False)
        assert strategy.is_done(value) in (True, False)
    only_stream_errors(lambda: [strategy.accumulate(acc, v) for v in values])
    only_stream_errors(lambda: LLMStreamBuffer(OpenAIChatStrategy()).add_all(values))
    for value in values:
        only_stream_errors(lambda: strategy.extract(value))
        only_stream_errors(lambda: strategy.content_text(value))
        only_stream_errors(lambda: strategy.forming_name(value))
        only_stream_errors(lambda: strategy.result_messages(value, []))


@settings(max_examples=200, deadline=None)
@given(chat_streams(), st.data())
def test_truncated_bodies_raise_only_stream_errors(stream, data):
    _, chunks, _ = stream
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    cut = data.draw(st.integers(0, len(body)))

    def replay():
        buf = LLMStreamBuffer(OpenAIChatStrategy())
        buf.add_all(decode_body(body[:cut].encode()))

    only_stream_errors(replay)


def test_an_unrecognised_first_chunk_is_a_stream_error():
    with pytest.raises(UnrecognisedStream):
        LLMStreamBuffer(OpenAIChatStrategy()).add({"type": "message_start"})

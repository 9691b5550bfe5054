"""LLMStreamBuffer: resolution once, delegation, errors with positions, display cursor."""
import copy

import pytest

from mcs_reference import (
    AnthropicMessagesStrategy, ExtractionChain, LLMStreamBuffer, MalformedChunk, OpenAIChatStrategy,
    StreamError, UnrecognisedStream, default_chain,
)


def chat(content=None, finish=None, **delta):
    if content is not None:
        delta["content"] = content
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def test_resolves_on_the_first_chunk_and_returns_display_deltas():
    buf = LLMStreamBuffer(default_chain())
    assert buf.add(chat("", role="assistant")) == ""
    assert buf.strategy.name == "openai-chat"
    assert buf.add(chat("Hel")) == "Hel" and buf.add(chat("lo")) == "lo"
    assert not buf.is_done()
    buf.add(chat(finish="stop"))
    assert buf.is_done() and buf.as_dict()["content"] == "Hello" and buf.chunk_count == 4


def test_default_chain_when_none_given_and_single_strategy_accepted():
    assert LLMStreamBuffer().chain.strategies[0].name == "openai-chat"
    assert LLMStreamBuffer(OpenAIChatStrategy()).chain.strategies[0].name == "openai-chat"
    with pytest.raises(TypeError, match="ExtractionChain or extraction strategies"):
        LLMStreamBuffer(42)


def test_unrecognised_first_chunk_names_the_chain():
    buf = LLMStreamBuffer([AnthropicMessagesStrategy()])
    with pytest.raises(UnrecognisedStream) as info:
        buf.add({"hello": "world"})
    assert info.value.index == 0 and "anthropic-messages" in str(info.value)


def test_stream_error_gets_the_chunk_position_and_keeps_what_was_assembled():
    buf = LLMStreamBuffer(default_chain())
    buf.add(chat("Hi", role="assistant"))
    with pytest.raises(StreamError) as info:
        buf.add({"choices": "not a list", "object": "chat.completion.chunk"})
    assert info.value.index == 1 and str(info.value).startswith("chunk 1:")
    assert buf.error is info.value and buf.as_dict()["content"] == "Hi"


def test_a_strategy_bug_on_bad_input_becomes_a_malformed_chunk():
    class Careless(OpenAIChatStrategy):
        def accumulate(self, acc, chunk):
            return chunk["nope"]

    buf = LLMStreamBuffer([Careless()])
    with pytest.raises(MalformedChunk) as info:
        buf.add(chat("x"))
    assert info.value.index == 0 and "KeyError" in str(info.value)


def test_chunks_are_never_mutated():
    chunks = [chat("", role="assistant"), chat("a"), chat(finish="stop")]
    kept = copy.deepcopy(chunks)
    buf = LLMStreamBuffer(default_chain())
    buf.add_all(chunks)
    buf.as_dict()["content"] = "changed"
    assert chunks == kept and buf.as_dict()["content"] == "a"


def test_sdk_objects_are_dumped():
    class SdkLike:
        def to_dict(self):
            return chat("sdk", role="assistant")

    class PydanticLike:
        def model_dump(self, **kwargs):
            return chat("!")

    buf = LLMStreamBuffer(default_chain())
    assert buf.add(SdkLike()) == "sdk" and buf.add(PydanticLike()) == "!"


def test_display_cursor_hold_and_reset():
    buf = LLMStreamBuffer(default_chain())
    buf.add(chat("one ", role="assistant"))
    buf.hold()
    assert buf.held and buf.pop_display() == ""
    buf.add(chat("two"))  # a new round lifts the hold
    assert buf.pop_display() == "one two" and buf.pop_display() == ""
    deltas, position = buf.deltas_since(0)
    assert deltas == ["one ", "two"] and position == 2
    buf.add(chat("three"))
    buf.hold()
    buf.reset()
    assert buf.pop_display() == "" and buf.strategy is None and buf.as_dict() == {}


def test_close_marks_a_stream_without_an_end_signal_done():
    buf = LLMStreamBuffer(default_chain())
    buf.add(chat("no finish_reason ever", role="assistant"))
    assert not buf.is_done()
    buf.close()
    assert buf.is_done()


def test_forming_name_and_response():
    buf = LLMStreamBuffer(ExtractionChain([OpenAIChatStrategy()]))
    assert buf.forming_name() is None and buf.response() == {}
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get", "arguments": ""}}
    buf.add(chat(role="assistant", tool_calls=[call]))
    assert buf.forming_name() == "get"
    buf.add(chat(finish="tool_calls"))
    assert buf.response()["choices"][0]["finish_reason"] == "tool_calls"
    assert "LLMStreamBuffer openai-chat done" in repr(buf)

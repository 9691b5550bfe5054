"""`TextStrategy`: text deltas in, the text message out, calls read by its codec."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.errors import MalformedChunk, StreamError
from mcs_reference.text import TextStrategy
from mcs_reference.text_codecs import HermesCodec, JsonCodec

STRATEGIES = [TextStrategy(), TextStrategy(HermesCodec())]
ids = ["json", "hermes"]


# -- identity ------------------------------------------------------------------------------
def test_names_and_codec():
    default, hermes = TextStrategy(), TextStrategy(HermesCodec())
    assert isinstance(default.codec, JsonCodec) and default.name == "text-json"
    assert hermes.name == "hermes" and isinstance(hermes.codec, HermesCodec)
    assert default.leaks_into_text is False and hermes.leaks_into_text is False
    assert TextStrategy(JsonCodec()).name == "text-json"


# -- recognition: text only, never a native shape ------------------------------------------
TEXT_SHAPES = [
    "", "plain text", '{"tool": "x", "arguments": {}}',
    {"content": "hi"},
    {"role": "assistant", "content": "hi"},
    # an OpenAI Chat message without a `tool_calls` key is text: calls may be in content
    {"role": "assistant", "content": "hi", "refusal": None, "annotations": []},
]

NATIVE_SHAPES = {
    # OpenAI Chat Completions
    "openai chunk": {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
                     "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": None}]},
    "openai usage chunk": {"id": "c", "object": "chat.completion.chunk", "choices": [],
                           "usage": {"total_tokens": 3}},
    "openai body": {"id": "c", "object": "chat.completion", "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}]},
    "openai message with calls and string content": {
        "role": "assistant", "content": '{"tool": "x", "arguments": {}}',
        "tool_calls": [{"id": "c1", "type": "function",
                        "function": {"name": "x", "arguments": "{}"}}]},
    "openai message with tool_calls null": {"role": "assistant", "content": "hi",
                                            "tool_calls": None},
    "openai message with tool_calls []": {"role": "assistant", "content": "hi",
                                          "tool_calls": []},
    "openai error chunk": {"error": {"message": "boom", "code": 500}},
    # OpenAI Responses
    "responses event": {"type": "response.output_text.delta", "item_id": "m", "output_index": 0,
                        "content_index": 0, "delta": "hi"},
    "responses body": {"id": "r", "object": "response", "status": "completed", "output": [
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "hi"}]}]},
    "responses message item": {"type": "message", "role": "assistant", "content": "hi"},
    # Anthropic Messages
    "anthropic message": {"id": "msg", "type": "message", "role": "assistant", "model": "m",
                          "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn"},
    "anthropic message, string content": {"type": "message", "role": "assistant",
                                          "content": "hi"},
    "anthropic event": {"type": "content_block_delta", "index": 0,
                        "delta": {"type": "text_delta", "text": "hi"}},
    "anthropic ping": {"type": "ping"},
    "block list content": {"role": "assistant", "content": [{"type": "text", "text": "hi"}]},
    # Ollama
    "ollama chunk": {"model": "m", "created_at": "t", "message": {"role": "assistant",
                                                                  "content": "hi"},
                     "done": False},
    "ollama body": {"model": "m", "message": {"role": "assistant", "content": "hi"},
                    "done": True, "done_reason": "stop", "content": "x"},
}

NOT_TEXT = [None, 3, 1.5, b"bytes", ["a"], {"content": None}, {"content": 3}, {"role": "x"}, {}]


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
@pytest.mark.parametrize("shape", TEXT_SHAPES)
def test_recognizes_text(strategy, shape):
    assert strategy.recognizes(shape) is True


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
@pytest.mark.parametrize("label", list(NATIVE_SHAPES))
def test_never_recognizes_a_native_shape(strategy, label):
    assert strategy.recognizes(NATIVE_SHAPES[label]) is False


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
@pytest.mark.parametrize("shape", NOT_TEXT)
def test_does_not_recognize_other_values(strategy, shape):
    assert strategy.recognizes(shape) is False


class _Hostile(dict):
    def get(self, *args):
        raise RuntimeError("hostile mapping")


def test_recognizes_never_raises():
    assert TextStrategy().recognizes(_Hostile(content="x")) is False


# -- streaming -----------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
def test_accumulates_text_deltas_and_dict_deltas(strategy):
    acc = strategy.new_accumulator()
    deltas = [strategy.accumulate(acc, piece) for piece in ["Hel", "", {"content": "lo"}, " é"]]
    assert deltas == ["Hel", "", "lo", " é"]
    message = strategy.as_message(acc)
    assert message == {"role": "assistant", "content": "Hello é"}
    message["content"] = "changed"  # a fresh object each time
    assert strategy.as_message(acc)["content"] == "Hello é"
    assert strategy.is_done("anything") is False and strategy.is_done({"content": ""}) is False


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
@pytest.mark.parametrize("chunk", [None, 3, b"x", ["a"], {"content": 3}, {"content": None},
                                   NATIVE_SHAPES["openai chunk"],
                                   NATIVE_SHAPES["anthropic event"],
                                   NATIVE_SHAPES["openai message with calls and string content"]])
def test_bad_chunk_raises_malformed_chunk(strategy, chunk):
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, "kept")
    with pytest.raises(MalformedChunk) as info:
        strategy.accumulate(acc, chunk)
    assert "expected" in str(info.value)
    assert strategy.as_message(acc)["content"] == "kept"


def test_chunks_are_not_mutated():
    strategy = TextStrategy()
    chunk = {"role": "assistant", "content": '{"tool": "a", "arguments": {}}'}
    snapshot = copy.deepcopy(chunk)
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, chunk)
    strategy.forming_name_of(acc)
    strategy.extract(chunk)
    strategy.result_messages(chunk, [ToolCallRecord("a", {}, 1)])
    assert chunk == snapshot


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
def test_through_the_buffer_a_text_stream_ends_on_close(strategy):
    call = ExtractedCall("get_weather", {"city": "Oslo"})
    text = "Let me check. " + strategy.codec.encode([call]) + " Done."
    buf = LLMStreamBuffer(strategy)
    shown = "".join(buf.add(text[i:i + 5]) for i in range(0, len(text), 5))
    assert shown == text and not buf.is_done()
    assert buf.forming_name() == "get_weather"
    buf.close()
    assert buf.is_done()
    assert buf.as_dict() == {"role": "assistant", "content": text}
    assert strategy.extract(buf.as_dict()) == [call]


def test_the_buffer_reports_bad_text_chunks_with_their_index():
    buf = LLMStreamBuffer(TextStrategy())
    buf.add("ok")
    with pytest.raises(StreamError) as info:
        buf.add(42)
    assert info.value.index == 1


# -- reading -------------------------------------------------------------------------------
@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
def test_extract_and_content_text_of_str_and_dict(strategy):
    calls = [ExtractedCall("a", {"x": 1}), ExtractedCall("b", {})]
    text = "Sure: " + strategy.codec.encode(calls)
    for message in (text, {"role": "assistant", "content": text},
                    {"role": "assistant", "content": text, "refusal": None, "annotations": []}):
        assert strategy.content_text(message) == text
        assert strategy.extract(message) == calls
        assert strategy.forming_name(message) == "b"
    assert strategy.extract("no call here {}") == []
    assert strategy.forming_name("no call here {}") is None


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
@pytest.mark.parametrize("message", [None, 3, ["x"], {"content": None},
                                     {"content": [{"type": "text", "text": "x"}]}])
def test_reading_a_non_text_message_raises_stream_error(strategy, message):
    for read in (strategy.extract, strategy.content_text, strategy.forming_name):
        with pytest.raises(StreamError):
            read(message)


RECORDS = [ToolCallRecord("a", {"x": 1}, {"ok": True}, None, "c1"),
           ToolCallRecord("b", {}, None, "unknown tool 'b'")]


def test_result_messages_json():
    text = 'Sure: {"tool": "a", "arguments": {"x": 1}}\n{"tool": "b", "arguments": {}}'
    assistant, results = TextStrategy().result_messages({"role": "assistant", "content": text},
                                                        RECORDS)
    assert assistant == {"role": "assistant", "content": text}
    assert results["role"] == "user"
    assert [json.loads(line) for line in results["content"].splitlines()] == [
        {"tool": "a", "id": "c1", "result": {"ok": True}},
        {"tool": "b", "error": "unknown tool 'b'"},
    ]


def test_result_messages_hermes():
    strategy = TextStrategy(HermesCodec())
    text = strategy.codec.encode([ExtractedCall("a", {"x": 1}), ExtractedCall("b", {})])
    assistant, results = strategy.result_messages(text, RECORDS)
    assert assistant == {"role": "assistant", "content": text}
    assert results["role"] == "user"
    assert results["content"].count("<tool_response>") == 2
    assert '"name": "a"' in results["content"] and '"id": "c1"' in results["content"]
    assert "unknown tool 'b'" in results["content"]


def test_result_messages_with_a_codec_without_encode_results():
    class Bare:
        name = "bare"

        def decode(self, text):
            return []

        def peek_name(self, text):
            return None

    [_, results] = TextStrategy(Bare()).result_messages("x", RECORDS[:1])
    assert json.loads(results["content"])["tool"] == "a"


# -- forming names -------------------------------------------------------------------------
_chars = st.characters(exclude_categories=("Cs",))
calls_lists = st.lists(st.builds(
    ExtractedCall,
    # names the formats allow (one word, no control character, no tag): any other is an
    # error call (tests/reference/test_formats_closure.py)
    st.one_of(st.sampled_from(("get_weather", "search")), st.text(_chars, min_size=1,
                                                                   max_size=12).filter(
        HermesCodec().allows_name)),
    st.dictionaries(st.text(_chars, max_size=6), st.one_of(
        st.integers(), st.text(_chars, max_size=12),
        st.sampled_from(("</tool_call>", "<tool_call>", "{", "}", "```", '{"tool": "z"}')),
    ), max_size=3),
), max_size=3)
prose = st.lists(st.one_of(
    st.sampled_from(("{", "}", '{"a": 1}', "```json\n", "```", "<b>", "</tool_call>", "\n",
                     '{"arguments": ', '{"tool": 1}', "'", '"')),
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters='{}"<\\'),
            max_size=10),
), max_size=4).map("".join)


@pytest.mark.parametrize("strategy", STRATEGIES, ids=ids)
@settings(max_examples=120, deadline=None)
@given(calls=calls_lists, data=st.data())
def test_forming_name_of_agrees_with_forming_name_on_streams(strategy, calls, data):
    text = data.draw(prose) + strategy.codec.encode(calls) + data.draw(prose)
    points = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]
    acc = strategy.new_accumulator()
    asked_from = data.draw(st.integers(0, len(pieces)))  # the tracker starts late
    for index, piece in enumerate(pieces):
        strategy.accumulate(acc, piece)
        if index >= asked_from:
            fast = strategy.forming_name_of(acc)
            assert fast == strategy.forming_name(strategy.as_message(acc))
            assert fast is None or fast in {call.name for call in calls}
    assert strategy.extract(strategy.as_message(acc)) == calls
    assert strategy.forming_name_of(acc) == (calls[-1].name if calls else None)


def test_forming_name_of_is_incremental():
    strategy = TextStrategy(HermesCodec())
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, "prose " * 1000)
    assert strategy.forming_name_of(acc) is None
    strategy.codec.peek_name = None  # the fast path must never rescan the whole text
    for piece in ["<tool_", 'call>{"na', 'me": "get_', 'weather", "arguments": {}}']:
        strategy.accumulate(acc, piece)
        strategy.forming_name_of(acc)
    assert strategy.forming_name_of(acc) == "get_weather"
    assert len(acc.tracker._carry) < 100


def test_forming_name_of_with_a_codec_without_tracker_peeks():
    class Peeking:
        name = "peeking"

        def decode(self, text):
            return []

        def peek_name(self, text):
            return "seen:" + text

    strategy = TextStrategy(Peeking())
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, "ab")
    strategy.accumulate(acc, "c")
    assert strategy.forming_name_of(acc) == "seen:abc"
    assert strategy.name == "peeking"

"""`OllamaChatStrategy`: `/api/chat` NDJSON chunks into the whole `stream=false` body."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.errors import EventOutOfOrder, MalformedChunk, ProviderError, StreamError
from mcs_reference.ollama_chat import OllamaChatStrategy
from mcs_reference.sse import decode_body

STATS = {"total_duration": 900, "load_duration": 50, "prompt_eval_count": 12,
         "prompt_eval_duration": 300, "eval_count": 7, "eval_duration": 400}


def chunk(content: str = "", *, done: bool = False, at: str = "t1", **message) -> dict:
    return {"model": "llama3.2", "created_at": at,
            "message": {"role": "assistant", "content": content, **message}, "done": done}


def final(at: str = "t9", reason: str = "stop", **message) -> dict:
    return {**chunk(at=at, done=True, **message), "done_reason": reason, **STATS}


def weather(city: str = "Tokyo", **extra) -> dict:
    return {"function": {"name": "get_weather", "arguments": {"city": city}}, **extra}


def run(chunks: list) -> tuple[OllamaChatStrategy, object, str]:
    strategy = OllamaChatStrategy()
    acc = strategy.new_accumulator()
    shown = "".join(strategy.accumulate(acc, c) for c in chunks)
    return strategy, acc, shown


# -- identity and recognition --------------------------------------------------------------
def test_identity():
    strategy = OllamaChatStrategy()
    assert strategy.name == "ollama-chat" and strategy.leaks_into_text is True


@pytest.mark.parametrize("shape", [chunk("hi"), final(), {"message": {}, "done": False},
                                   {"message": {"role": "assistant", "content": ""},
                                    "done": True, "done_reason": "stop"}])
def test_recognizes_chunks_and_bodies(shape):
    assert OllamaChatStrategy().recognizes(shape) is True


@pytest.mark.parametrize("shape", [
    None, "text", 3, [chunk()], {"message": {}, "done": 1}, {"message": {}},
    {"message": "hi", "done": False}, {"done": True},
    {"message": {}, "done": False, "choices": []},
    {"id": "c", "object": "chat.completion.chunk",
     "choices": [{"index": 0, "delta": {"content": "x"}}]},
    {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "x"}]},
    {"type": "response.completed", "response": {"output": []}},
    {"role": "assistant", "content": "hi"},
    {"error": "model not found"},
])
def test_recognizes_nothing_else(shape):
    assert OllamaChatStrategy().recognizes(shape) is False


def test_recognizes_never_raises():
    class Hostile(dict):
        def get(self, *args):
            raise RuntimeError("hostile")

    assert OllamaChatStrategy().recognizes(Hostile(message={}, done=True)) is False


# -- reassembly ----------------------------------------------------------------------------
def test_text_stream_becomes_the_stream_false_body():
    strategy, acc, shown = run([chunk(" these", at="t1"), chunk(" times", at="t2"),
                                chunk("", at="t3"), final(at="t4")])
    assert shown == " these times"
    assert strategy.as_message(acc) == {
        "model": "llama3.2", "created_at": "t4",
        "message": {"role": "assistant", "content": " these times"},
        "done_reason": "stop", "done": True, **STATS,
    }
    assert strategy.extract(strategy.as_message(acc)) == []


def test_call_in_a_done_false_chunk_then_an_empty_final_chunk_with_stats():
    strategy, acc, shown = run([chunk(tool_calls=[weather()]), final()])
    body = strategy.as_message(acc)
    assert shown == ""
    assert body["message"] == {"role": "assistant", "content": "", "tool_calls": [weather()]}
    assert body["done"] is True and body["done_reason"] == "stop" and body["eval_count"] == 7
    assert strategy.extract(body) == [ExtractedCall("get_weather", {"city": "Tokyo"})]


def test_older_servers_put_the_calls_in_the_done_true_chunk():
    calls = [weather("Boston"), {"function": {"name": "no_args"}},
             {"function": {"name": "age", "arguments": {"age": "36"}}}]
    strategy, acc, _ = run([final(tool_calls=calls)])
    body = strategy.as_message(acc)
    assert body["message"]["tool_calls"] == calls  # native shape kept: no "arguments" added
    assert strategy.extract(body) == [
        ExtractedCall("get_weather", {"city": "Boston"}),
        ExtractedCall("no_args", {}),  # a call without arguments means {}
        ExtractedCall("age", {"age": "36"}),
    ]


def test_calls_from_several_chunks_keep_their_order():
    strategy, acc, _ = run([chunk(tool_calls=[weather("A")]), chunk(tool_calls=[weather("B")]),
                            final(tool_calls=[weather("C")])])
    assert [c.arguments["city"] for c in strategy.extract(strategy.as_message(acc))] == \
        ["A", "B", "C"]


def test_newer_calls_carry_an_id_and_an_index():
    call = {"id": "call_x1", "function": {"index": 1, "name": "get_weather",
                                          "arguments": {"city": "Oslo"}}}
    strategy, acc, _ = run([chunk(tool_calls=[call]), final()])
    body = strategy.as_message(acc)
    assert body["message"]["tool_calls"] == [call]
    assert strategy.extract(body) == [ExtractedCall("get_weather", {"city": "Oslo"}, "call_x1")]


def test_think_tag_inside_content_stays_content():
    strategy, acc, shown = run([chunk("celsius"), chunk("</think>"), chunk("Sure."), final()])
    body = strategy.as_message(acc)
    assert shown == "celsius</think>Sure."
    assert body["message"] == {"role": "assistant", "content": "celsius</think>Sure."}


def test_thinking_is_joined_apart_from_content_and_not_displayed():
    strategy, acc, shown = run([chunk(thinking="Let me "), chunk(thinking="think."),
                                chunk("Answer"), final()])
    assert shown == "Answer"
    assert strategy.as_message(acc)["message"] == {
        "role": "assistant", "content": "Answer", "thinking": "Let me think."}


def test_empty_thinking_is_left_out_as_ollama_does():
    strategy, acc, _ = run([chunk("x", thinking=""), final()])
    assert "thinking" not in strategy.as_message(acc)["message"]


def test_other_message_keys_are_kept():
    strategy, acc, _ = run([chunk("a", images=None), chunk("b", images=None), final()])
    assert strategy.as_message(acc)["message"] == {"role": "assistant", "content": "ab",
                                                  "images": None}


def test_mid_stream_body_is_not_done_yet():
    strategy, acc, _ = run([chunk("par", at="t1"), chunk("tial", at="t2")])
    assert strategy.as_message(acc) == {
        "model": "llama3.2", "created_at": "t2",
        "message": {"role": "assistant", "content": "partial"}, "done": False}


def test_is_done_only_on_done_true():
    strategy = OllamaChatStrategy()
    assert strategy.is_done(final()) is True
    assert strategy.is_done(chunk()) is False
    assert strategy.is_done({"done": 1}) is False and strategy.is_done("x") is False


def test_as_message_returns_fresh_objects_and_chunks_are_not_mutated():
    chunks = [chunk(thinking="t"), chunk("a", tool_calls=[weather()]), final(images=None)]
    snapshot = copy.deepcopy(chunks)
    strategy, acc, _ = run(chunks)
    body = strategy.as_message(acc)
    body["message"]["tool_calls"][0]["function"]["arguments"]["city"] = "changed"
    body["message"]["content"] = "changed"
    body["eval_count"] = -1
    again = strategy.as_message(acc)
    assert again["message"]["tool_calls"] == [weather()]
    assert again["message"]["content"] == "a" and again["eval_count"] == 7
    assert chunks == snapshot
    strategy.result_messages(again, [ToolCallRecord("get_weather", {}, 1)])
    assert chunks == snapshot


# -- errors and bad input ------------------------------------------------------------------
def test_error_chunk_raises_provider_error_and_keeps_what_came_before():
    buf = LLMStreamBuffer(OllamaChatStrategy())
    buf.add(chunk("Hello"))
    with pytest.raises(ProviderError) as info:
        buf.add({"error": "an error was encountered while running the model"})
    assert info.value.error == "an error was encountered while running the model"
    assert info.value.index == 1
    assert buf.as_dict()["message"]["content"] == "Hello"
    with pytest.raises(ProviderError) as info:
        run([chunk("x"), {"error": {"message": "overloaded", "type": "server"}}])
    assert info.value.error["message"] == "overloaded"


def test_chunk_after_done_is_out_of_order():
    with pytest.raises(EventOutOfOrder):
        run([final(), chunk("late")])


BAD = {
    "not a dict": "text",
    "a list": [1],
    "no message": {"done": False},
    "message not a dict": {"message": "x", "done": False},
    "no done": {"message": {"content": "x"}},
    "done not a bool": {"message": {"content": "x"}, "done": "false"},
    "content not a string": chunk(content=None) | {"message": {"content": 3}},
    "role not a string": {"message": {"role": 1, "content": ""}, "done": False},
    "thinking not a string": {"message": {"content": "", "thinking": ["x"]}, "done": False},
    "model not a string": {"model": 3, "message": {"content": ""}, "done": False},
    "created_at not a string": {"created_at": 3, "message": {"content": ""}, "done": False},
    "tool_calls not a list": chunk(tool_calls={"function": {}}),
    "call not a dict": chunk(tool_calls=["get_weather"]),
    "call without function": chunk(tool_calls=[{"name": "x"}]),
    "function without name": chunk(tool_calls=[{"function": {"arguments": {}}}]),
    "name not a string": chunk(tool_calls=[{"function": {"name": 3}}]),
    "id not a string": chunk(tool_calls=[weather(id=3)]),
}


@pytest.mark.parametrize("label", list(BAD))
def test_bad_chunk_raises_stream_error_and_leaves_no_trace(label):
    strategy, acc, _ = run([chunk("kept")])
    before = strategy.as_message(acc)
    with pytest.raises(MalformedChunk) as info:
        strategy.accumulate(acc, BAD[label])
    assert "expected" in str(info.value)
    assert strategy.as_message(acc) == before


@pytest.mark.parametrize("label", list(BAD))
def test_bad_first_chunk_through_the_buffer_is_a_stream_error(label):
    buf = LLMStreamBuffer(OllamaChatStrategy())
    with pytest.raises(StreamError):
        buf.add(BAD[label])


@pytest.mark.parametrize("message", [None, "x", {"done": True}, {"message": "x"}])
def test_reading_a_non_body_raises_stream_error(message):
    strategy = OllamaChatStrategy()
    for read in (strategy.extract, strategy.content_text, strategy.forming_name):
        with pytest.raises(StreamError):
            read(message)
    with pytest.raises(StreamError):
        strategy.extract({"message": {"tool_calls": "x"}, "done": True})


def test_malformed_calls_in_a_body_become_error_calls():
    body = {"message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "a", "arguments": [1, 2]}},
        {"function": {"name": "b", "arguments": '{"x": 1}'}},
        {"function": {"name": "c", "arguments": "{not json"}},
        {"function": {"arguments": {}}},
        "junk",
    ]}, "done": True}
    a, b, c, nameless, junk = OllamaChatStrategy().extract(body)
    assert a.name == "a" and a.error and a.arguments == {}
    assert b == ExtractedCall("b", {"x": 1})
    assert c.name == "c" and c.error and c.raw_arguments == "{not json"
    assert nameless.name == "" and nameless.error
    assert junk.name == "" and junk.error


# -- reading and history -------------------------------------------------------------------
def test_content_text_and_forming_names():
    strategy = OllamaChatStrategy()
    acc = strategy.new_accumulator()
    strategy.accumulate(acc, chunk("Let me check."))
    assert strategy.forming_name_of(acc) is None
    assert strategy.forming_name(strategy.as_message(acc)) is None
    strategy.accumulate(acc, chunk(tool_calls=[weather(), {"function": {"name": "search"}}]))
    assert strategy.forming_name_of(acc) == "search"
    assert strategy.forming_name(strategy.as_message(acc)) == "search"
    assert strategy.content_text(strategy.as_message(acc)) == "Let me check."


def test_result_messages_are_the_assistant_turn_then_tool_messages():
    strategy, acc, _ = run([chunk(thinking="hmm"), chunk("Checking."),
                            chunk(tool_calls=[weather(), weather("Oslo")]), final()])
    records = [ToolCallRecord("get_weather", {"city": "Tokyo"}, {"temp": 21}),
               ToolCallRecord("get_weather", {"city": "Oslo"}, None, "timeout")]
    history = strategy.result_messages(strategy.as_message(acc), records)
    assert history == [
        {"role": "assistant", "content": "Checking.", "thinking": "hmm",
         "tool_calls": [weather(), weather("Oslo")]},
        {"role": "tool", "content": '{"temp": 21}', "tool_name": "get_weather"},
        {"role": "tool", "content": "Error: timeout", "tool_name": "get_weather"},
    ]
    plain = strategy.result_messages({"message": {"content": "x"}, "done": True},
                                     [ToolCallRecord("t", {}, "text result")])
    assert plain == [{"role": "assistant", "content": "x"},
                     {"role": "tool", "content": "text result", "tool_name": "t"}]


# -- through the buffer, from bytes --------------------------------------------------------
def test_ndjson_bytes_through_the_buffer():
    lines = [chunk("Hi", at="t1"), chunk(tool_calls=[weather()], at="t2"), final(at="t3")]
    body = "\n".join(json.dumps(line) for line in lines).encode()
    buf = LLMStreamBuffer(OllamaChatStrategy())
    shown = [buf.add(c) for c in decode_body(body)]
    assert shown == ["Hi", "", ""] and buf.is_done()
    assert buf.forming_name() == "get_weather"
    assert buf.as_dict()["created_at"] == "t3"
    assert OllamaChatStrategy().extract(buf.as_dict()) == [
        ExtractedCall("get_weather", {"city": "Tokyo"})]


# -- property: every chunking of a body reassembles to it ----------------------------------
_chars = st.characters(exclude_categories=("Cs",))
_text = st.text(_chars, max_size=30)
_args = st.dictionaries(st.text(_chars, max_size=5), st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(_chars, max_size=10),
    st.lists(st.integers(), max_size=2)), max_size=3)


@st.composite
def bodies(draw) -> dict:
    message = {"role": "assistant", "content": draw(_text)}
    thinking = draw(_text)
    if thinking:
        message["thinking"] = thinking
    calls = []
    for index in range(draw(st.integers(0, 3))):
        function = {"name": draw(st.sampled_from(("get_weather", "search", "x")))}
        if draw(st.booleans()):
            function["arguments"] = draw(_args)
        call = {"function": function}
        if draw(st.booleans()):
            call = {"id": f"call_{index}", "function": {"index": index, **function}}
        calls.append(call)
    if calls:
        message["tool_calls"] = calls
    return {"model": "qwen3", "created_at": "2025-01-01T00:00:09Z", "message": message,
            "done_reason": draw(st.sampled_from(("stop", "length"))), "done": True, **STATS}


def _cut(draw, text: str) -> list[str]:
    points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=4)))
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)])]


@settings(max_examples=150, deadline=None)
@given(body=bodies(), data=st.data())
def test_every_chunking_of_a_body_reassembles_to_it(body, data):
    message = body["message"]
    parts = [{"role": "assistant", "content": "", "thinking": piece}
             for piece in _cut(data.draw, message.get("thinking", "")) if piece]
    parts += [{"role": "assistant", "content": piece}
              for piece in _cut(data.draw, message["content"])]
    calls = message.get("tool_calls")
    calls_in_final = bool(calls) and data.draw(st.booleans())
    if calls and not calls_in_final:
        parts.append({"role": "assistant", "content": "", "tool_calls": copy.deepcopy(calls)})
    last = {"role": "assistant", "content": ""}
    if calls_in_final:
        last["tool_calls"] = copy.deepcopy(calls)
    chunks = [{"model": "qwen3", "created_at": f"t{i}", "message": part, "done": False}
              for i, part in enumerate(parts)]
    chunks.append({**copy.deepcopy(body), "message": last})

    strategy, acc, shown = run(chunks)
    assert strategy.as_message(acc) == body
    assert shown == message["content"]
    assert [strategy.is_done(c) for c in chunks] == [False] * len(parts) + [True]
    expected = [ExtractedCall(c["function"]["name"], c["function"].get("arguments", {}),
                              c.get("id")) for c in calls or []]
    assert strategy.extract(strategy.as_message(acc)) == expected
    assert strategy.forming_name_of(acc) == (expected[-1].name if expected else None)
    # the stream=false body itself, as one chunk, is its own reassembly
    strategy, acc, _ = run([copy.deepcopy(body)])
    assert strategy.as_message(acc) == body

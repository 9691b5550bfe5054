"""The Ollama chat wire: whole `/api/chat` bodies, their NDJSON streams, schemas."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, Phase, find, given, settings

from mcs_conformance.base import schema
from mcs_conformance.wires import get_wire
from mcs_conformance.wires.ollama_chat import COUNTERS, cases, messages
from mcs_reference import OllamaChatStrategy

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
MANY = settings(max_examples=100, deadline=None, suppress_health_check=QUIET)
COVER = settings(max_examples=300, deadline=None, suppress_health_check=QUIET, database=None,
                 derandomize=True, phases=[Phase.generate])
SHRINK = settings(max_examples=1000, deadline=None, suppress_health_check=QUIET, database=None,
                  derandomize=True)


@MANY
@given(messages())
def test_messages_are_whole_stream_false_bodies(body):
    assert {"model", "created_at", "message", "done", "done_reason", *COUNTERS} == set(body)
    assert body["done"] is True
    message = body["message"]
    assert message["role"] == "assistant" and isinstance(message["content"], str)
    assert set(message) <= {"role", "content", "thinking", "tool_calls"}
    if "thinking" in message:
        assert message["thinking"]
    for call in message.get("tool_calls", ()):
        assert isinstance(call["function"].get("arguments", {}), dict)
    if message.get("tool_calls"):
        assert body["done_reason"] == "stop"
    assert schema.errors(body, "ollama-chat.message.json") == []


@MANY
@given(cases())
def test_every_chunk_and_body_fits_the_schemas(case):
    for chunk in case.chunks:
        assert schema.errors(chunk, "ollama-chat.chunk.json") == [], chunk
    assert schema.errors(case.message, "ollama-chat.message.json") == []
    json.dumps(case.chunks)


@MANY
@given(cases())
def test_case_truth_matches_the_stream(case):
    body = case.message
    assert [chunk["done"] for chunk in case.chunks] == [False] * case.done_at + [True]
    final = case.chunks[-1]
    assert final["created_at"] == body["created_at"] and final["message"]["content"] == ""
    assert {k: v for k, v in final.items() if k != "message"} == {
        k: v for k, v in body.items() if k != "message"
    }
    stamps = [chunk["created_at"] for chunk in case.chunks]
    assert stamps == sorted(stamps, key=_ns) and len(set(stamps)) == len(stamps)
    assert all(chunk["model"] == body["model"] for chunk in case.chunks)
    calls = [c for chunk in case.chunks for c in chunk["message"].get("tool_calls", ())]
    assert calls == body["message"].get("tool_calls", [])
    assert [c.name for c in case.calls] == [c["function"]["name"] for c in calls]
    assert [c.arguments for c in case.calls] == [c["function"].get("arguments", {}) for c in calls]
    assert [c.id for c in case.calls] == [c.get("id") for c in calls]
    assert case.text == "".join(chunk["message"]["content"] for chunk in case.chunks)
    thinking = "".join(chunk["message"].get("thinking", "") for chunk in case.chunks)
    assert thinking == body["message"].get("thinking", "")
    assert case.response == body


def _ns(stamp: str) -> tuple:
    head, _, frac = stamp.rstrip("Z").partition(".")
    return head, frac.ljust(9, "0")




@MANY
@given(cases())
def test_the_reference_is_done_on_the_last_chunk_only(case):
    strategy = OllamaChatStrategy()
    assert [i for i, c in enumerate(case.chunks) if strategy.is_done(c)] == [case.done_at]


def features(case) -> set[str]:
    body, chunks = case.message, case.chunks
    calls = body["message"].get("tool_calls") or []
    functions = [call["function"] for call in calls]
    checks = {
        "thinking": "thinking" in body["message"],
        "text-and-calls": bool(calls) and bool(case.text),
        "parallel": len(calls) > 1,
        "calls-in-own-chunk": any(c["message"].get("tool_calls") for c in chunks[:-1]),
        "calls-in-final-chunk": bool(chunks[-1]["message"].get("tool_calls")),
        "bare-calls": bool(calls) and all(set(f) <= {"name", "arguments"} for f in functions)
        and not any("id" in c for c in calls),
        "index-0-omitted": len(functions) > 1 and "index" not in functions[0]
        and functions[1].get("index") == 1,
        "ids": any("id" in call for call in calls),
        "no-arguments-key": any("arguments" not in f for f in functions),
        "empty-chunk": any(c["message"] == {"role": "assistant", "content": ""}
                           for c in chunks[:-1]),
        "length": body["done_reason"] == "length",
        "astral": any(ord(ch) > 0xFFFF for ch in case.text),
        "marker-in-arguments": "</tool_call>" in json.dumps(functions, ensure_ascii=False),
    }
    return {name for name, present in checks.items() if present}


def test_the_quirks_of_real_servers_are_all_drawn():
    seen: set[str] = set()

    @COVER
    @given(cases())
    def collect(case):
        seen.update(features(case))

    collect()
    assert {
        "thinking", "text-and-calls", "parallel", "calls-in-own-chunk", "calls-in-final-chunk",
        "bare-calls", "index-0-omitted", "ids", "no-arguments-key", "empty-chunk", "length",
        "astral", "marker-in-arguments",
    } - seen == set()


def test_a_stream_with_a_call_shrinks_to_a_minimal_one():
    case = find(cases(), lambda c: len(c.calls) >= 1, settings=SHRINK)
    assert len(case.chunks) <= 2
    assert case.text == "" and "thinking" not in case.message["message"]
    assert case.calls[0].arguments == {} and case.calls[0].name == "get_weather"


def test_thinking_shrinks_to_a_short_stream():
    case = find(cases(), lambda c: "thinking" in c.message["message"], settings=SHRINK)
    assert len(case.chunks) <= 2 and len(case.message["message"]["thinking"]) <= 5
    assert not case.calls


def test_wire_facts_and_options():
    wire = get_wire("ollama-chat", min_calls=1, max_calls=1)
    assert wire.name == "ollama-chat" and wire.native
    assert wire.strategy_names == {"ollama-chat"}
    assert (wire.chunk_schema, wire.message_schema, wire.request_schema) == (
        "ollama-chat.chunk.json", "ollama-chat.message.json", "ollama-chat.request.json"
    )

    @settings(max_examples=15, deadline=None, suppress_health_check=QUIET)
    @given(wire.cases(), wire.messages())
    def check(case, body):
        assert len(case.calls) == 1 and len(body["message"]["tool_calls"]) == 1

    check()


def test_the_schemas_refuse_real_mistakes():
    case = find(cases(), lambda c: len(c.calls) >= 1, settings=SHRINK)
    chunk = next(c for c in case.chunks if c["message"].get("tool_calls"))
    call = chunk["message"]["tool_calls"][0]
    text_args = {**call, "function": {"name": "f", "arguments": "{\"a\": 1}"}}
    broken_chunks = [
        {**chunk, "message": {**chunk["message"], "tool_calls": [text_args]}},
        {**chunk, "message": {**chunk["message"], "content": None}},
        {**chunk, "done": "false"},
        {k: v for k, v in chunk.items() if k != "created_at"},
        {**chunk, "created_at": "yesterday"},
        {**chunk, "message": {**chunk["message"], "role": "user"}},
        {**chunk, "message": {**chunk["message"], "type": "text"}},
    ]
    for item in broken_chunks:
        assert schema.errors(item, "ollama-chat.chunk.json"), item
    assert schema.errors({**case.message, "done": False}, "ollama-chat.message.json")
    good = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather?", "images": ["aGVsbG8="]},
        {"role": "assistant", "content": "", "thinking": "hm",
         "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "content": "21", "tool_name": "get_weather"},
    ]
    for message in good:
        assert schema.errors(message, "ollama-chat.request.json") == [], message
    bad = [
        {"role": "assistant", "content": "", "tool_calls": [text_args]},
        {"role": "assistant", "content": None},
        {"role": "tool", "tool_call_id": "call_1"},  # no content
        {"role": "user", "content": "x", "tool_calls": [call]},
        {"role": "assistant", "content": [{"type": "text", "text": "x"}]},
        {"role": "tool", "content": "21", "name": "get_weather"},  # OpenAI's key, not Ollama's
    ]
    for message in bad:
        assert schema.errors(message, "ollama-chat.request.json"), message

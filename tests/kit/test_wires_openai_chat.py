"""The OpenAI Chat wire: realistic messages, chunkings the official SDK agrees with, schemas."""
from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from mcs_conformance.base import schema
from mcs_conformance.wires import get_wire
from mcs_conformance.wires.openai_chat import cases, chunkings, messages
from mcs_conformance.wires import quirk_names
from mcs_reference import OpenAIChatStrategy

NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
MANY = settings(max_examples=100, deadline=None, suppress_health_check=QUIET)
FEW = settings(max_examples=20, deadline=None, suppress_health_check=QUIET)
SHRINK = settings(max_examples=1000, deadline=None, suppress_health_check=QUIET, database=None,
                  derandomize=True)


# Quirks the SDK's accumulator cannot take, for reasons of its own: it asserts that every
# tool-call delta has a `function` (split-id-then-name) and an `index` (no-index), reads
# `choices[0]` of a first chunk (azure-empty-first-chunk), refuses a final completion
# without `finish_reason` (no-finish-reason), requires `object` (no-object-field), joins a
# repeated `role` into "assistantassistant" (finish-reason-twice) and takes the moderation
# chunk's `usage: null` as the usage (moderation-chunk).
NOT_FOR_SDK = {"split-id-then-name", "no-index", "azure-empty-first-chunk", "no-finish-reason",
               "empty-envelope", "no-object-field", "finish-reason-twice", "moderation-chunk"}
SDK_QUIRKS = quirk_names("openai-chat") - NOT_FOR_SDK


def sdk_completion(chunks: list):
    """The `ChatCompletion` snapshot the official SDK accumulates from `chunks` (validated
    against the installed types, no patching)."""
    state = ChatCompletionStreamState()
    for chunk in chunks:
        state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    snapshot = state.current_completion_snapshot
    if all(c.finish_reason != "length" for c in snapshot.choices):  # the SDK refuses those
        state.get_final_completion()
    return snapshot


def deltas_of(chunk: dict) -> list[dict]:
    return [choice["delta"] for choice in chunk["choices"]]


def entries(case) -> list[dict]:
    return [e for chunk in case.chunks for d in deltas_of(chunk) for e in d.get("tool_calls") or ()]


# ---------------------------------------------------------------- messages
@MANY
@given(messages())
def test_messages_have_the_stream_false_shape(message):
    expected = {"role", "content", "refusal", "annotations"}
    extra = set(message) - expected
    assert extra <= {"tool_calls", "reasoning_content"}
    assert ("tool_calls" in extra) == bool(message.get("tool_calls"))
    assert message["role"] == "assistant"
    assert all(a["type"] == "url_citation" for a in message["annotations"])
    assert message["content"] is None or isinstance(message["content"], str)
    if message["refusal"] is not None:
        assert message["refusal"] and message["content"] is None and "tool_calls" not in message
    for call in message.get("tool_calls", ()):
        assert call["id"].startswith("call_") and call["type"] == "function"
        assert NAME_RE.match(call["function"]["name"])
        assert isinstance(json.loads(call["function"]["arguments"]), dict)
    assert schema.errors(message, "openai-chat.message.json") == []


@MANY
@given(messages(min_calls=2))
def test_calls_get_unique_ids(message):
    ids = [call["id"] for call in message["tool_calls"]]
    assert len(set(ids)) == len(ids)


# ---------------------------------------------------------------- cases and chunks
@MANY
@given(cases())
def test_every_chunk_message_and_response_fits_the_schemas(case):
    for chunk in case.chunks:
        assert schema.errors(chunk, "openai-chat.chunk.json") == [], chunk
    assert schema.errors(case.message, "openai-chat.message.json") == []
    assert schema.errors(case.response, "openai-chat.response.json") == []
    assert case.response["choices"][0]["message"] == case.message
    json.dumps(case.chunks)  # plain JSON data


def finishing(case) -> list[int]:
    return [i for i, c in enumerate(case.chunks)
            if any(ch.get("finish_reason") for ch in c["choices"])]


@MANY
@given(cases())
def test_case_truth_matches_the_stream(case):
    ends = finishing(case)
    if "no-finish-reason" in case.quirks:
        assert ends == [] and case.done_at == len(case.chunks)
    else:
        assert ends[0] == case.done_at
    if len(ends) > 1:
        assert "n-choices" in case.quirks or "finish-reason-twice" in case.quirks
    for chunk in case.chunks[case.done_at + 1:]:  # only finishes and trailing chunks follow
        assert all(choice["delta"] in ({}, {"role": "assistant", "content": ""})
                   for choice in chunk["choices"])
    first = next(c for c in case.chunks if c["choices"])
    assert first["choices"][0]["delta"]["role"] == "assistant"
    assert case.text == (case.message["content"] or "")
    calls = case.message.get("tool_calls") or []
    assert [(c.name, c.id) for c in case.calls] == [
        (call["function"]["name"], call["id"]) for call in calls
    ]
    assert [c.arguments for c in case.calls] == [
        json.loads(call["function"]["arguments"]) for call in calls
    ]
    reason = case.response["choices"][0]["finish_reason"]
    if "no-finish-reason" in case.quirks:
        assert reason is None
    else:
        assert reason == "tool_calls" if calls else reason in ("stop", "length")
    assert case.response["choices"][0]["message"] == case.message
    assert (len(case.response["choices"]) > 1) == ("n-choices" in case.quirks)


@MANY
@given(cases(quirks=frozenset()))
def test_openais_own_shape_validates_against_the_sdk_types_unpatched(case):
    assert case.quirks == frozenset()
    for chunk in case.chunks:
        ChatCompletionChunk.model_validate(chunk)
    ChatCompletion.model_validate(case.response)


@MANY
@given(cases(quirks=SDK_QUIRKS))
def test_the_official_sdk_rebuilds_each_message_from_its_chunks(case):
    snapshot = sdk_completion(case.chunks)
    choice = snapshot.choices[0]
    message = choice.message
    assert message.role == "assistant"
    assert message.content == case.message["content"]
    assert message.refusal == case.message["refusal"]
    assert len(snapshot.choices) == len(case.response["choices"])
    got = [(c.id, c.type, c.function.name, c.function.arguments) for c in message.tool_calls or ()]
    assert got == [
        (c["id"], c["type"], c["function"]["name"], c["function"]["arguments"])
        for c in case.message.get("tool_calls", ())
    ]
    assert choice.finish_reason == case.response["choices"][0]["finish_reason"]
    assert (snapshot.usage and snapshot.usage.model_dump(exclude_unset=True)) == (
        case.response.get("usage")
    )
    assert (snapshot.id, snapshot.model, snapshot.created) == (
        case.response["id"], case.response["model"], case.response["created"]
    )




@MANY
@given(cases())
def test_the_reference_is_done_on_each_finishing_chunk(case):
    strategy = OpenAIChatStrategy()
    assert [i for i, c in enumerate(case.chunks) if strategy.is_done(c)] == finishing(case)


@FEW
@given(st.data())
def test_chunkings_of_one_message_all_carry_it(data):
    message = data.draw(messages(min_calls=1))
    first = data.draw(chunkings(message, quirks=SDK_QUIRKS))
    second = data.draw(chunkings(message, quirks=SDK_QUIRKS))
    for chunks in (first, second):
        assert sdk_completion(chunks).choices[0].message.tool_calls[0].id == (
            message["tool_calls"][0]["id"]
        )


# ---------------------------------------------------------------- realism: each quirk occurs
def features(case) -> set[str]:
    """The realistic traits one generated case shows."""
    out: set[str] = set()
    message, chunks = case.message, case.chunks
    calls = message.get("tool_calls") or []
    texts = [call["function"]["arguments"] for call in calls]
    order = [e.get("index", -1) for e in entries(case)]
    deltas = [d for chunk in chunks for d in deltas_of(chunk)]
    checks = {
        "parallel": len(calls) > 1,
        "interleaved": any(a > b for a, b in zip(order, order[1:])),
        "grouped": any(len(d.get("tool_calls") or ()) > 1 for d in deltas),
        "whole-args": any(e.get("id") and e.get("function", {}).get("arguments")
                          for e in entries(case)),
        "empty-args-first": any(e.get("id") and e.get("function", {}).get("arguments") == ""
                                for e in entries(case)),
        "split-id-name": any(e.get("id") and "function" not in e for e in entries(case)),
        "echo-empty-id": any(e.get("id") == "" for e in entries(case)),
        "empty-delta": any(d == {} for d in deltas[1:]),
        "usage-trailing": any(c["choices"] == [] and c.get("usage") for c in chunks),
        "usage-on-finish": any(c["choices"] and c.get("usage") for c in chunks),
        "obfuscation": "obfuscation" in chunks[0],
        "refusal": message["refusal"] is not None,
        "refusal-empty-first": deltas[0].get("refusal") == "",
        "calls-content-none": bool(calls) and message["content"] is None,
        "calls-content-empty": bool(calls) and message["content"] == "",
        "calls-with-text": bool(calls) and bool(message["content"]),
        "length": case.response["choices"][0]["finish_reason"] == "length",
        "finish-on-last-delta": case.done_at < len(chunks) and bool(
            deltas_of(chunks[case.done_at])[0]),
        "logprobs": any(ch.get("logprobs") for c in chunks for ch in c["choices"]),
        "annotations": bool(message["annotations"]),
        "role-merged": len(deltas[0]) > 2,
        "astral-text": any(ord(ch) > 0xFFFF for ch in case.text),
        "marker-text": "</tool_call>" in case.text or "```" in case.text,
        "marker-args": any("</tool_call>" in t or "```" in t for t in texts),
        "no-args": "{}" in texts,
        "big-args": any(len(t) > 2000 for t in texts),
        "escaped-args": any("\\u" in t for t in texts),
        "raw-unicode-args": any(any(ord(ch) > 127 for ch in t) for t in texts),
        "spaced-args": any('": ' in t for t in texts),
        "compact-args": any('":' in t and '": ' not in t for t in texts),
    }
    out.update(name for name, present in checks.items() if present)
    return out


def test_the_quirks_of_real_servers_are_all_drawn(drawn_over_seeds):
    expected = {
        "parallel", "interleaved", "grouped", "whole-args", "empty-args-first", "split-id-name",
        "echo-empty-id", "empty-delta", "usage-trailing", "usage-on-finish", "obfuscation",
        "refusal", "refusal-empty-first", "calls-content-none", "calls-content-empty",
        "calls-with-text", "length", "finish-on-last-delta", "role-merged", "astral-text",
        "marker-text", "marker-args", "no-args", "big-args", "escaped-args",
        "raw-unicode-args", "spaced-args", "compact-args", "logprobs", "annotations",
    }
    seen = drawn_over_seeds(cases(), features, expected, examples=600)
    assert expected - seen == set()


@MANY
@given(cases())
def test_interleaved_calls_start_in_order(case):
    if "n-choices" not in case.quirks and "no-index" not in case.quirks:
        starts = [e["index"] for e in entries(case) if e.get("id")]
        assert starts == list(range(len(case.calls)))


# ---------------------------------------------------------------- shrinking
def test_a_stream_with_a_call_shrinks_to_a_minimal_one():
    case = find(cases(), lambda c: len(c.calls) >= 1, settings=SHRINK)
    assert len(case.chunks) <= 4 and case.quirks == frozenset()
    assert case.text == "" and case.message["content"] is None
    assert case.calls[0].arguments == {} and case.calls[0].name == "get_weather"


def test_interleaved_parallel_calls_shrink_to_a_small_stream():
    def interleaved(case):  # in the answer's calls (another choice's may interleave too)
        return "interleaved-calls" in case.quirks and "n-choices" not in case.quirks

    case = find(cases(max_calls=2), interleaved, settings=SHRINK)
    assert len(case.calls) == 2 and len(case.chunks) <= 7
    assert all(call.arguments == {} for call in case.calls)


def test_options_bound_the_calls():
    wire = get_wire("openai-chat", min_calls=2, max_calls=2)

    @FEW
    @given(wire.cases(), wire.messages())
    def check(case, message):
        assert len(case.calls) == 2 and len(message["tool_calls"]) == 2

    check()
    assert wire.strategy_names == {"openai-chat"} and wire.native
    assert (wire.chunk_schema, wire.message_schema, wire.request_schema) == (
        "openai-chat.chunk.json", "openai-chat.message.json", "openai-chat.request.json"
    )


# ---------------------------------------------------------------- request schema
def test_the_request_schema_accepts_a_real_history_and_refuses_real_mistakes():
    call = {"id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}
    good = [
        {"role": "system", "content": "Be brief."},
        {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "refusal": None, "annotations": [],
         "tool_calls": [call]},
        {"role": "assistant", "content": "Sunny."},
        {"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\": 21}"},
    ]
    for message in good:
        assert schema.errors(message, "openai-chat.request.json") == [], message
    bad = [
        {"role": "assistant", "content": None},  # neither content nor calls
        {"role": "assistant", "content": None, "tool_calls": []},  # empty list is refused
        {"role": "assistant", "content": "x", "tool_calls": [
            {**call, "function": {"name": "f", "arguments": {"city": "Paris"}}}]},  # object args
        {"role": "assistant", "content": "x", "tool_calls": [{**call, "index": 0}]},  # stream key
        {"role": "tool", "tool_call_id": None, "content": "21"},
        {"role": "tool", "content": "21"},
        {"role": "user", "content": None},
        {"role": "assistant", "content": [{"type": "tool_use"}]},
        {"role": "bot", "content": "hi"},
    ]
    for message in bad:
        assert schema.errors(message, "openai-chat.request.json"), message


def test_the_chunk_schema_refuses_real_mistakes():
    case = find(cases(), lambda c: len(c.calls) >= 1, settings=SHRINK)
    chunk = case.chunks[1]
    entry = chunk["choices"][0]["delta"]["tool_calls"][0]
    broken = [
        {**chunk, "choices": [{**chunk["choices"][0], "delta": {"tool_calls": [
            {k: v for k, v in entry.items() if k not in ("index", "id")}]}}]},
        {**chunk, "choices": [{**chunk["choices"][0], "delta": {"tool_calls": [
            {**entry, "function": {"name": "f", "arguments": {}}}]}}]},
        {**chunk, "choices": [{**chunk["choices"][0], "finish_reason": "done"}]},
        {k: v for k, v in chunk.items() if k != "choices"},
        {**chunk, "object": "chat.completion"},
    ]
    for item in broken:
        assert schema.errors(item, "openai-chat.chunk.json"), item

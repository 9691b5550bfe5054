"""Replay the recorded Gemini streams and bodies of shared/corpora-real through the reference.

The recordings stay where they are (they are not part of the project, see its SOURCES.md and
QUIRKS.md); each file has its expectations here, keyed by file name, so a new recording
without expectations fails. Formats: `.sse` raw SSE bytes, `.jsonl` one record a line,
`.jsonarray.json` the JSON-array transport (one element a record), `.nonstream.json` a body.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from google.genai import types

from mcs_reference import ExtractedCall, GeminiStrategy, LLMStreamBuffer, default_chain
from mcs_reference.calls import ToolCallRecord
from mcs_reference.sse import decode_body

FOLDER = Path(__file__).parents[2].parent / "shared" / "corpora-real"
CORPUS = FOLDER / "gemini"
# The recordings are beside a clone in CI, not on a user's machine: skip, saying why.
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no {CORPUS} beside this clone")
S = GeminiStrategy()
CALLS_MESSAGE = "Model generated function call(s)."
CALL, SIGNED, TEXT, THOUGHT = (["functionCall"], ["functionCall", "thoughtSignature"], ["text"],
                               ["text", "thought"])
RECIPE_STEP_1 = "Cook lasagna noodles according to package directions, drain and set aside."
RECIPE_STEP_4 = "In a 9x13 baking dish, spread a thin layer of meat sauce."


def _call(name: str, arguments: dict, id: str | None = None) -> ExtractedCall:
    return ExtractedCall(name, arguments, id)


def _recipe(message: dict) -> bool:
    recipe = S.extract(message)[0].arguments["recipe"]
    return (len(recipe["ingredients"]) == 10 and len(recipe["steps"]) == 10
            and recipe["ingredients"][0] == {"amount": "16 oz", "name": "Lasagna noodles"}
            and recipe["ingredients"][9] == {"amount": "1/2 tsp", "name": "Pepper"}
            and recipe["name"] == "Lasagna" and recipe["steps"][1] == RECIPE_STEP_1
            and recipe["steps"][4] == RECIPE_STEP_4 and set(recipe) == {"ingredients", "name", "steps"})


def _candidate(message: dict) -> dict:
    return message["candidates"][0]


# file name -> calls, the start of the visible text, the keys of each part, extra checks
EXPECT = {
    "crewai-gemini20flash-single-call-stream.sse": (
        [_call("get_current_temperature", {"city": "San Francisco"})], "", [CALL],
        lambda m: m["modelVersion"] == "gemini-2.0-flash" and "index" not in _candidate(m)),
    "jsgenai-gemini20flash-parallel-3calls.nonstream.json": (
        [_call("print", {"color": "blue", "text": "hello"}), _call("beep", {}),
         _call("controlLight", {"brightness": 50, "colorTemperature": "warm"})], "",
        [CALL, CALL, CALL], lambda m: _candidate(m)["avgLogprobs"] < 0),
    "jsgenai-gemini25flash-stream-call-thoughtsig.jsonl": (
        [_call("customDivide", {"denominator": 2, "numerator": 10})], "", [SIGNED],
        lambda m: _candidate(m)["finishMessage"] == CALLS_MESSAGE),
    "jsgenai-gemini25pro-parallel-2calls-sig-on-first.nonstream.json": (
        [_call("print", {"color": "blue", "text": "hello"}), _call("beep", {})], "",
        [SIGNED, CALL], lambda m: m["usageMetadata"]["thoughtsTokenCount"] == 155),
    "jsgenai-serverside-mcp-call-response-text-stream.jsonl": (  # the server ran the call
        [], "Here's the hourly weather forecast for San Francisco on February 2nd, 2026:",
        [CALL, ["functionResponse"], TEXT],
        lambda m: m["turnToken"].startswith("v1_") and _candidate(m)["finishReason"] == "STOP"
        and m["usageMetadata"]["toolUsePromptTokenCount"] > 0),
    "jsgenai-serverside-mcp-call-response-text-stream2.jsonl": (
        [], "On February 2nd, 2026, the weather in New York will range from a low of -13°C",
        [CALL, ["functionResponse"], TEXT],
        lambda m: _candidate(m)["content"]["parts"][1]["functionResponse"]["name"]
        == "weather_server_get_weather"),
    "jsgenai-vertex-gemini20flash-stream-call.jsonl": (
        [_call("customDivide", {"denominator": 2, "numerator": 100})], "", [CALL],
        lambda m: m["createTime"] == "2025-08-16T00:45:55.962384Z"
        and m["usageMetadata"]["trafficType"] == "ON_DEMAND" and "index" not in _candidate(m)),
    "jsgenai-vertex-partialargs-greet.jsonl": (
        [_call("greet", {"greeting": "Hello", "name": "jone smith"})], "", [SIGNED],
        lambda m: _candidate(m)["content"]["parts"][0]["thoughtSignature"].startswith("CiQB4")),
    "jsgenai-vertex-partialargs-numbers-single-chunk.jsonl": (
        [_call("customDivide", {"denominator": 2, "numerator": 100})], "", [SIGNED],
        lambda m: _candidate(m)["content"]["parts"][0]["functionCall"]
        == {"name": "customDivide", "args": {"denominator": 2, "numerator": 100}}),
    "llmgemini-25flash-thought-then-call.jsonarray.json": (
        [_call("pelican_name_generator", {})], "", [THOUGHT, SIGNED],
        lambda m: _candidate(m)["content"]["parts"][0]["text"].startswith("**Generating Pelican")),
    "llmgemini-flashlatest-call-with-id-nested-args.jsonarray.json": (
        [_call("add_person", {"age": 30, "name": "Alice", "address": {
            "street": "123 Main St", "city": "San Francisco", "zipcode": "94102"}}, "whZntcQw")],
        "", [SIGNED], lambda m: m["modelVersion"] == "gemini-3.6-flash"),
    "pydanticai-gemini25pro-MAX_TOKENS-empty-notool.nonstream.json": (
        [], "", [], lambda m: _candidate(m)["content"] == {"role": "model"}
        and _candidate(m)["finishReason"] == "MAX_TOKENS"),
    "pydanticai-gemini3flash-3-parallel-calls-sig-on-first.nonstream.json": (
        [_call("generate_topic", {})] * 3, "", [SIGNED, CALL, CALL],
        lambda m: _candidate(m)["finishMessage"] == CALLS_MESSAGE),
    "pydanticai-stream-gemini2flash-call1.sse": (
        [_call("get_capital", {"country": "France"})], "", [CALL],
        lambda m: m["responseId"] == "1lpeaMTxIpW1nvgP-O3vwQY"),
    "pydanticai-stream-gemini2flash-call2.sse": (
        [_call("get_temperature", {"city": "Paris"})], "", [CALL],
        lambda m: m["usageMetadata"]["promptTokenCount"] == 64),
    "pydanticai-stream-gemini3-after-tool-usage-jump-notool.sse": (
        [], "The capital of Mexico is Mexico City.", [TEXT],
        lambda m: m["usageMetadata"]["promptTokenCount"] == 257),  # the last record's count
    "pydanticai-stream-gemini3-noargs-thoughtsig.sse": (
        [_call("get_country", {})], "", [SIGNED],
        lambda m: m["usageMetadata"]["thoughtsTokenCount"] == 202),
    "vercel-google-reasoning-text-notool.jsonl": (  # the signature lands on the text run
        [], 'There are **3** "r"s in strawberry.\n\nHere is the breakdown: st**r**awbe**rr**y.',
        [["text", "thoughtSignature"]], lambda m: _candidate(m)["finishReason"] == "STOP"),
    "vercel-google-tool-call-gemini3.jsonl": (
        [_call("weather", {"location": "San Francisco"})], "", [SIGNED],
        lambda m: m["usageMetadata"]["thoughtsTokenCount"] == 804),
    "vercel-google-tool-call-gemini3.nonstream.json": (
        [_call("weather", {"location": "San Francisco"})], "", [SIGNED],
        lambda m: _candidate(m)["finishMessage"] == CALLS_MESSAGE),
    "vercel-google-tool-call.jsonl": (
        [_call("weather", {"location": "San Francisco"})], "", [SIGNED],
        lambda m: _candidate(m)["finishReason"] == "STOP"),
    "vercel-google-tool-call.nonstream.json": (
        [_call("weather", {"location": "San Francisco"})], "", [SIGNED],
        lambda m: m["usageMetadata"]["thoughtsTokenCount"] == 893),
    "vercel-vertex-partialargs-nested.jsonl": (
        None, "", [SIGNED], _recipe),  # None: one cookRecipe call, checked by _recipe
    "vercel-vertex-partialargs-noargs-thought.jsonl": (
        [_call("read_theme", {}), _call("read_screen", {"id": "A"}),
         _call("read_screen", {"id": "B"}), _call("read_screen", {"id": "C"})], "",
        [THOUGHT, SIGNED, CALL, CALL, CALL],
        lambda m: m["usageMetadata"]["trafficType"] == "PROVISIONED_THROUGHPUT"),
    "vercel-vertex-partialargs-two-calls.jsonl": (
        [_call("getWeather", {"location": "Boston"}),
         _call("getWeather", {"location": "San Francisco"})], "", [SIGNED, CALL],
        lambda m: "index" not in _candidate(m)),
}


def _records(path: Path) -> list:
    """The records of a recording, whatever its format."""
    if path.name.endswith(".jsonarray.json"):
        return json.loads(path.read_text(encoding="utf-8"))
    if path.name.endswith(".nonstream.json"):
        return [json.loads(path.read_text(encoding="utf-8"))]
    return decode_body(path.read_bytes())


def _names(pattern: str) -> list[str]:
    return sorted(path.name for path in CORPUS.glob(pattern)) if CORPUS.is_dir() else []


def _sdk_valid(value: dict) -> bool:
    try:
        types.GenerateContentResponse.model_validate(value)
    except ValueError:
        return False
    return True


def test_every_recording_has_expectations():
    assert set(_names("*")) == set(EXPECT)


@pytest.mark.parametrize("name", [n for n in _names("*") if not n.endswith(".nonstream.json")])
def test_a_stream_reassembles_to_its_calls(name):
    calls, text, layout, check = EXPECT[name]
    records = _records(CORPUS / name)
    buf = LLMStreamBuffer()  # the default chain finds the wire from the first record
    shown = "".join(buf.add(record) for record in records)
    message = buf.as_dict()
    assert buf.strategy.name == "gemini" and buf.is_done()
    assert default_chain().resolve(message).name == "gemini"
    assert shown == S.content_text(message) and shown.startswith(text) and (text or not shown)
    assert [list(part) for part in _candidate(message)["content"].get("parts", [])] == layout
    found = S.extract(message)
    if calls is None:
        assert [call.name for call in found] == ["cookRecipe"]
    else:
        assert found == calls
    assert check(message)
    named = [part["functionCall"]["name"] for part in _candidate(message)["content"]["parts"]
             if "functionCall" in part]
    assert buf.forming_name() == S.forming_name(message) == (named[-1] if named else None)
    assert "willContinue" not in json.dumps(message) and "partialArgs" not in json.dumps(message)
    if all(_sdk_valid(record) for record in records):  # else the SDK lacks a field the server sent
        assert _sdk_valid(message)


@pytest.mark.parametrize("name", _names("*.nonstream.json"))
def test_a_body_extracts_and_comes_back_unchanged_as_a_one_record_stream(name):
    calls, text, layout, check = EXPECT[name]
    [body] = _records(CORPUS / name)
    assert S.recognizes(body) and S.extract(body) == calls and check(body)
    assert S.content_text(body) == text
    acc = S.new_accumulator()
    assert S.accumulate(acc, body) == text
    assert S.as_message(acc) == body and S.as_response(acc) == body
    assert [list(part) for part in _candidate(body)["content"].get("parts", [])] == layout


def test_the_history_after_a_recorded_call_sends_its_signature_back():
    buf = LLMStreamBuffer()
    buf.add_all(_records(CORPUS / "llmgemini-flashlatest-call-with-id-nested-args.jsonarray.json"))
    body = buf.as_dict()
    [call] = S.extract(body)
    model, user = S.result_messages(body, [ToolCallRecord(call.name, call.arguments, "added",
                                                          tool_call_id=call.id)])
    assert model == {"role": "model", "parts": _candidate(body)["content"]["parts"]}
    assert model["parts"][0]["thoughtSignature"].startswith("EsYFCsMF")
    assert user == {"role": "user", "parts": [{"functionResponse": {
        "name": "add_person", "response": {"result": "added"}, "id": "whZntcQw"}}]}


def test_a_server_side_call_ends_with_stop_mid_stream_and_the_stream_goes_on():
    buf = LLMStreamBuffer()
    records = _records(CORPUS / "jsgenai-serverside-mcp-call-response-text-stream2.jsonl")
    buf.add(records[0])
    assert buf.is_done() and [c.name for c in S.extract(buf.as_dict())] == [
        "weather_server_get_weather"]  # alone, it looks like a client call
    buf.add_all(records[1:])
    assert S.extract(buf.as_dict()) == []  # the functionResponse that follows says otherwise


def test_gemini_and_the_other_wires_recordings_never_claim_each_other():
    strategies = [s for s in default_chain() if s.name != "gemini"]
    for name in _names("*"):
        for record in _records(CORPUS / name):
            assert [s.name for s in strategies if s.recognizes(record)] == [], name
    for folder in ("openai-chat", "openai-responses", "anthropic", "ollama", "bedrock"):
        for path in sorted((FOLDER / folder).glob("*")):
            if path.suffix not in (".sse", ".jsonl", ".json"):
                continue
            records = decode_body(path.read_bytes()) if path.suffix != ".json" else [
                json.loads(path.read_text(encoding="utf-8"))]
            assert not any(S.recognizes(record) for record in records), path.name

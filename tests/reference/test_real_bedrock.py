"""Replay the recorded Bedrock Converse streams and responses of shared/corpora-real.

The recordings stay where they are (they are not part of the project, see its SOURCES.md and
QUIRKS.md); each has its expectations here, keyed by file name, so a new recording without
expectations fails. Formats: `.bin` a raw `converse-stream` body (event-stream frames, the
service's `p` padding kept), `.decoded.jsonl` the same body one event a line, `.jsonl` events
transcribed or written by hand, `.json` / `.nonstream.json` a whole `Converse` response.
"""
from __future__ import annotations

import json
from pathlib import Path

import botocore.session
import pytest
from botocore.validate import ParamValidator

from mcs_reference import BedrockConverseStrategy, ExtractedCall, LLMStreamBuffer, default_chain
from mcs_reference.calls import ToolCallRecord
from mcs_reference.sse import decode_body

FOLDER = Path(__file__).parents[2].parent / "shared" / "corpora-real"
CORPUS = FOLDER / "bedrock"
# The recordings are beside a clone in CI, not on a user's machine: skip, saying why.
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no {CORPUS} beside this clone")
S = BedrockConverseStrategy()
MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")
RESPONSE = MODEL.operation_model("Converse").output_shape
EVENT = MODEL.operation_model("ConverseStream").output_shape.members["stream"]
TEXT, TOOL, THINK, RESULT = ["text"], ["toolUse"], ["reasoningContent"], ["toolResult"]


def _call(name: str, arguments: dict, id: str) -> ExtractedCall:
    return ExtractedCall(name, arguments, id)


def _blocks(message: dict) -> list[dict]:
    return message["output"]["message"]["content"]


def _reasoning(message: dict, position: int = 0) -> dict:
    return _blocks(message)[position]["reasoningContent"]


# file name -> calls, the start of the visible text, the keys of each block, extra checks
# (a `.decoded.jsonl` has the expectations of its `.bin`)
EXPECT = {
    "crewai-claude46-converse-parallel-tooluse.json": (
        [_call("parallel_local_search_one", {"query": "latest OpenAI model release notes"},
               "tooluse_kooGjILXmVRg8edl3YuEf4"),
         _call("parallel_local_search_two", {"query": "latest Anthropic model release notes"},
               "tooluse_qa71o2cLA65qg5TyweI63c"),
         _call("parallel_local_search_three", {"query": "latest Gemini model release notes"},
               "tooluse_gPf5hAC0sogbIJEjDBTIvO")],
        "I'll execute all 3 parallel searches", [TEXT, TOOL, TOOL, TOOL],
        lambda m: m["usage"]["totalTokens"] == 1083),
    "haystack-claude35-text-then-tooluse.jsonl": (
        [_call("weather_tool", {"location": "Berlin"}, "tooluse_pLGRAmK7TNKoZQ_rntVN_Q")],
        "Certainly! I can help you find out the weather in Berlin.", [TEXT, TOOL],
        lambda m: m["metrics"] == {"latencyMs": 2449}),
    "haystack-claude4-reasoning-then-tooluse.jsonl": (
        [_call("weather", {"city": "Paris"}, "tooluse_1gPhO4A1RNWgzKbt1PXWLg")], "",
        [THINK, TOOL], lambda m: _reasoning(m)["reasoningText"]["signature"] == "..."
        and _reasoning(m)["reasoningText"]["text"].endswith("the function call.")),
    "haystack-claude46-text-then-2-tooluses.jsonl": (
        [_call("weather_tool", {"location": "Berlin"}, "tooluse_A0jTtaiQTFmqD_cIq8I1BA"),
         _call("weather_tool", {"location": "Paris"}, "tooluse_LTc2TUMgTRiobK5Z5CCNSw")],
        "To answer your question about the weather in Berlin and Paris", [TEXT, TOOL, TOOL],
        lambda m: m["stopReason"] == "tool_use"),
    "lcaws-claude-agent-loop-converse-tooluse.json": (
        [_call("get_weather", {"location": "San Francisco, CA"}, "tooluse_hi2yncmb3TRabw7kPLFJX3")],
        "", [TOOL], lambda m: _blocks(m)[0]["toolUse"]["type"] == "tool_use"
        and m["usage"]["cacheReadInputTokenCount"] == 0),
    "lcaws-claude-agent-loop-stream-v0.bin": (  # "" first input delta, a key split over 5
        [_call("get_weather", {"location": "San Francisco, CA"}, "tooluse_Zsi5nODkqYT50BEZ9GG8ud")],
        "I'll check the current weather in San Francisco, CA for you.", [TEXT, TOOL],
        lambda m: _blocks(m)[1]["toolUse"]["type"] == "tool_use"
        and m["usage"]["serverToolUsage"] == {}),
    "lcaws-claude-thinking-stream.bin": (
        [], "## Setting Up the Problem", [THINK, TEXT],
        lambda m: _reasoning(m)["reasoningText"]["signature"].startswith("Eu0ECmQIDxAB")
        and m["usage"]["outputTokens"] == 1196),
    "openllmetry-titan-guardrail-intervened-stream-notool.bin": (
        [], "\nThe capital of {ADDRESS} is {ADDRESS}.", [TEXT],
        lambda m: m["stopReason"] == "guardrail_intervened"
        and m["trace"]["guardrail"]["actionReason"] == "No action.\nGuardrail masked."),
    "pydanticai-claude-sonnet4-thinking-stream.bin": (
        [], "Hello! It's nice to meet you.", [THINK, TEXT],
        lambda m: _reasoning(m)["reasoningText"]["text"].startswith("The user has greeted me")),
    "pydanticai-claude37-converse-reasoning-then-tooluse.nonstream.json": (
        [_call("get_user_country", {}, "tooluse_W9DaUFg4Tj2cRPpndqxWSg")],
        "I'll need to check what country you're from", [THINK, TEXT, TOOL],
        lambda m: _reasoning(m)["reasoningText"]["signature"].startswith("ErcBCkgIBhAB")),
    "pydanticai-claude37-redacted-thinking-stream.bin": (  # two redacted blocks in a row
        [], "I notice you've sent what appears to be", [THINK, THINK, TEXT],
        lambda m: all(set(_reasoning(m, i)) == {"redactedContent"}
                      and _reasoning(m, i)["redactedContent"].startswith("RX") for i in (0, 1))),
    "pydanticai-gptoss-reasoning-empty-delta-stream.bin": (  # a lone "" text block first
        [], "Hello! How can I help you today?", [TEXT, THINK, TEXT],
        lambda m: _blocks(m)[0] == {"text": ""} and "signature" not in _reasoning(m, 1)[
            "reasoningText"]),
    "pydanticai-kimi-k2-converse-reasoning-tooluse.nonstream.json": (
        [_call("get_temperature", {"city": "London"}, "functions.get_temperature:0")], "",
        [THINK, TOOL], lambda m: _reasoning(m)["reasoningText"]["text"].startswith(" The user")),
    "pydanticai-nova-micro-text-then-tooluse.bin": (  # Nova: the whole input in one delta
        [_call("get_temperature", {"city": "Paris"}, "tooluse_lAG_zP8QRHmSYOwZzzaCqA")],
        "<thinking> To find the temperature", [TEXT, TOOL],
        lambda m: "</thinking>" in _blocks(m)[0]["text"]),
    "pydanticai-nova2lite-code-exec-stream.bin": (  # the server ran its code interpreter
        [_call("final_result", {"result": 7006652.0}, "tooluse_ptgCcZ0uQu-UUMz0abqoWw")], "",
        [TOOL, RESULT, TOOL],
        lambda m: _blocks(m)[1]["toolResult"] == {
            "toolUseId": "tooluse_VQNZJRUFMoqZzszVsRd4og", "status": "success",
            "type": "nova_code_interpreter_result", "content": [{"json": {
                "stdOut": "7006652", "stdErr": "", "exitCode": 0, "isError": False}}]}
        and _blocks(m)[0]["toolUse"]["type"] == "server_tool_use"),
    "vercel-HANDWRITTEN-converse-2-tooluses.nonstream.json": (
        [_call("tool-a", {"param": "a"}, "tool-1"), _call("tool-b", {"param": "b"}, "tool-2"),
         _call("json", {"final": "result"}, "json-tool-id")],
        "Calling multiple tools.", [["type", "text"], TOOL, TOOL, ["type", "text"], TOOL],
        lambda m: "metrics" not in m),
    "vercel-HANDWRITTEN-text-then-2-tooluses.jsonl": (  # no messageStart, metadata first
        [_call("weather", {"location": "San Francisco"}, "weather-tool-1"),
         _call("weather", {"location": "London"}, "weather-tool-2")],
        "2 + 2 equals 4.", [TEXT, TOOL, TOOL], lambda m: m["stopReason"] == "tool_use"),
    "vercel-HANDWRITTEN-tool-no-args-empty-input.jsonl": (  # `start: {}` for the text
        [_call("updateIssueList", {}, "tool-use-id")], "I'll update the issue list for you.",
        [TEXT, TOOL], lambda m: _blocks(m)[1]["toolUse"]["input"] == {}),
    "vercel-HANDWRITTEN-tooluse-split-2-deltas.jsonl": (
        [_call("get-weather", {"location": "San Francisco"}, "toolu_01PQjhxo3eirCdKNvCJrKc8f")],
        "", [TOOL], lambda m: m["usage"]["totalTokens"] == 871),
    "vercel-claude-reasoning-signature-stream-notool.jsonl": (
        [], "There are **3** r's in \"strawberry\"", [THINK, TEXT],
        lambda m: m["additionalModelResponseFields"] == {"delta": {"stop_sequence": None}}),
}


def _names(pattern: str) -> list[str]:
    return sorted(path.name for path in CORPUS.glob(pattern)) if CORPUS.is_dir() else []


def _expected(name: str) -> tuple:
    return EXPECT[name.replace(".decoded.jsonl", ".bin")]


def _errors(value: dict, shape) -> str:
    report = ParamValidator().validate(value, shape)
    return report.generate_report() if report.has_errors() else ""


def _unpadded(chunk: dict) -> dict:
    return {kind: {key: value for key, value in payload.items() if key != "p"}
            for kind, payload in chunk.items()}


def test_every_recording_has_expectations():
    assert {name.replace(".decoded.jsonl", ".bin") for name in _names("*")} == set(EXPECT)


@pytest.mark.parametrize("name", _names("*.bin"))
def test_a_raw_body_decodes_to_the_events_of_its_decoded_copy(name):
    events = decode_body((CORPUS / name).read_bytes(), format="eventstream")
    decoded = CORPUS / name.replace(".bin", ".decoded.jsonl")
    assert events == decode_body(decoded.read_bytes(), format="ndjson")
    assert all(list(event) != ["p"] and "p" in next(iter(event.values())) for event in events)


@pytest.mark.parametrize("name", [n for n in _names("*") if not n.endswith(".json")])
def test_a_stream_reassembles_to_its_calls(name):
    calls, text, layout, check = _expected(name)
    chunks = decode_body((CORPUS / name).read_bytes())  # a .bin is found by its first byte
    buf = LLMStreamBuffer()  # the default chain finds the wire from the first event
    shown = "".join(buf.add(chunk) for chunk in chunks)
    message = buf.as_dict()
    assert buf.strategy.name == "bedrock-converse" and buf.is_done()
    assert default_chain().resolve(message).name == "bedrock-converse"
    assert shown == S.content_text(message) and shown.startswith(text) and (text or not shown)
    assert [list(block) for block in _blocks(message)] == layout
    assert S.extract(message) == calls and check(message)
    named = [block["toolUse"]["name"] for block in _blocks(message) if "toolUse" in block]
    assert buf.forming_name() == S.forming_name(message) == (named[-1] if named else None)
    assert '"p":' not in json.dumps(message)
    if not any(_errors(_unpadded(chunk), EVENT) for chunk in chunks):
        assert _errors(message, RESPONSE) == ""  # else the model lacks a field the server sent


@pytest.mark.parametrize("name", _names("*.json"))
def test_a_response_extracts_its_calls(name):
    calls, text, layout, check = EXPECT[name]
    body = json.loads((CORPUS / name).read_text(encoding="utf-8"))
    assert default_chain().resolve(body).name == "bedrock-converse"
    assert S.extract(body) == calls and S.content_text(body).startswith(text) and check(body)
    assert [list(block) for block in _blocks(body)] == layout
    assert S.forming_name(body) == (calls[-1].name if calls else None)


def test_the_history_after_a_recorded_call_answers_its_tool_use_id():
    body = json.loads((CORPUS / "pydanticai-kimi-k2-converse-reasoning-tooluse.nonstream.json")
                      .read_text(encoding="utf-8"))
    [call] = S.extract(body)
    assistant, user = S.result_messages(body, [ToolCallRecord(
        call.name, call.arguments, {"celsius": 12}, tool_call_id=call.id)])
    assert assistant == {"role": "assistant", "content": _blocks(body)}
    assert user == {"role": "user", "content": [{"toolResult": {
        "toolUseId": "functions.get_temperature:0", "content": [{"json": {"celsius": 12}}],
        "status": "success"}}]}
    assert _errors(user, MODEL.shape_for("Message")) == ""


def test_bedrock_and_the_other_wires_recordings_never_claim_each_other():
    others = [s for s in default_chain() if s.name != "bedrock-converse"]
    for name in _names("*"):
        path = CORPUS / name
        records = decode_body(path.read_bytes()) if path.suffix != ".json" else [
            json.loads(path.read_text(encoding="utf-8"))]
        for record in records:
            assert [s.name for s in others if s.recognizes(record)] == [], name
    for folder in ("openai-chat", "openai-responses", "anthropic", "ollama", "gemini"):
        for path in sorted((FOLDER / folder).glob("*")):
            if path.name.endswith((".jsonarray.json", ".nonstream.json", ".json")):
                value = json.loads(path.read_text(encoding="utf-8"))
                records = value if isinstance(value, list) else [value]
            elif path.suffix in (".sse", ".jsonl"):
                records = decode_body(path.read_bytes())
            else:
                continue
            assert not any(S.recognizes(record) for record in records), path.name

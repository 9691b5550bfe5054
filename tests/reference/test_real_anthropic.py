"""Replay the recorded Anthropic streams of shared/corpora-real through the reference buffer.

The recordings stay where they are (they are not part of the project); each file has its
expectations here, keyed by file name, so a new recording without expectations fails.
"""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from mcs_reference.anthropic_messages import AnthropicMessagesStrategy
from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ToolCallRecord
from mcs_reference.errors import ProviderError
from mcs_reference.sse import decode_body

CORPUS = Path(__file__).parents[2].parent / "shared" / "corpora-real" / "anthropic"
# The recordings are beside a clone in CI, not on a user's machine: skip, saying why.
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no {CORPUS} beside this clone")
FILES = sorted(p for p in CORPUS.glob("*") if p.suffix in (".sse", ".jsonl")) if CORPUS.is_dir() else []
S = AnthropicMessagesStrategy()

# file name -> what the replay must give: calls as (name, arguments), block types, stop reason,
# start of the visible text, and extra checks on the assembled message.
EXPECT = {
    "docs-overloaded-error-event.sse": {"error": "overloaded_error"},
    "haiku45-empty-text-block-then-tool.jsonl": {
        "calls": [("json", {"elements": [{"location": "San Francisco", "temperature": 58,
                                          "condition": "sunny"}]})],
        "blocks": ["text", "tool_use"], "stop": "tool_use", "text": "I'll invoke the JSON response tool.",
        "usage": {"input_tokens": 849, "output_tokens": 47},
    },
    "haiku45-parallel-two-tool-use-no-args.sse": {
        "calls": [("pelican_name_generator", {}), ("pelican_name_generator", {})],
        "blocks": ["tool_use", "tool_use"], "stop": "tool_use", "text": "",
        "check": lambda m: m["content"][0]["caller"] == {"type": "direct"} and "stop_details" in m,
    },
    "haiku45-thinking-then-tool-use.sse": {
        "calls": [("fixed_version", {})], "blocks": ["thinking", "tool_use"], "stop": "tool_use", "text": "",
        "check": lambda m: m["content"][0]["thinking"].startswith("The user wants me to:\n1. Use")
        and m["usage"]["output_tokens_details"] == {"thinking_tokens": 53},
    },
    "sonnet37-max-tokens-truncated-tool-json.sse": {
        "calls": [("make_file", "error")], "blocks": ["text", "tool_use"], "stop": "max_tokens",
        "text": "I'll create a comprehensive tax guide",
        "check": lambda m: m["content"][1]["input"].startswith('{"filename": "taxes.txt", "lines_of_text": [')
        and m["usage"]["output_tokens"] == 124 and m["usage"]["input_tokens"] == 450,
    },
    "sonnet4-text-then-tool-use.sse": {
        "calls": [("get_weather", {"location": "Paris"})], "blocks": ["text", "tool_use"], "stop": "tool_use",
        "text": "I'll check the current weather in Paris for you.",
        "usage": {"input_tokens": 377, "output_tokens": 65},
    },
    "sonnet4-thinking-signature-text.sse": {
        "calls": [], "blocks": ["thinking", "text"], "stop": "end_turn",
        "text": "Here are the basic steps for safely crossing the street",
        "usage": {"output_tokens": 282},
    },
    "sonnet45-programmatic-code-exec-escapes-prefilled-tool-input.jsonl": {
        "calls": [("rollDie", {"player": "player1"})], "blocks": ["text", "server_tool_use", "tool_use"],
        "stop": "tool_use", "text": "I'll help you simulate this game",
        "check": lambda m: "import asyncio" in m["content"][1]["input"]["code"]
        and m["content"][2]["caller"]["type"] == "code_execution_20250825"
        and m["container"]["id"].startswith("container_") and m["usage"]["output_tokens"] == 725,
    },
    "sonnet45-programmatic-continuation-message-start-only.jsonl": {
        "calls": [("rollDie", {"player": "player2"})], "blocks": ["tool_use"], "stop": "tool_use", "text": "",
        "check": lambda m: m["container"]["id"].startswith("container_"),
    },
    "sonnet45-redacted-thinking.sse": {
        "calls": [], "blocks": ["redacted_thinking", "redacted_thinking", "text"], "stop": "end_turn",
        "text": "I notice that you've sent what appears to be",
    },
    "sonnet45-text-then-tool-no-args.jsonl": {
        "calls": [("updateIssueList", {})], "blocks": ["text", "tool_use"], "stop": "tool_use",
        "text": "I'll update the issue list for you.", "usage": {"input_tokens": 565, "output_tokens": 48},
    },
    "tool-search-text-server-tool-then-tool-use.sse": {
        "calls": [("get_exchange_rate", {"from_currency": "USD", "to_currency": "EUR"})],
        "blocks": ["text", "server_tool_use", "tool_search_tool_result", "text", "tool_use"],
        "stop": "tool_use",
        "text": "Let me search for a tool that can provide current exchange rate information.I found",
        "check": lambda m: m["content"][1]["input"] == {"query": "USD EUR exchange rate currency conversion"}
        and m["content"][2]["content"]["tool_references"][0]["tool_name"] == "get_exchange_rate"
        and m["usage"]["server_tool_use"] == {"web_search_requests": 0, "web_fetch_requests": 0},
    },
}


def test_the_corpus_is_found():
    assert CORPUS.is_dir() and FILES, f"no recordings under {CORPUS}"


def replay(path):
    chunks = decode_body(path.read_bytes())
    frozen = copy.deepcopy(chunks)
    buffer = LLMStreamBuffer(AnthropicMessagesStrategy())
    shown, error = "", None
    for chunk in chunks:
        try:
            shown += buffer.add(chunk)
        except ProviderError as exc:
            error = exc
            break
    assert chunks == frozen, "the buffer mutated a recorded event"
    return chunks, buffer, shown, error


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_replay(path):
    assert path.name in EXPECT, f"add expectations for the new recording {path.name}"
    expect = EXPECT[path.name]
    chunks, buffer, shown, error = replay(path)
    if "error" in expect:
        assert error is not None and error.error["type"] == expect["error"]
        assert not buffer.is_done() and S.extract(buffer.as_dict()) == []
        return
    assert error is None and buffer.is_done()
    message = buffer.as_dict()
    assert S.recognizes(message) and all(S.recognizes(chunk) for chunk in chunks)
    assert [b["type"] for b in message["content"]] == expect["blocks"]
    assert message["stop_reason"] == expect["stop"]
    assert shown == S.content_text(message) and shown.startswith(expect["text"])
    for key, value in expect.get("usage", {}).items():
        assert message["usage"][key] == value
    assert expect.get("check", lambda m: True)(message)

    calls = S.extract(message)
    assert [(c.name, "error" if c.error else c.arguments) for c in calls] == expect["calls"]
    ids = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
    assert [c.id for c in calls] == ids and len(set(ids)) == len(ids)
    for call in calls:
        if call.error:
            assert call.arguments == {} and call.raw_arguments


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_opaque_thinking_data_is_kept_byte_for_byte(path):
    chunks, buffer, _, _ = replay(path)
    content = buffer.as_dict().get("content", [])
    for chunk in chunks:
        if chunk.get("type") == "content_block_delta" and chunk["delta"]["type"] == "signature_delta":
            assert content[chunk["index"]]["signature"] == chunk["delta"]["signature"] != ""
        if chunk.get("type") == "content_block_start" and chunk["content_block"]["type"] == "redacted_thinking":
            assert content[chunk["index"]] == chunk["content_block"]


@pytest.mark.parametrize("path", [p for p in FILES if "error" not in EXPECT.get(p.name, {})],
                         ids=lambda p: p.name)
def test_history_after_running_the_calls(path):
    _, buffer, _, _ = replay(path)
    message = buffer.as_dict()
    calls = S.extract(message)
    records = [ToolCallRecord(c.name, c.arguments, None if c.error else "done", c.error, c.id) for c in calls]
    history = S.result_messages(message, records)
    turn = history[0]
    assert turn["role"] == "assistant" and all(b.get("text") != "" for b in turn["content"])
    kept = [b for b in message["content"] if not (b["type"] == "text" and b["text"] == "")]
    assert [b["type"] for b in turn["content"]] == [b["type"] for b in kept]
    for block in turn["content"]:
        if block["type"] == "tool_use":
            assert {"type", "id", "name", "input"} <= set(block) <= {
                "type", "id", "name", "input", "caller", "toolset_name"}
            assert isinstance(block["input"], dict)
            source = next(b for b in message["content"] if b.get("id") == block["id"])
            assert block.get("caller") == source.get("caller")  # a programmatic call keeps it
        if block["type"] == "thinking":
            assert block["signature"]
    if calls:
        assert len(history) == 2 and history[1]["role"] == "user"
        results = history[1]["content"]
        assert [r["tool_use_id"] for r in results] == [c.id for c in calls]
        assert [r.get("is_error", False) for r in results] == [c.error is not None for c in calls]
    else:
        assert len(history) == 1

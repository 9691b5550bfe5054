"""Replay real Ollama recordings and decode real Hermes outputs (when the corpus is present).

The recordings live outside the project (shared/corpora-real, see its SOURCES.md); each file
has its own expectations here, keyed by file name. Files are read, never copied.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.calls import ExtractedCall
from mcs_reference.ollama_chat import OllamaChatStrategy
from mcs_reference.sse import decode_body
from mcs_reference.text_codecs import HermesCodec

FOLDER = Path(__file__).parents[2].parent / "shared" / "corpora-real"
# The recordings are beside a clone in CI, not on a user's machine: skip, saying why.
pytestmark = pytest.mark.skipif(not FOLDER.is_dir(), reason=f"no {FOLDER} beside this clone")
OLLAMA = FOLDER / "ollama"
TEXT = FOLDER / "text-formats"

# file name -> (done, display text, calls, extra checks on the body)
OLLAMA_STREAMS = {
    "blog-qwen3-think-tag-in-content-then-tool-call.jsonl": (
        False,  # an excerpt: it ends before the done:true chunk
        "celsius</think>",
        [ExtractedCall("get_current_weather", {"format": "celsius", "location": "Toronto"})],
        {"model": "qwen3"},
    ),
    "docs-api-chat-stream-tools.jsonl": (
        True, "", [ExtractedCall("get_weather", {"city": "Tokyo"})],
        {"done_reason": "stop", "eval_count": 15, "created_at": "2025-07-07T20:22:19.19314Z"},
    ),
    "sk-phi3-text-stream-tail.jsonl": (
        True, " these times of day.", [],
        {"done_reason": "stop", "eval_count": 239, "model": "phi3"},
    ),
}
OLLAMA_BODIES = {
    "docs-api-chat-tools-nonstream.json": [ExtractedCall("get_weather", {"city": "Tokyo"})],
    "sk-llama32-five-tool-calls-final-chunk.json": [
        ExtractedCall("MyPlugin_GetCurrentWeather", {"location": "Boston, MA"}),
        ExtractedCall("MyPlugin_FunctionWithException", {"argument": "value"}),
        ExtractedCall("MyPlugin_NonExistentFunction", {"argument": "value"}),
        ExtractedCall("MyPlugin_InvalidArguments", {}),  # no "arguments" key at all
        ExtractedCall("MyPlugin_IntArguments", {"age": "36"}),
    ],
}
HERMES = {
    "hermes-content-then-tool-call.txt": [ExtractedCall("get_weather", {"city": "NYC"})],
    "hermes-granite4-string-encoded-arguments.txt": [
        ExtractedCall("get_db_config", {"param": "max_connections"})],
    "hermes-qwen3-newlines-boolean-arg.txt": [ExtractedCall("final_answer", {"trigger": True})],
    "hermes-two-sequential-calls.txt": [ExtractedCall("search", {"q": "cats"}),
                                        ExtractedCall("search", {"q": "dogs"})],
    "hermes-unterminated-until-eos.txt": [ExtractedCall("final_answer", {"trigger": True})],
    "hermes2pro-python-dict-single-quotes.txt": [
        ExtractedCall("get_stock_fundamentals", {"symbol": "TSLA"})],
}


def _found(folder: Path, pattern: str) -> list[str]:
    return sorted(path.name for path in folder.glob(pattern)) if folder.is_dir() else []


if FOLDER.is_dir():

    def test_every_recording_has_expectations():
        assert set(_found(OLLAMA, "*.jsonl")) == set(OLLAMA_STREAMS)
        assert set(_found(OLLAMA, "*.json")) == set(OLLAMA_BODIES)
        assert set(_found(TEXT, "hermes*.txt")) == set(HERMES)

    @pytest.mark.parametrize("name", _found(OLLAMA, "*.jsonl"))
    def test_ollama_stream_replays(name):
        done, display, calls, checks = OLLAMA_STREAMS[name]
        buf = LLMStreamBuffer(OllamaChatStrategy())
        shown = "".join(buf.add(chunk) for chunk in decode_body((OLLAMA / name).read_bytes()))
        body = buf.as_dict()
        strategy = OllamaChatStrategy()
        assert buf.is_done() is done and body["done"] is done
        assert shown == display == strategy.content_text(body)
        assert strategy.recognizes(body)
        assert strategy.extract(body) == calls
        assert buf.forming_name() == (calls[-1].name if calls else None)
        for key, value in checks.items():
            assert body[key] == value, key

    @pytest.mark.parametrize("name", _found(OLLAMA, "*.json"))
    def test_ollama_body_extracts(name):
        body = json.loads((OLLAMA / name).read_text(encoding="utf-8"))
        strategy = OllamaChatStrategy()
        assert strategy.recognizes(body)
        assert strategy.extract(body) == OLLAMA_BODIES[name]
        # a stream=false body is also a done:true chunk: reassembling it gives it back
        acc = strategy.new_accumulator()
        strategy.accumulate(acc, body)
        assert strategy.as_message(acc) == body

    def test_stream_and_body_of_the_same_docs_request_agree():
        buf = LLMStreamBuffer(OllamaChatStrategy())
        buf.add_all(decode_body((OLLAMA / "docs-api-chat-stream-tools.jsonl").read_bytes()))
        body = json.loads((OLLAMA / "docs-api-chat-tools-nonstream.json").read_text())
        streamed = buf.as_dict()
        assert streamed["message"] == body["message"]
        assert set(streamed) == set(body)

    @pytest.mark.parametrize("name", _found(TEXT, "hermes*.txt"))
    def test_hermes_text_decodes(name):
        text = (TEXT / name).read_text(encoding="utf-8")
        codec = HermesCodec()
        calls = HERMES[name]
        assert codec.decode(text) == calls
        assert codec.peek_name(text) == calls[-1].name
        tracker = codec.tracker()
        for char in text:  # streamed one character at a time
            tracker.feed(char)
        assert tracker.name == calls[-1].name

"""`mcs-conformance record`: a captured body becomes a corpus entry, or is refused in one line."""
from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from mcs_conformance.base import schema
from mcs_conformance.cli import main

CHAT = [
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}]},
    {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
     "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
]


def sse(events: list, done: bool = True) -> bytes:
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + ("data: [DONE]\n\n" if done else "")
    return body.encode()


def chat_with(content: str) -> list:
    events = json.loads(json.dumps(CHAT))
    events[1]["choices"][0]["delta"]["content"] = content
    return events


ANTHROPIC = [
    {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
                                          "model": "claude", "content": [], "stop_reason": None,
                                          "stop_sequence": None, "usage": {"input_tokens": 3, "output_tokens": 1}}},
    {"type": "content_block_start", "index": 0,
     "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 9}},
    {"type": "message_stop"},
]
OLLAMA = [
    {"model": "llama3.2", "created_at": "t1", "message": {"role": "assistant", "content": "Hi"}, "done": False},
    {"model": "llama3.2", "created_at": "t2", "message": {"role": "assistant", "content": ""}, "done": True},
]
RESPONSES = [
    {"type": "response.created", "sequence_number": 0,
     "response": {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}},
    {"type": "error", "sequence_number": 1, "error": {"type": "server_error", "code": "server_error",
                                                      "message": "The server had an error", "param": None}},
]


def ndjson(events: list) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


@pytest.fixture(autouse=True)
def _as_a_user_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under pytest-xdist, keep the worker's identity out of the inner runs (syrupy reads it)."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


def record(tmp_path: Path, capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    status = main(["record", *args, "--corpus", str(tmp_path / "corpora")])
    out, err = capsys.readouterr()
    return status, out, err


def capture(tmp_path: Path, name: str, body: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(body)
    return path


def test_a_file_becomes_an_entry_in_its_wire_folder_byte_for_byte(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    body = sse(CHAT).replace(b"\n", b"\r\n")
    source = capture(tmp_path, "greeting.sse", body)
    status, out, err = record(tmp_path, capsys, str(source))
    entry = tmp_path / "corpora/openai-chat/greeting.sse"
    assert (status, err) == (0, "")
    assert entry.read_bytes() == body
    assert not entry.with_name("greeting.meta.json").exists()  # no metadata given, no sidecar
    assert out.splitlines() == [
        f"recorded {entry} (openai-chat, 3 events; no call)",
        f"create its snapshot: pytest --mcs-corpus={tmp_path / 'corpora'} --snapshot-update-new-only",
    ]


@pytest.mark.parametrize(("name", "body", "folder", "summary"), [
    ("tool.sse", sse(ANTHROPIC), "anthropic-messages/tool.sse",
     "anthropic-messages, 6 events; 1 call(s): get_weather"),
    ("chat.ndjson", ndjson(OLLAMA), "ollama-chat/chat.ndjson", "ollama-chat, 2 events; no call"),
    ("failed.jsonl", ndjson(RESPONSES), "openai-responses/failed.jsonl",
     "openai-responses, 2 events; ends in ProviderError: chunk 1: provider reported an error "
     "mid-stream: server_error: The server had an error"),
    ("json-call.txt", sse(chat_with('{"tool": "search", "arguments": {"q": "x"}}')), "text/json-call.sse",
     "openai-chat, 3 events; 1 call(s): search"),
    ("raw.jsonl", ndjson(["Let me ", '{"tool": "f", "arguments": {}}']), "text/raw.jsonl",
     "text-json, 2 events; 1 call(s): f; no end-of-stream event"),
    ("cut.sse", sse(CHAT[:2], done=False) + b"data: {cut\n\n", "openai-chat/cut.sse",
     "openai-chat, 2 events; ends in MalformedChunk: chunk 2: event ending on line 6 is not JSON"),
])
def test_the_wire_is_detected_and_error_streams_are_kept(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                        name: str, body: bytes, folder: str, summary: str) -> None:
    status, out, _ = record(tmp_path, capsys, str(capture(tmp_path, name, body)))
    assert status == 0
    assert (tmp_path / "corpora" / folder).read_bytes() == body
    assert out.splitlines()[0].startswith(f"recorded {tmp_path / 'corpora' / folder} ({summary}")


def test_a_hermes_capture_gets_a_sidecar_naming_its_strategy(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    body = sse(chat_with('Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'))
    status, out, _ = record(tmp_path, capsys, str(capture(tmp_path, "h.sse", body)), "--shows", "a Hermes call")
    meta_path = tmp_path / "corpora/text/h.meta.json"
    meta = json.loads(meta_path.read_text())
    assert status == 0
    assert meta == {"wire": "text", "strategy": "mcs_reference:TextStrategy",
                    "codec": "mcs_reference:HermesCodec", "shows": "a Hermes call"}
    assert schema.errors(meta, "corpus-meta.json") == []
    assert f"wrote {meta_path}" in out.splitlines()


def test_standard_input_with_metadata(tmp_path: Path, capsys: pytest.CaptureFixture,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    body = sse(ANTHROPIC)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    status, out, _ = record(tmp_path, capsys, "-", "--name", "weather", "--source", "claude, 2025-06-01",
                            "--shows", "a tool_use block")
    assert status == 0
    assert (tmp_path / "corpora/anthropic-messages/weather.sse").read_bytes() == body
    meta = json.loads((tmp_path / "corpora/anthropic-messages/weather.meta.json").read_text())
    assert meta == {"wire": "anthropic-messages", "source": "claude, 2025-06-01", "shows": "a tool_use block"}


def test_standard_input_without_a_name_is_named_after_its_content(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(ndjson(OLLAMA))))
    status, _, _ = record(tmp_path, capsys, "-")
    [entry] = (tmp_path / "corpora/ollama-chat").iterdir()
    assert status == 0 and entry.name.startswith("stream-") and entry.suffix == ".jsonl"


@pytest.mark.parametrize(("body", "message"), [
    (b"", "the body is empty; capture the raw HTTP response body of a streamed call"),
    (b"<html><body>502 Bad Gateway</body></html>\n", "not an SSE or NDJSON body: no event could be read"),
    (b"Hello, plain text\n", "not an SSE or NDJSON body: no event could be read"),
    (b": only a comment\n\n", "not an SSE or NDJSON body: no event could be read"),
    (ndjson([{"foo": 1}]), 'no extraction strategy recognizes the first event {"foo": 1}; '
                           "this is not a stream of a known wire"),
])
def test_a_body_that_is_no_stream_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                        body: bytes, message: str) -> None:
    status, out, err = record(tmp_path, capsys, str(capture(tmp_path, "x.sse", body)))
    assert status == 2 and out == ""
    assert err.startswith(f"mcs-conformance record: error: {message}")
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "corpora").exists()


def test_an_existing_entry_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = capture(tmp_path, "hello.sse", sse(CHAT))
    assert record(tmp_path, capsys, str(source))[0] == 0
    entry = tmp_path / "corpora/openai-chat/hello.sse"
    entry.write_bytes(b"kept")
    status, out, err = record(tmp_path, capsys, str(source))
    assert (status, out) == (1, "")
    assert err == f"mcs-conformance record: error: {entry} already exists; choose another --name or remove it first\n"
    assert entry.read_bytes() == b"kept"
    other = capture(tmp_path, "hello.jsonl", ndjson(CHAT))  # same stem, other format: one snapshot
    assert record(tmp_path, capsys, str(other))[0] == 1


@pytest.mark.parametrize("name", ["../escape", "a/b", ".hidden", "x.meta"])
def test_a_bad_name_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture, name: str) -> None:
    status, _, err = record(tmp_path, capsys, str(capture(tmp_path, "b.sse", sse(CHAT))), "--name", name)
    assert status == 2 and "--name" in err


def test_a_missing_file_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    status, _, err = record(tmp_path, capsys, str(tmp_path / "nope.sse"))
    assert status == 2
    assert err.startswith(f"mcs-conformance record: error: cannot read {tmp_path / 'nope.sse'}:")


def test_the_command_line_then_the_runner(tmp_path: Path, pytester: pytest.Pytester) -> None:
    """The documented workflow, with the real console script and exit statuses."""
    source = capture(tmp_path, "weather.sse", sse(ANTHROPIC))
    command = [sys.executable, "-m", "mcs_conformance.cli", "record", str(source),
               "--corpus", str(pytester.path / "corpora"), "--source", "test", "--shows", "a call"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=pytester.path)
    assert done.returncode == 0, done.stderr
    assert "create its snapshot: pytest --mcs-corpus=" in done.stdout
    again = subprocess.run(command, capture_output=True, text=True, cwd=pytester.path)
    assert again.returncode == 1 and "already exists" in again.stderr
    garbage = capture(tmp_path, "page.html", b"<html></html>\n")
    refused = subprocess.run(command[:4] + [str(garbage)] + command[5:], capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    corpus = f"--mcs-corpus={pytester.path / 'corpora'}"
    pytester.runpytest(corpus, "--snapshot-update-new-only").assert_outcomes(passed=1)
    assert (pytester.path / "corpora/__snapshots__/anthropic-messages/weather.json").is_file()
    pytester.runpytest(corpus).assert_outcomes(passed=1)

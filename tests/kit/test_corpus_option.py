"""`pytest --mcs-corpus=DIR`, run as a user runs it (pytester): snapshots, sidecars, re-chunking."""
from __future__ import annotations

import json
from pathlib import Path

import pytest


def _chat(delta: dict, finish: str | None = None) -> str:
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return "data: " + json.dumps(chunk) + "\n\n"


TEXT_SSE = (_chat({"role": "assistant", "content": ""}) + _chat({"content": "Hello"})
            + _chat({"content": " there"}) + _chat({}, "stop") + "data: [DONE]\n\n")
CALL_SSE = (
    _chat({"role": "assistant", "content": None, "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]})
    + _chat({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]})
    + _chat({"tool_calls": [{"index": 0, "function": {"arguments": '"Oslo"}'}}]})
    + _chat({}, "tool_calls") + "data: [DONE]\n\n"
)
OLLAMA_NDJSON = "".join(json.dumps(line) + "\n" for line in [
    {"model": "llama3.2", "created_at": "t1", "message": {"role": "assistant", "content": "Hi"}, "done": False},
    {"model": "llama3.2", "created_at": "t2", "message": {"role": "assistant", "content": "!"}, "done": False},
    {"model": "llama3.2", "created_at": "t3", "message": {"role": "assistant", "content": ""}, "done": True,
     "done_reason": "stop"},
])
TEXT_DELTAS = "".join(json.dumps(piece) + "\n" for piece in ["Hello", " wor", "ld ", "again"])
# A text strategy that loses the first character of every chunk: right for one chunking only.
LOSSY = '''
from mcs_reference.text import TextStrategy


class Lossy(TextStrategy):
    def accumulate(self, acc, chunk):
        return super().accumulate(acc, chunk[1:] if isinstance(chunk, str) else chunk)
'''


@pytest.fixture(autouse=True)
def _as_a_user_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under pytest-xdist, keep the worker's identity out of the inner runs (syrupy reads it)."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def _corpus(pytester: pytest.Pytester, **files: str) -> Path:
    root = pytester.path / "corpus"
    for relative, text in files.items():
        _write(root, relative.replace("__", "/"), text)
    return root


def _run(pytester: pytest.Pytester, root: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest(f"--mcs-corpus={root}", "-p", "no:cacheprovider", *args)


def test_snapshots_are_created_with_snapshot_update_then_pass(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"openai-chat__hello.sse": TEXT_SSE, "openai-chat__call.sse": CALL_SSE})
    created = _run(pytester, root, "--snapshot-update")
    created.assert_outcomes(passed=2)
    created.stdout.fnmatch_lines(["*2 snapshots generated*"])
    outcome = json.loads((root / "__snapshots__/openai-chat/call.json").read_text("utf-8"))
    assert outcome["stream"] == "openai-chat/call.sse"
    assert outcome["wire"] == "openai-chat" and outcome["done"] is True
    assert outcome["calls"] == [{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_1",
                                 "error": None, "raw_arguments": None}]
    assert outcome["message"]["tool_calls"][0]["function"]["arguments"] == '{"city": "Oslo"}'
    assert outcome["response"]["choices"][0]["finish_reason"] == "tool_calls"
    assert outcome["history"][0]["role"] == "assistant"
    assert outcome["history"][1] == {"role": "tool", "tool_call_id": "call_1",
                                     "content": "sample result of get_weather"}
    hello = json.loads((root / "__snapshots__/openai-chat/hello.json").read_text("utf-8"))
    assert hello["display"] == "Hello there" and hello["calls"] == [] and hello["history"] == []
    again = _run(pytester, root, "-v")
    again.assert_outcomes(passed=2)
    again.stdout.fnmatch_lines(["*mcs-conformance: replaying corpus * (2 streams) through the default chain*",
                                "corpus::test_stream?openai-chat/call.sse? PASSED*"])
    assert again.ret == 0


def test_a_missing_snapshot_fails(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"openai-chat__hello.sse": TEXT_SSE})
    result = _run(pytester, root)
    result.assert_outcomes(failed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*no snapshot corpus/__snapshots__/openai-chat/hello.json: "
                                 "create it with --snapshot-update*"])
    assert not (root / "__snapshots__").exists()


def test_a_changed_outcome_fails_with_a_diff(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"openai-chat__hello.sse": TEXT_SSE})
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=1)
    stream = root / "openai-chat/hello.sse"
    stream.write_text(stream.read_text("utf-8").replace('" there"', '" world"'), "utf-8")
    result = _run(pytester, root)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*the outcome differs from its snapshot corpus/__snapshots__/openai-chat/hello.json*",
        '-*"display": "Hello there",', '+*"display": "Hello world",',
    ])
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=1)
    _run(pytester, root).assert_outcomes(passed=1)


def test_an_edited_snapshot_fails(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"ollama-chat__hi.jsonl": OLLAMA_NDJSON})
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=1)
    snapshot = root / "__snapshots__/ollama-chat/hi.json"
    snapshot.write_text(snapshot.read_text("utf-8").replace('"Hi!"', '"Hi?"'), "utf-8")
    result = _run(pytester, root)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*differs from its snapshot*"])


def test_an_unused_snapshot_fails_and_snapshot_update_deletes_it(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"openai-chat__hello.sse": TEXT_SSE, "a__b__call.sse": CALL_SSE})
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=2)
    (root / "a/b/call.sse").unlink()
    orphan = root / "__snapshots__/a/b/call.json"
    foreign = _write(root, "__snapshots__/test_other/test_x.json", '{"not": "ours"}')
    result = _run(pytester, root)
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["*1 unused corpus snapshot(s), belonging to no stream in*",
                                 f"  {orphan}", "*delete them with --snapshot-update*"])
    warned = _run(pytester, root, "--snapshot-warn-unused")
    assert warned.ret == 0
    warned.stdout.fnmatch_lines(["*1 unused corpus snapshot(s)*"])
    cleaned = _run(pytester, root, "--snapshot-update")
    assert cleaned.ret == 0
    cleaned.stdout.fnmatch_lines(["*deleted 1 unused corpus snapshot(s):*", f"  {orphan}"])
    assert not orphan.exists() and not (root / "__snapshots__/a").exists()
    assert foreign.exists()  # a snapshot the runner did not write is never touched
    assert _run(pytester, root).ret == 0


def test_a_bare_folder_of_captures_in_any_layout_works(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"captures__2025__monday__x.sse": CALL_SSE, "y.ndjson": OLLAMA_NDJSON,
                                "z.jsonl": TEXT_DELTAS, "notes.txt": "not a stream"})
    result = _run(pytester, root, "--snapshot-update", "-v")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_stream?captures/2025/monday/x.sse? PASSED*"])
    assert json.loads((root / "__snapshots__/captures/2025/monday/x.json").read_text())["wire"] == "openai-chat"
    assert json.loads((root / "__snapshots__/y.json").read_text())["wire"] == "ollama-chat"
    text = json.loads((root / "__snapshots__/z.json").read_text())
    assert (text["wire"], text["display"], text["done"]) == ("text-json", "Hello world again", False)
    _run(pytester, root).assert_outcomes(passed=3)


@pytest.mark.parametrize(("sidecar", "expected"), [
    ('{"shows": 5}', "*hello.meta.json: invalid corpus metadata (shows: 5 is not of type 'string')*"),
    ('{"show": "typo"}', "*hello.meta.json: invalid corpus metadata (unknown field 'show' (known: "
                         "source, shows, wire, strategy, codec; fields of your own start with x-))*"),
    ('{"source": "x",', "*hello.meta.json: not JSON (*"),
    ('{"strategy": "no_such_module:Thing"}', "*hello.meta.json: no_such_module:Thing: cannot import "
                                             "module 'no_such_module'*"),
    ('{"strategy": "nodots"}', "*hello.meta.json: invalid corpus metadata (strategy: 'nodots' does not match*"),
])
def test_a_bad_sidecar_fails_its_stream_naming_the_file(pytester: pytest.Pytester, sidecar: str,
                                                        expected: str) -> None:
    root = _corpus(pytester, **{"openai-chat__hello.sse": TEXT_SSE, "openai-chat__hello.meta.json": sidecar,
                                "openai-chat__call.sse": CALL_SSE})
    result = _run(pytester, root, "--snapshot-update")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["corpus metadata error: corpus/openai-chat/" + expected.lstrip("*")])


def test_a_sidecar_whose_wire_disagrees_fails(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"call.sse": CALL_SSE, "call.meta.json": '{"wire": "anthropic-messages"}'})
    result = _run(pytester, root, "--snapshot-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*call.meta.json says wire 'anthropic-messages', but the stream was "
                                 "read as openai-chat*"])


def test_a_sidecar_strategy_goes_in_front_of_the_chain(pytester: pytest.Pytester) -> None:
    hermes = (_chat({"role": "assistant", "content": ""}) + _chat({"content": "<tool_"})
              + _chat({"content": 'call>{"name": "f", "arguments": {"a": 1}}</tool_call>'})
              + _chat({}, "stop"))
    root = _corpus(pytester, **{
        "text__h.sse": hermes,
        "text__h.meta.json": '{"wire": "text", "strategy": "mcs_reference:TextStrategy", '
                             '"codec": "mcs_reference:HermesCodec"}',
        "text__h_codec_only.sse": hermes,
        "text__h_codec_only.meta.json": '{"codec": "mcs_reference.text_codecs:HermesCodec"}',
        "text__plain.sse": hermes,
    })
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=3)
    for name in ("h", "h_codec_only"):
        outcome = json.loads((root / f"__snapshots__/text/{name}.json").read_text())
        assert outcome["read_by"] == "hermes"
        assert [(c["name"], c["arguments"]) for c in outcome["calls"]] == [("f", {"a": 1})]
    plain = json.loads((root / "__snapshots__/text/plain.json").read_text())
    assert (plain["read_by"], plain["calls"]) == ("text-json", [])


def test_error_streams_snapshot_the_error_and_the_message_before_it(pytester: pytest.Pytester) -> None:
    error = ('event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
             '"message": "Overloaded"}}\n\n')
    start = {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}}
    events = [start, {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Par"}},
              {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "tial"}}]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events) + error
    root = _corpus(pytester, **{"anthropic__overloaded.sse": body,
                                "broken.sse": _chat({"content": "ok"}) + "data: {oops\n\n"})
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=2)
    outcome = json.loads((root / "__snapshots__/anthropic/overloaded.json").read_text())
    assert outcome["error"] == {
        "type": "ProviderError", "chunk": 4, "during": "stream",
        "message": "chunk 4: provider reported an error mid-stream: overloaded_error: Overloaded",
        "provider_error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert outcome["message"]["content"] == [{"type": "text", "text": "Partial"}]
    assert "calls" not in outcome and outcome["display"] == "Partial"
    broken = json.loads((root / "__snapshots__/broken.json").read_text())
    assert (broken["error"]["type"], broken["error"]["chunk"], broken["display"]) == ("MalformedChunk", 1, "ok")


def test_a_strategy_that_depends_on_the_chunking_is_reported(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(lossy=LOSSY)
    pytester.syspathinsert()
    root = _corpus(pytester, **{"text.jsonl": TEXT_DELTAS, "text.meta.json": '{"codec": "mcs_reference:JsonCodec", '
                                                                             '"strategy": "lossy:Lossy"}'})
    result = _run(pytester, root, "--snapshot-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*re-chunked (adjacent fragment events merged, 4 -> 1 events), the outcome changes:*",
        '-*"display": "elloword gain",', '+*"display": "ello world again",',
    ])
    result.stdout.fnmatch_lines(["*re-chunked (fragment events split in two, 4 -> 8 events), the outcome changes:*"])
    result.stdout.no_fnmatch_line("*re-chunked (the body fed to BodyDecoder*")


def test_mcs_strategy_replays_the_corpus_in_front_of_the_chain_without_certifying(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(lossy=LOSSY + "\n\ndef lossy_json():\n    return Lossy()\n")
    pytester.syspathinsert()
    root = _corpus(pytester, **{"text.jsonl": TEXT_DELTAS})
    result = _run(pytester, root, "--snapshot-update", "--mcs-strategy=lossy:lossy_json")
    result.assert_outcomes(failed=1)  # one item per stream, no clause items
    result.stdout.fnmatch_lines(["*through lossy:lossy_json in front of the default chain*",
                                 "*re-chunked (adjacent fragment events merged*"])
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=1)


def test_typed_paths_still_run_beside_the_corpus(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_mine():\n    pass\n")
    root = _corpus(pytester, **{"hello.sse": TEXT_SSE})
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=1)  # the corpus only
    _run(pytester, root, "test_mine.py").assert_outcomes(passed=2)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)  # silent without the option


@pytest.mark.parametrize(("files", "expected"), [
    ({"notes.txt": "x"}, "*--mcs-corpus=*: no recorded streams (.sse, .jsonl, .ndjson or .bin files) in that folder*"),
    ({"a.sse": TEXT_SSE, "a.jsonl": OLLAMA_NDJSON}, "*--mcs-corpus: *a.jsonl: it and a.sse would share one snapshot*"),
    ({"a.sse": TEXT_SSE, "b.meta.json": "{}"}, "*--mcs-corpus: *b.meta.json: sidecar of no stream*"),
])
def test_an_unusable_corpus_is_a_usage_error(pytester: pytest.Pytester, files: dict, expected: str) -> None:
    root = _corpus(pytester, **files)
    result = _run(pytester, root)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([expected])


def test_a_corpus_that_is_no_folder_fails_at_option_parsing(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--mcs-corpus=nowhere")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mcs-corpus=nowhere: no such directory*"])


def test_the_corpus_runs_under_xdist(pytester: pytest.Pytester) -> None:
    root = _corpus(pytester, **{"a.sse": TEXT_SSE, "b.sse": CALL_SSE, "c.jsonl": OLLAMA_NDJSON})
    _run(pytester, root, "--snapshot-update").assert_outcomes(passed=3)
    (root / "c.jsonl").unlink()
    result = pytester.runpytest_subprocess(f"--mcs-corpus={root}", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # c.json is unused
    result.stdout.fnmatch_lines(["*1 unused corpus snapshot(s)*"])

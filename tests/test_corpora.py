"""The project's own corpus replays cleanly, run as a user runs it: `pytest --mcs-corpus=corpora`.

Every recorded stream must match its committed snapshot and give the same outcome re-chunked;
no snapshot may be missing or unused. After a deliberate change in the reference, accept the
new outcomes with `pytest --mcs-corpus=corpora --snapshot-update` and review the diff.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcs_conformance.corpora import find_streams, load_meta, unused_snapshots

CORPORA = Path(__file__).resolve().parent.parent / "corpora"
WIRES = ("anthropic-messages", "bedrock-converse", "gemini", "ollama-chat", "openai-chat",
         "openai-responses", "text")
STREAMS = find_streams(CORPORA)


@pytest.fixture(autouse=True)
def _as_a_user_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under pytest-xdist, keep the worker's identity out of the inner runs (syrupy reads it)."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


def test_every_stream_replays_to_its_snapshot(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(f"--mcs-corpus={CORPORA}", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(STREAMS))
    assert result.ret == 0
    result.stdout.no_fnmatch_line("*unused corpus snapshot*")
    result.stdout.fnmatch_lines([f"*{len(STREAMS)} snapshots passed*"])


def test_the_corpus_covers_every_wire_and_pins_each_quirk() -> None:
    assert len(STREAMS) >= 40
    by_wire = {wire: [s for s in STREAMS if s.id.startswith(wire + "/")] for wire in WIRES}
    assert all(len(streams) >= 5 for streams in by_wire.values()), {w: len(s) for w, s in by_wire.items()}
    assert len(STREAMS) == sum(len(s) for s in by_wire.values())  # nothing outside a wire folder
    for stream in STREAMS:
        meta = load_meta(stream)
        assert meta is not None and meta.source and meta.shows, stream.id
        assert meta.wire == stream.id.split("/")[0], stream.id
        assert stream.snapshot_path.is_file(), stream.id
    assert unused_snapshots(CORPORA, STREAMS) == []


def _snapshot(stream_id: str) -> dict:
    [stream] = [s for s in STREAMS if s.id == stream_id]
    return json.loads(stream.snapshot_path.read_text("utf-8"))


def test_error_streams_of_every_wire_are_pinned_as_provider_errors() -> None:
    for stream_id in ("openai-chat/error-object-midstream.sse", "openai-chat/error-event.sse",
                      "anthropic-messages/overloaded-error-midstream.sse",
                      "openai-responses/error-event-then-failed.jsonl",
                      "ollama-chat/error-midstream.jsonl", "text/hermes-interrupted-by-error.sse",
                      "gemini/error-record-midstream.sse", "gemini/safety-stop.sse",
                      "bedrock-converse/throttling-exception-midstream.bin"):
        outcome = _snapshot(stream_id)
        assert outcome["error"]["type"] == "ProviderError", stream_id
        assert outcome["error"]["provider_error"], stream_id
        assert "calls" not in outcome, stream_id


def test_hermes_streams_are_read_by_the_hermes_strategy_of_their_sidecar() -> None:
    hermes = [s for s in STREAMS if s.id.startswith("text/hermes-")]
    assert len(hermes) >= 4
    for stream in hermes:
        assert load_meta(stream).codec == "mcs_reference:HermesCodec"
        outcome = _snapshot(stream.id)
        if "error" in outcome:  # interrupted: nothing was extracted, nothing ran
            assert "calls" not in outcome and "<tool_call>" in outcome["display"]
        else:
            assert outcome["read_by"] == "hermes"

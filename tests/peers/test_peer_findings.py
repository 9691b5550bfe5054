"""Confirming a finding: the counterexample's bytes come back exactly from its record, and a
failure counts only when a fresh harness gives the same failing outcome again."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "peers"))
from matrix import catalog, findings  # noqa: E402

from mcs_conformance.clients import split_at  # noqa: E402
from mcs_conformance.clients.reference_client import reference_client  # noqa: E402
from mcs_conformance.clients import ProviderServer  # noqa: E402
from mcs_conformance.clients import Served  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "corpora"


def test_a_character_cut_between_pieces_comes_back_as_its_bytes():
    body = 'data: {"a":"é\\\\x41 ☕ \\\\\\u00e9 \\\\\\\\xff"}\n\n'.encode("utf-8")
    for cuts in [[cut] for cut in range(1, len(body))] + [[20, 21, 22], [19, 20, 21, 22, 23]]:
        pieces = split_at(body, cuts)
        recorded = [piece.decode("utf-8", "backslashreplace") for piece in pieces]
        assert findings.piece_bytes(recorded) == pieces


def test_the_base_url_is_taken_out_of_errors_only():
    outcome = {"calls": [], "text": "http://127.0.0.1:1/case/2/", "message": None,
               "error": "APIConnectionError: http://127.0.0.1:40123/case/17/v1/chat failed"}
    assert findings.comparable(outcome) == {
        **outcome, "error": "APIConnectionError: <base_url> failed"}


def _evidence(path: str, outcome: dict) -> dict:
    body = (CORPUS / path).read_bytes()
    pieces = split_at(body, [7, 40, 41])
    return {"wire": "openai-chat", "status": 200, "quirks": [], "complete": True,
            "pieces": [piece.decode("utf-8", "backslashreplace") for piece in pieces],
            "outcome": outcome}


@pytest.fixture(scope="module")
def reference():
    return catalog.load_peer(catalog.PEERS / catalog.REFERENCE)


def test_a_failure_repeats_only_with_the_same_outcome(reference):
    path = "openai-chat/parallel-calls-empty-arguments.sse"
    with ProviderServer() as server:
        served = findings.served_of(_evidence(path, {}))
        truth = reference_client(server.add(served), "openai-chat")
    assert findings.confirm(reference.command(), "client.calls", _evidence(path, truth))
    wrong = {**truth, "calls": truth["calls"][:1]}
    assert not findings.confirm(reference.command(), "client.calls", _evidence(path, wrong))


def test_byte_cuts_repeat_only_when_pieces_and_whole_still_differ(reference):
    evidence = _evidence("openai-chat/text-stop.sse", {})
    assert not findings.confirm(reference.command(), findings.BYTE_CUTS, evidence)


def test_saving_keeps_the_stream_its_cuts_and_reads_them_back(tmp_path, reference):
    path = "openai-chat/parallel-calls-empty-arguments.sse"
    evidence = _evidence(path, {"calls": [], "text": "", "message": None, "error": None})
    root = catalog.REPO / "peers" / "findings" / "_test" / tmp_path.name
    try:
        corpus, note = findings.save(root, peer="acme", version="1.0", clause="client.calls",
                                     quirks_mode="none", evidence=evidence, reason="r")
        assert note is None and corpus.endswith("calls--openai-chat--quirks-none.sse")
        clause, again = findings.evidence_of_entry(catalog.REPO / corpus)
        assert clause == "client.calls" and again["pieces"] == evidence["pieces"]
        assert (catalog.REPO / corpus).read_bytes() == (CORPUS / path).read_bytes()
    finally:
        import shutil

        shutil.rmtree(root.parent)


def test_an_http_error_answer_is_kept_raw_and_reads_back(tmp_path):
    evidence = {"wire": "openai-chat", "status": 429, "quirks": [], "complete": True,
                "pieces": ['{"error":{"message":"slow down"}}'], "outcome": {}}
    root = catalog.REPO / "peers" / "findings" / "_test" / tmp_path.name
    try:
        corpus, note = findings.save(root, peer="acme", version="1", clause="client.http-error",
                                     quirks_mode="none", evidence=evidence, reason="r")
        assert corpus.endswith("http-error--openai-chat--quirks-none.body")
        assert "an HTTP 429 answer is not a stream" in note
        clause, again = findings.evidence_of_entry(catalog.REPO / corpus)
        assert clause == "client.http-error" and again["status"] == 429
        assert findings.served_of(again).body == b'{"error":{"message":"slow down"}}'
    finally:
        import shutil

        shutil.rmtree(root.parent)


def test_a_report_line_holding_a_line_separator_is_one_line(tmp_path):
    from matrix import certifying

    lines = [{"kind": "header"},
             {"kind": "clause", "clause": "client.text", "verdict": "failed",
              "reason": "text 'a\u2028b\x85c'", "counterexample": {"pieces": ["\u2028"]},
              "severity": "silent-loss", "more_failures": [
                  {"reason": "other", "severity": "crash", "counterexample": {"pieces": []}}]},
             {"kind": "clause", "clause": "client.message", "verdict": "passed"},
             {"kind": "clause", "clause": "extract.calls", "verdict": "passed"},
             {"kind": "footer"}]
    report = tmp_path / "report.jsonl"
    report.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
                      "utf-8")
    verdicts, failures = certifying.read_report(report, exposes_message=False)
    assert verdicts == {"client.text": "failed", "client.message": "n/a"}
    assert failures == [("client.text", "text 'a\u2028b\x85c'", {"pieces": ["\u2028"]},
                         "silent-loss"),
                        ("client.text", "other", {"pieces": []}, "crash")]  # one per cause
    assert certifying.read_report(report, exposes_message=True)[0]["client.message"] == "passed"


def test_speed_times_fast_streams_often_and_skips_a_growth_it_cannot_measure():
    from matrix import speed

    assert speed._repeats(speed.SMALL, {}) == 1
    assert speed._repeats(speed.SMALL, {speed.SMALL: 0.01}) == speed.FAST_REPEATS
    assert speed._repeats(speed.LARGE, {speed.SMALL: 2.0, speed.LARGE: 30.0}) == 1
    reference = {speed.FLOOR: 0.01, speed.SMALL: 0.02, speed.LARGE: 0.11}
    quadratic = {speed.FLOOR: 0.01, speed.SMALL: 0.11, speed.LARGE: 10.01}
    entry = speed.entry("openai-chat", quadratic, reference)
    assert entry["ratio"] == 100.0 and entry["growth"] == 10.0
    flat = {speed.FLOOR: 0.01, speed.SMALL: 0.012, speed.LARGE: 0.03}
    assert speed.entry("openai-chat", flat, reference)["growth"] is None

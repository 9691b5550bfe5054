"""Client targets: `certify --client` and `pytest --mcs-client`, their reports, bad input (exit 2,
one line), hangs, quirks selection, and the reference certified on every native wire."""
from __future__ import annotations

import json
import textwrap

import pytest
from hypothesis import settings

from mcs_conformance.certify import Report
from mcs_conformance.clauses import ClauseFailure, CLAUSES, ClientSubject
from mcs_conformance.cli import main
from mcs_conformance.clients import check_outcome, ClientRunner, OutcomeError
from mcs_conformance.targets import load_client
from mcs_conformance.wires import get_wire

REFERENCE = "mcs_conformance.clients.reference_client:reference_client"
WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "ollama-chat")
CLIENT_CLAUSES = [c for c in CLAUSES.values() if c.kind == "client"]
settings.register_profile("mcs-clients-few", parent=settings.get_profile("mcs-dev-unshrunk"),
                          max_examples=15)


@pytest.fixture
def user_clients(tmp_path, monkeypatch):
    (tmp_path / "user_clients.py").write_text(textwrap.dedent('''
        import time
        from mcs_conformance.clients.reference_client import reference_client

        def returns_none(base_url, wire):
            return None

        def bad_name(base_url, wire):
            outcome = reference_client(base_url, wire)
            outcome["calls"] = [{"name": 1, "arguments": {}, "id": None}]
            return outcome

        def hangs(base_url, wire):
            time.sleep(60)
    '''), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _certify(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["certify", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_certify_client_writes_the_same_reports_with_the_target_kind(tmp_path, capsys):
    out = tmp_path / "report"
    code, stdout, _ = _certify(capsys, "--client", REFERENCE, "--wire", "openai-chat",
                               "--profile", "dev", "--seed", "3", "--out", str(out),
                               "--clause", "client.calls", "--clause", "client.http-error")
    assert code == 0 and "certified 2/2" in stdout
    assert {p.name for p in out.iterdir()} >= {"report.jsonl", "summary.md", "junit.xml",
                                               "badge.json"}
    report = Report.from_jsonl((out / "report.jsonl").read_text("utf-8"))
    assert report.header.target_kind == "client" and report.header.wire == "openai-chat"
    assert (out / "summary.md").read_text("utf-8").startswith(
        f"# mcs-conformance: client `{REFERENCE}` **certified**")


@pytest.mark.parametrize("args,message", [
    (["--client", "no_such_module:fn", "--wire", "openai-chat"], "cannot import module"),
    (["--client", REFERENCE, "--wire", "openai-chat", "--clause", "reassembly.round-trip"],
     "selects no client clause"),
    (["--client", REFERENCE], "no --wire"),
    (["--client", REFERENCE, "--wire", "text"], "--wire text"),
    (["mcs_reference:OpenAIChatStrategy", "--clause", "client.calls"], "a client clause"),
    (["mcs_reference:OpenAIChatStrategy", "--client", REFERENCE], "name one target"),
])
def test_bad_input_exits_2_with_one_line(capsys, args, message):
    code, _, err = _certify(capsys, *args)
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("fn,field", [("returns_none", "returned NoneType"),
                                      ("bad_name", "calls/0/name")])
def test_a_client_that_returns_no_outcome_exits_2_naming_field_and_case(user_clients, capsys,
                                                                        fn, field):
    code, _, err = _certify(capsys, "--client", f"user_clients:{fn}", "--wire", "ollama-chat",
                            "--profile", "dev", "--clause", "client.text",
                            "--out", str(user_clients / "r"))
    *progress, error = err.strip().splitlines()  # found while it ran: after its progress
    assert code == 2 and error.startswith("mcs-conformance certify: error: "), err
    assert field in error and "for the case at http://127.0.0.1:" in error
    assert progress[-1].startswith("[1/1] client.text: errored, ")


def test_check_outcome_names_the_field():
    with pytest.raises(OutcomeError, match="error: 3 is not of type"):
        check_outcome({"calls": [], "text": "", "message": None, "error": 3}, "here")
    assert check_outcome({"calls": [{"name": "f", "arguments": "{", "id": None}], "text": "",
                          "message": None, "error": None}, "here")


def test_a_hang_is_errored_and_the_run_goes_on(user_clients, pytester):
    result = pytester.runpytest("--mcs-client=user_clients:hangs", "--mcs-wire=openai-chat",
                                "--mcs-timeout=1", "--mcs-clause=client.http-error",
                                "--mcs-clause=client.truncated", "-p", "no:randomly")
    result.stdout.fnmatch_lines(["*certifying client user_clients:hangs on wire openai-chat*",
                                 "*errored: the client hung*"])
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) + outcomes.get("error", 0) == 2, outcomes


@pytest.mark.parametrize("quirks,allowed", [(frozenset(), set()),
                                            (frozenset({"sse-crlf", "pings"}), {"sse-crlf", "pings"})])
def test_client_cases_honour_the_quirks_selection_and_failures_name_them(kit_profile, quirks,
                                                                          allowed):
    runner = ClientRunner(load_client("broken_clients.message_drops_usage:client"),
                          "anthropic-messages", quirks=quirks)
    try:
        with pytest.raises(ClauseFailure) as failed:
            CLAUSES["client.message"].check(ClientSubject(client=runner, target="x", wire=get_wire(runner.wire)))
    finally:
        runner.close()
    assert set(failed.value.case["quirks"]) <= allowed
    if not allowed:
        assert "quirks: none (the provider's own shape)" in failed.value.reason


@pytest.mark.parametrize("wire", WIRES)
def test_the_reference_client_passes_every_client_clause(wire, kit_profile):
    """A quick pass here; benchmarks/clients.py certifies it at ci on every wire."""
    settings.load_profile("mcs-clients-few")  # kit_profile restores the previous one
    runner = ClientRunner(load_client(REFERENCE), wire)
    try:
        for clause in CLIENT_CLAUSES:
            clause.check(ClientSubject(client=runner, target=REFERENCE, wire=get_wire(runner.wire)))
    finally:
        runner.close()


def test_a_baseline_accepts_a_client_failure_as_for_a_strategy(tmp_path, capsys):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(json.dumps({"expected_failures": ["client.malformed"]}), "utf-8")
    args = ["--client", "broken_clients.malformed_as_empty:client", "--wire",
            "openai-chat", "--profile", "dev", "--seed", "1", "--clause", "client.malformed",
            "--out", str(tmp_path / "r")]
    code, stdout, _ = _certify(capsys, *args)
    assert code == 1 and "unexpected failure: client.malformed" in stdout
    code, stdout, _ = _certify(capsys, *args, "--baseline", str(baseline))
    assert code == 0 and "certified 0/1" in stdout


NOTES = [  # (broken client, wire, clause, severity)
    ("http_error_without_message", "ollama-chat", "client.http-error", "fidelity"),
    ("clean_end_is_success", "openai-chat", "client.early-end", "contract"),
    ("drops_fragment_streamed_or_not", "openai-chat", "client.calls", "silent-loss"),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("client, wire, clause, severity", NOTES)
def test_a_note_refuses_only_a_strict_certification(tmp_path, capsys, strict, client, wire,
                                                    clause, severity):
    """An HTTP error reported without the provider's message is a fidelity note, a clean cut
    accepted a contract note, a loss the client's own stream=false answer shares a note too:
    listed with its severity, certified anyway; `--strict` refuses it as a failure."""
    out = tmp_path / "report"
    code, stdout, _ = _certify(
        capsys, "--client", f"broken_clients.{client}:client", "--wire",
        wire, "--profile", "dev", "--seed", "3", "--out", str(out),
        "--clause", clause, *(["--strict"] if strict else []))
    line = json.loads((out / "report.jsonl").read_text("utf-8").splitlines()[1])
    assert line["severity"] == severity
    summary = (out / "summary.md").read_text("utf-8")
    if strict:
        assert code == 1 and line["verdict"] == "failed" and "refused 0/1" in stdout
        assert "--mcs-strict" in line["reproduce"]
    else:
        assert code == 0 and line["verdict"] == "noted" and "certified 1/1" in stdout
        assert f"note ({severity}): {clause}" in stdout
        assert f"⚠️ noted ({severity})" in summary

"""`client.message`: a client that never exposes a native message is n/a (skipped with a
reason starting "n/a:"), never passed; certify's reports say so."""
from __future__ import annotations

import json
import textwrap

import pytest

from mcs_conformance.clauses import ClauseNotApplicable, CLAUSES, ClientSubject
from mcs_conformance.cli import main
from mcs_conformance.clients import ClientRunner
from mcs_conformance.targets import load_client
from mcs_conformance.wires import get_wire


@pytest.fixture
def message_clients(tmp_path, monkeypatch):
    (tmp_path / "message_clients.py").write_text(textwrap.dedent('''
        from mcs_conformance.clients.reference_client import reference_client

        def no_message(base_url, wire):
            outcome = reference_client(base_url, wire)
            outcome["message"] = None
            return outcome
    '''), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _check(target: str, wire: str) -> None:
    runner = ClientRunner(load_client(target), wire)
    try:
        CLAUSES["client.message"].check(ClientSubject(client=runner, target=target, wire=get_wire(runner.wire)))
    finally:
        runner.close()


def test_a_client_that_exposes_no_message_is_not_applicable(message_clients, kit_profile):
    with pytest.raises(ClauseNotApplicable) as not_applicable:
        _check("message_clients:no_message", "openai-chat")
    assert not_applicable.value.reason.startswith("n/a: the client exposes no native message")


def test_a_client_that_exposes_a_message_is_judged(kit_profile):
    _check("mcs_conformance.clients.reference_client:reference_client", "openai-chat")  # no raise


def test_certify_reports_the_missing_message_as_skipped_n_a(message_clients, capsys):
    out = message_clients / "report"
    code = main(["certify", "--client", "message_clients:no_message", "--wire", "ollama-chat",
                 "--profile", "dev", "--seed", "1", "--clause", "client.message",
                 "--clause", "client.text", "--out", str(out)])
    stdout = capsys.readouterr().out
    assert code == 0 and "certified 1/1" in stdout, stdout
    rows = [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()]
    verdict = next(r for r in rows if r.get("clause") == "client.message")
    assert verdict["verdict"] == "skipped" and verdict["reason"].startswith("n/a:"), verdict
    assert "➖ skipped" in (out / "summary.md").read_text("utf-8")
    junit = (out / "junit.xml").read_text("utf-8")
    assert '<skipped message="n/a: the client exposes no native message' in junit

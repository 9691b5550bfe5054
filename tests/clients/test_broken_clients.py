"""Each deliberately broken client is flagged by its clause at the default profile, with the
quirks of its counterexample named and the severity its bug has (a bug, or a note that
`--strict` counts); the reference client passes the same clauses."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from mcs_conformance.clauses import ClauseFailure, CLAUSES, ClientSubject, SEVERITIES
from mcs_conformance.clients import ClientRunner
from mcs_conformance.targets import load_client
from mcs_conformance.wires import get_wire, SERVER_PROFILES

TESTS = Path(__file__).resolve().parents[1]

BROKEN = sorted(m.name for m in pkgutil.iter_modules([str(Path(TESTS, "broken_clients"))])
                if not m.name.startswith("_"))
CLIENT_CLAUSES = [c for c in CLAUSES.values() if c.kind == "client"]


def _subject(target: str, wire: str,
             quirks: frozenset | None = None) -> tuple[ClientSubject, ClientRunner]:
    runner = ClientRunner(load_client(target), wire, quirks=quirks)
    return ClientSubject(client=runner, target=target, wire=get_wire(runner.wire)), runner


def test_there_are_enough_broken_clients_and_every_client_clause_flags_one():
    assert len(BROKEN) >= 8, BROKEN
    evidences = {getattr(importlib.import_module(f"broken_clients.{name}"), "EVIDENCE", None)
                 for name in BROKEN}
    assert {"self", "provider"} <= evidences  # the twin tells a bug from a contract choice
    caught = {importlib.import_module(f"broken_clients.{name}").CAUGHT_BY for name in BROKEN}
    assert caught == {c.id for c in CLIENT_CLAUSES}
    severities = {importlib.import_module(f"broken_clients.{name}").SEVERITY for name in BROKEN}
    assert severities == set(SEVERITIES)  # each severity is shown on a broken client


@pytest.mark.parametrize("name", BROKEN)
def test_broken_client_is_flagged_by_its_clause(name, kit_profile):
    module = importlib.import_module(f"broken_clients.{name}")
    subject, runner = _subject(f"broken_clients.{name}:client", module.WIRE)
    try:
        with pytest.raises(ClauseFailure) as failed:
            CLAUSES[module.CAUGHT_BY].check(subject)
    finally:
        runner.close()
    failure = failed.value
    assert failure.clause_id == module.CAUGHT_BY
    assert failure.severity == module.SEVERITY, failure.reason
    evidence = getattr(module, "EVIDENCE", None)  # a client asked its stream=false answer
    if evidence is not None:
        assert failure.case["judgment"]["evidence"] == evidence, failure.reason
        assert "twin_outcome" in failure.case
        assert failure.is_note == (evidence == "provider")
    assert "quirks: " in failure.reason  # "fails only on vLLM-style streams" reads as such
    assert isinstance(failure.case["quirks"], list) and failure.case["pieces"]


def test_a_client_failing_for_two_causes_shows_both(kit_profile):
    """After a counterexample, the clause searches again without its quirks: a client that
    crashes on two servers' shapes gets one failure per shape. Certified against those two
    servers (each quirk drawn often): among every quirk, Alibaba's continuations come out in
    small cases too rarely for 40 examples to be sure to hold one."""
    module = importlib.import_module("broken_clients.crashes_on_two_servers")
    servers = SERVER_PROFILES["mistral"].selection | SERVER_PROFILES["alibaba-qwen"].selection
    subject, runner = _subject("broken_clients.crashes_on_two_servers:client", module.WIRE,
                               servers)
    try:
        with pytest.raises(ClauseFailure) as failed:
            CLAUSES[module.CAUGHT_BY].check(subject)
    finally:
        runner.close()
    failures = [failed.value, *failed.value.others]
    held = [set(failure.case["quirks"]) for failure in failures]
    for cause in module.CAUSES:  # each cause shows in a failure of its own
        assert sum(1 for quirks in held if cause <= quirks) == 1, held

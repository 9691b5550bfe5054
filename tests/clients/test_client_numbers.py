"""Client clauses compare numbers as JSON numbers: by value as IEEE doubles, as a JavaScript
client sees them (`1` for `1.0`, integers beyond 2**53 rounded); strategy clauses compare
exactly."""
from __future__ import annotations

import json
import textwrap

import pytest

from mcs_conformance.clauses import ClauseFailure, CLAUSES, ClientSubject, first_difference
from mcs_conformance.clauses._client_rules import outcome_calls_difference as _calls_difference
from mcs_conformance.clients import ClientRunner
from mcs_conformance.targets import load_client
from mcs_conformance.wires import get_wire


def test_json_numbers_compare_by_value_and_never_equal_a_bool():
    assert first_difference({"a": [1.0]}, {"a": [1]}, json_numbers=True) is None
    assert first_difference(2**53 + 1, float(2**53), json_numbers=True) is None  # RFC 8259 §6
    assert first_difference(10**400, 10**401, json_numbers=True) is None  # both overflow a double
    assert first_difference({"a": 1.0}, {"a": 2}, json_numbers=True) == "message.a: expected 1.0, got 2"
    assert first_difference(1, True, json_numbers=True) is not None
    assert first_difference(0.0, False, json_numbers=True) is not None
    assert first_difference("1", 1, json_numbers=True) is not None


def test_strategy_clauses_keep_the_exact_comparison():
    assert first_difference({"a": 1.0}, {"a": 1}) == "message.a: expected 1.0, got 1"


def test_call_arguments_compare_numbers_as_json():
    want = [{"name": "f", "arguments": {"x": 1.0, "n": 2**53 + 1}, "id": "c1"}]
    as_javascript = [{"name": "f", "arguments": {"x": 1, "n": float(2**53)}, "id": "c1"}]
    assert _calls_difference(want, as_javascript) is None
    wrong = [{"name": "f", "arguments": {"x": 2, "n": 2**53 + 1}, "id": "c1"}]
    assert _calls_difference(want, wrong) == (
        "call 0 arguments is {'x': 2, 'n': 9007199254740993}, expected "
        "{'x': 1.0, 'n': 9007199254740993}")


@pytest.fixture
def number_clients(tmp_path, monkeypatch):
    (tmp_path / "number_clients.py").write_text(textwrap.dedent('''
        import json
        from mcs_conformance.clients.reference_client import reference_client

        def _renumbered(outcome, change):
            def number(text):
                value = float(text)  # every JSON number is a double in JavaScript
                return change(int(value)) if value.is_integer() else value
            return json.loads(json.dumps(outcome), parse_int=number, parse_float=number)

        def javascript(base_url, wire):
            """Integral numbers as JavaScript gives them back: 1 for 1.0."""
            return _renumbered(reference_client(base_url, wire), lambda n: n)

        def off_by_one(base_url, wire):
            """Integral numbers changed in value: 2 for 1.0."""
            return _renumbered(reference_client(base_url, wire), lambda n: n + 1)
    '''), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


def _check(clause: str, target: str) -> None:
    runner = ClientRunner(load_client(target), "openai-responses")
    try:
        CLAUSES[clause].check(ClientSubject(client=runner, target=target, wire=get_wire(runner.wire)))
    finally:
        runner.close()


@pytest.mark.parametrize("clause", ["client.calls", "client.message"])
def test_a_client_that_returns_1_for_1_0_passes(number_clients, kit_profile, clause):
    _check(clause, "number_clients:javascript")


def test_a_client_that_returns_2_for_1_0_fails(number_clients, kit_profile):
    with pytest.raises(ClauseFailure, match="client's message differs from stream=false"):
        _check("client.message", "number_clients:off_by_one")


@pytest.fixture
def loose_clients(tmp_path, monkeypatch):
    (tmp_path / "loose_clients.py").write_text(textwrap.dedent('''
        import itertools
        from mcs_conformance.clients.reference_client import reference_client

        _count = itertools.count()

        def invents_ids(base_url, wire):
            """A new id for every call on every request, as SDKs do for calls sent without one."""
            outcome = reference_client(base_url, wire)
            for call in outcome["calls"]:
                call["id"] = f"call_{next(_count)}"
            return outcome

        def nulls_every_optional_field(base_url, wire):
            """The message as an SDK model dumps it: declared optional fields as null."""
            outcome = reference_client(base_url, wire)
            if outcome["message"] is not None:
                outcome["message"] = {**outcome["message"], "not_sent_by_the_server": None}
            return outcome
    '''), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_ids_a_client_invents_are_not_taken_for_a_byte_cut_bug(loose_clients, kit_profile):
    _check("client.byte-cuts", "loose_clients:invents_ids")


def test_a_field_dumped_as_null_counts_as_left_out(loose_clients, kit_profile):
    _check("client.message", "loose_clients:nulls_every_optional_field")

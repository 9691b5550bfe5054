"""`--mcs-clause=ID` (repeatable): run only some clauses of the catalogue."""
from __future__ import annotations

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401
from mcs_conformance.clauses import CLAUSES

STRATEGY = "--mcs-strategy=mcs_reference:OllamaChatStrategy"


def ran(result: pytest.RunResult) -> list[tuple[str, str]]:
    return [(dict(r.user_properties)["mcs_clause"], r.outcome)
            for r in result.reprec.getreports("pytest_runtest_logreport")
            if r.when == "call" and "mcs_clause" in dict(r.user_properties)]


def test_one_clause(pytester: pytest.Pytester):
    result = pytester.runpytest(STRATEGY, "--mcs-clause=reassembly.done")

    assert ran(result) == [("reassembly.done", "passed")]
    assert result.ret == pytest.ExitCode.OK


def test_several_clauses_run_in_catalogue_order(pytester: pytest.Pytester):
    result = pytester.runpytest(STRATEGY, "--mcs-clause=resolve.foreign",
                                "--mcs-clause=reassembly.done")

    assert ran(result) == [("reassembly.done", "passed"), ("resolve.foreign", "passed")]


def test_a_clause_that_does_not_concern_the_strategy_is_skipped_with_the_reason(
        pytester: pytest.Pytester):
    result = pytester.runpytest(STRATEGY, "--mcs-clause=codec.split-markers", "-rs")

    assert ran(result) == [("codec.split-markers", "skipped")]
    result.stdout.fnmatch_lines(["SKIPPED * codec.split-markers does not apply to ollama-chat"])
    assert result.ret == pytest.ExitCode.OK


def test_without_the_option_every_clause_is_collected(pytester: pytest.Pytester):
    result = pytester.runpytest(STRATEGY, "--collect-only", "-q")

    result.stdout.fnmatch_lines(
        [f"mcs[[]mcs_reference:OllamaChatStrategy]::{clause}" for clause in CLAUSES
         if CLAUSES[clause].kind == "strategy"])


@pytest.mark.parametrize("clause", ["reassembly", "reassembly.roundtrip", "REASSEMBLY.DONE", ""])
def test_unknown_clause_is_a_usage_error_in_one_line(pytester: pytest.Pytester, clause: str):
    result = pytester.runpytest(STRATEGY, f"--mcs-clause={clause}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-clause: --mcs-clause={clause}: no such "
                                 "clause; see `mcs-conformance clauses` for the catalogue"])
    assert sum("--mcs-clause" in line for line in result.stderr.lines) == 1


def test_a_clause_named_twice_runs_once(pytester: pytest.Pytester):
    result = pytester.runpytest(STRATEGY, "--mcs-clause=reassembly.done",
                                "--mcs-clause=reassembly.done")

    assert ran(result) == [("reassembly.done", "passed")]

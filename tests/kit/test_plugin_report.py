"""What a user reads: the header, a failure (clause, shrunk case, chunks), and a reproduce
command that really reproduces the failure."""
from __future__ import annotations

import re
import shlex
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401
from mcs_conformance.clauses import CLAUSES

TESTS = Path(__file__).resolve().parents[1]
TARGET = "broken.done_on_item_done:DoneOnItemDone"
CLAUSE = "reassembly.done"
RUN = (f"--mcs-strategy={TARGET}", "--mcs-profile=ci", f"--mcs-clause={CLAUSE}",
       "--mcs-clause=resolve.foreign")


@pytest.fixture
def broken(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.syspathinsert(TESTS)
    return pytester


def failures(result: pytest.RunResult) -> dict[str, tuple[str, dict]]:
    """clause id -> (failure text, user properties) of every failed clause item."""
    return {dict(r.user_properties)["mcs_clause"]: (r.longreprtext, dict(r.user_properties))
            for r in result.reprec.getreports("pytest_runtest_logreport") if r.failed}


def test_header_says_what_a_rerun_needs(broken: pytest.Pytester, shared_run):
    result = shared_run(broken, *RUN, "--mcs-seed=7")

    header = [line for line in result.stdout.lines if line.startswith("mcs-conformance:")]
    assert header == [
        f"mcs-conformance: certifying {TARGET} (profile ci, seed 7)",
        "mcs-conformance: quirks all (docs/quirks.md)",
        f"mcs-conformance: rerun with: pytest --mcs-strategy={TARGET} --mcs-clause={CLAUSE} "
        "--mcs-clause=resolve.foreign --mcs-profile=ci --mcs-seed=7",
    ]


def test_failure_shows_clause_reason_shrunk_case_and_reproduce_command(broken: pytest.Pytester,
                                                                        shared_run):
    result = shared_run(broken, *RUN, "--mcs-seed=7")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    [(text, props)] = failures(result).values()
    clause = CLAUSES[CLAUSE]
    lines = text.splitlines()
    assert lines[0] == f"[MUST {CLAUSE}] {clause.meaning}"
    assert lines[1] == f"strategy: {TARGET} (openai-responses)"
    assert re.fullmatch(r"failed: is_done\(\) is true on chunk \d+ \{'type': "
                        r"'response\.(output_item|function_call_arguments)\.done'.*, before the "
                        r"terminal chunk \d+", lines[2])
    assert lines[3] == "shrunk counterexample:"
    assert lines[4].startswith('  wire: "openai-responses"')
    assert lines[5].startswith("  quirks: [")  # the real-server quirks the case holds
    assert lines[6].startswith('  message: {"')
    [count] = [int(m.group(1)) for line in lines if (m := re.fullmatch(r"  chunks \((\d+)\):", line))]
    chunk_lines = [line for line in lines if re.match(r"    \[\d+\] \{", line)]
    assert len(chunk_lines) == count
    assert count <= 6, "shrinking should leave a few chunks"
    assert lines[-3:] == [
        f"what this means: {clause.failure_means}",
        f"typical bug: {clause.typical_bug}",
        f"reproduce: pytest --mcs-strategy={TARGET} --mcs-clause={CLAUSE} --mcs-profile=ci --mcs-seed=7",
    ]
    assert props["mcs_verdict"] == "failed"
    assert props["mcs_reproduce"] == lines[-1].removeprefix("reproduce: ")
    assert len(props["mcs_case"]["chunks"]) == count
    result.stdout.fnmatch_lines([f"FAILED mcs[[]{TARGET}]::{CLAUSE}*"])


def test_printed_reproduce_command_reproduces_the_failure(broken: pytest.Pytester, shared_run):
    first = shared_run(broken, *RUN)
    [(text, _)] = failures(first).values()
    command = text.splitlines()[-1].removeprefix("reproduce: ")
    program, *args = shlex.split(command)
    assert program == "pytest"

    again = broken.runpytest(*args)

    assert again.ret == pytest.ExitCode.TESTS_FAILED
    assert list(failures(again)) == [CLAUSE]
    [(text_again, _)] = failures(again).values()
    assert text_again == text


def test_reproduce_command_of_a_randomized_run_reproduces_it_too(broken: pytest.Pytester):
    """At `dev` the examples depend on the seed, which the command carries."""
    run = ("--mcs-strategy=broken.forming_first_call:FormingFirstCall", "--mcs-profile=dev",
           "--mcs-clause=extract.forming")
    first = broken.runpytest(*run)
    [(text, _)] = failures(first).values()
    _, *args = shlex.split(text.splitlines()[-1].removeprefix("reproduce: "))

    again = broken.runpytest(*args, "-p", "no:cacheprovider")

    [(text_again, _)] = failures(again).values()
    assert text_again == text


def test_header_rerun_keeps_the_clauses_chosen(broken: pytest.Pytester):
    result = broken.runpytest(*RUN, "--mcs-seed=7", "--collect-only")

    result.stdout.fnmatch_lines([
        f"mcs-conformance: rerun with: pytest --mcs-strategy={TARGET} "
        f"--mcs-clause={CLAUSE} --mcs-clause=resolve.foreign --mcs-profile=ci --mcs-seed=7"])


def test_header_rerun_command_repeats_the_whole_run(broken: pytest.Pytester, shared_run):
    first = shared_run(broken, *RUN)
    rerun = next(line for line in first.stdout.lines
                 if line.startswith("mcs-conformance: rerun with: "))
    _, *args = shlex.split(rerun.removeprefix("mcs-conformance: rerun with: "))

    again = broken.runpytest(*args)

    assert {k: v[0] for k, v in failures(again).items()} == \
        {k: v[0] for k, v in failures(first).items()}
    assert again.parseoutcomes() == first.parseoutcomes()


def test_errored_clause_shows_what_the_strategy_raised_and_where(pytester: pytest.Pytester):
    pytester.makepyfile(raising="""
        from mcs_reference import OllamaChatStrategy

        class Raising(OllamaChatStrategy):
            def extract(self, message):
                return [call.name.upper() for call in super().extract(message)] + [1 / 0]
    """)

    result = pytester.runpytest("--mcs-strategy=raising:Raising", "--mcs-clause=extract.calls")

    [(text, props)] = failures(result).values()
    assert "\nerrored: the strategy raised ZeroDivisionError: division by zero\n" in text
    assert re.search(r'File ".*raising\.py", line \d+, in extract', text)
    assert props["mcs_verdict"] == "errored"
    assert props["mcs_reason"] == "the strategy raised ZeroDivisionError: division by zero"
    assert text.splitlines()[-1].startswith(
        "reproduce: pytest --mcs-strategy=raising:Raising --mcs-clause=extract.calls ")


def test_junit_xml_carries_the_verdict_and_reproduce_command(broken: pytest.Pytester):
    result = broken.runpytest(*RUN, "--mcs-seed=7", "--junitxml=report.xml")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cases = {}
    for case in ET.parse(broken.path / "report.xml").iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        cases[props["mcs_clause"]] = props
    assert cases[CLAUSE]["mcs_verdict"] == "failed"
    assert cases[CLAUSE]["mcs_reproduce"] == (
        f"pytest --mcs-strategy={TARGET} --mcs-clause={CLAUSE} --mcs-profile=ci --mcs-seed=7")
    assert cases["resolve.foreign"]["mcs_verdict"] == "passed"

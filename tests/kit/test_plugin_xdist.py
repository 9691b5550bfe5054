"""The plugin under pytest-xdist: `-n 2` spreads the clauses and gives the same verdicts."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401

TESTS = Path(__file__).resolve().parents[1]
CLAUSES = ("reassembly.done", "resolve.own-wire", "extract.calls", "robust.no-mutation")
TARGET = "done_on_item_done:DoneOnItemDone"
RUN = (f"--mcs-strategy={TARGET}",
       "--mcs-strategy=mcs_reference:OllamaChatStrategy",
       *(f"--mcs-clause={clause}" for clause in CLAUSES))


@pytest.fixture
def broken(pytester: pytest.Pytester) -> pytest.Pytester:
    """A broken strategy in the user's directory, where the workers find it too.

    (Workers of an in-process run get the controller's `sys.path` as it was when xdist was
    imported, so a path inserted by the test would not reach them; the current directory,
    which the kit searches for targets, does.)
    """
    source = (TESTS / "broken" / "done_on_item_done.py").read_text("utf-8")
    pytester.makepyfile(done_on_item_done=source)
    return pytester


def verdicts(result: pytest.RunResult) -> dict[str, tuple[str, str]]:
    """item -> (outcome, kit verdict) from the controller's view of every clause item."""
    out = {}
    for report in result.reprec.getreports("pytest_runtest_logreport"):
        props = dict(report.user_properties)
        if report.when == "call" and "mcs_clause" in props:
            out[report.nodeid] = (report.outcome, props.get("mcs_verdict"))
    return out


def header_seed(result: pytest.RunResult) -> int:
    found = re.search(r"^mcs-conformance: certifying .* seed (\d+)\)$", result.stdout.str(),
                      re.MULTILINE)
    assert found, result.stdout.str()
    return int(found.group(1))


@pytest.mark.parametrize("profile", ["ci", "dev"])
def test_two_workers_give_the_same_verdicts(broken: pytest.Pytester, shared_run, profile: str):
    serial = broken.runpytest(*RUN, f"--mcs-profile={profile}", "--mcs-seed=5")
    parallel = shared_run(broken, *RUN, f"--mcs-profile={profile}", "--mcs-seed=5", "-n", "2")

    parallel.stdout.fnmatch_lines(["*2 workers [[]8 items]*"])
    assert verdicts(parallel) == verdicts(serial)
    assert len(verdicts(serial)) == 2 * len(CLAUSES)
    assert {outcome for outcome, _ in verdicts(serial).values()} == {"passed", "failed"}
    assert parallel.ret == serial.ret == pytest.ExitCode.TESTS_FAILED


def test_workers_use_the_controllers_seed(broken: pytest.Pytester):
    """Without --mcs-seed the controller draws one; every worker must use it, or the
    reproduce commands the workers print would not reproduce anything."""
    result = broken.runpytest(*RUN, "-n", "2")

    seed = header_seed(result)
    commands = [dict(r.user_properties)["mcs_reproduce"]
                for r in result.reprec.getreports("pytest_runtest_logreport") if r.failed]
    assert commands == [
        f"pytest --mcs-strategy={TARGET} --mcs-clause=reassembly.done --mcs-profile=dev "
        f"--mcs-seed={seed}"]


def test_failure_report_survives_the_trip_from_worker_to_controller(broken: pytest.Pytester,
                                                                   shared_run):
    result = shared_run(broken, *RUN, "--mcs-profile=ci", "--mcs-seed=5", "-n", "2")

    [report] = [r for r in result.reprec.getreports("pytest_runtest_logreport") if r.failed]
    props = dict(report.user_properties)
    assert props["mcs_verdict"] == "failed"
    assert props["mcs_case"]["wire"] == "openai-responses"
    assert "\nshrunk counterexample:\n" in report.longreprtext
    result.stdout.fnmatch_lines([
        f"reproduce: pytest --mcs-strategy={TARGET} --mcs-clause=reassembly.done "
        "--mcs-profile=ci --mcs-seed=5"])

"""`--mcs-seed=N`: the header shows the seed, and a seed reproduces a run exactly."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401

TESTS = Path(__file__).resolve().parents[1]
# Records every chunk the kit feeds it, so two runs can be compared chunk for chunk.
RECORDING = """
import json, os
from mcs_reference import OllamaChatStrategy

class Recording(OllamaChatStrategy):
    def accumulate(self, acc, chunk):
        with open(os.environ["MCS_RECORD_FILE"], "a") as out:
            out.write(json.dumps(chunk, sort_keys=True) + "\\n")
        return super().accumulate(acc, chunk)
"""
RUN = ("--mcs-strategy=recording:Recording", "--mcs-profile=dev",
       "--mcs-clause=reassembly.round-trip")


@pytest.fixture
def record(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    """Run the recording strategy with extra arguments; return what it was fed and the result."""
    pytester.makepyfile(recording=RECORDING)
    runs = iter(range(100))

    def run(*args: str) -> tuple[str, pytest.RunResult]:
        path = pytester.path / f"record-{next(runs)}.jsonl"
        monkeypatch.setenv("MCS_RECORD_FILE", str(path))
        # Each run in a process of its own, as a user reruns: in one process Hypothesis
        # also draws from constants of the modules imported so far, which a first run grows.
        result = pytester.runpytest_subprocess(*RUN, *args)
        result.assert_outcomes(passed=1)
        return path.read_text(), result

    return run


def header_seed(result: pytest.RunResult) -> int:
    found = re.search(r"^mcs-conformance: certifying .* \(profile \w+, seed (\d+)\)$",
                      result.stdout.str(), re.MULTILINE)
    assert found, result.stdout.str()
    return int(found.group(1))


@pytest.mark.parametrize("given, shown", [("42", 42), ("0x2a", 42), ("0", 0), ("4294967295", 2**32 - 1)])
def test_header_shows_the_seed(pytester: pytest.Pytester, given: str, shown: int):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-seed={given}", "--collect-only")

    assert header_seed(result) == shown
    result.stdout.fnmatch_lines([f"mcs-conformance: rerun with: pytest * --mcs-seed={shown}"])


def test_without_a_seed_one_is_drawn_and_shown(pytester: pytest.Pytester):
    first = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy", "--collect-only")
    second = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy", "--collect-only")

    assert header_seed(first) != header_seed(second)


def test_the_same_seed_feeds_the_same_chunks(record):
    fed, _ = record("--mcs-seed=1234")
    again, _ = record("--mcs-seed=1234")
    other, _ = record("--mcs-seed=4321")

    assert fed.count("\n") > 40  # 40 examples of at least one chunk each
    assert again == fed
    assert other != fed


def test_the_seed_in_the_header_reproduces_a_run_without_one(record):
    fed, result = record()
    again, _ = record(f"--mcs-seed={header_seed(result)}")

    assert again == fed


def test_the_same_seed_reproduces_the_same_failure(pytester: pytest.Pytester):
    """A broken strategy at the randomized `dev` profile: same seed, same verdicts and
    the same shrunk counterexample."""
    pytester.syspathinsert(TESTS)
    run = ("--mcs-strategy=broken.forming_first_call:FormingFirstCall", "--mcs-profile=dev",
           "--mcs-seed=99", "--mcs-clause=extract.forming", "--mcs-clause=reassembly.done", "-p",
           "no:cacheprovider")

    first = pytester.runpytest(*run)
    second = pytester.runpytest(*run)

    first.assert_outcomes(passed=1, failed=1)
    second.assert_outcomes(passed=1, failed=1)
    assert failure_text(first) == failure_text(second)


def failure_text(result: pytest.RunResult) -> str:
    [failure] = [r.longreprtext for r in result.reprec.getreports("pytest_runtest_logreport")
                 if r.failed]
    return failure


@pytest.mark.parametrize("seed", ["abc", "1.5", "", "0x"])
def test_bad_seed_is_a_usage_error_in_one_line(pytester: pytest.Pytester, seed: str):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-seed={seed}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-seed: --mcs-seed={seed}: expected a non-negative integer"])
    assert sum("--mcs-seed" in line for line in result.stderr.lines) == 1

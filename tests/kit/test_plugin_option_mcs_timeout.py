"""`--mcs-timeout=SECONDS`: a strategy that hangs or raises is reported against the clause,
and the run goes on to the next clause."""
from __future__ import annotations

import time

import pytest
from hypothesis import control, given
from hypothesis import strategies as st

from mcs_conformance.clauses import ClauseTimeout, time_limit

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401

# Misbehaving strategies. The hang is bounded (two long sleeps per process) so that a kit
# without a working time limit makes this test slow and failed, never stuck.
MISBEHAVING = """
import time
from mcs_reference import OllamaChatStrategy

SLEEPS = [100, 100]

class Hangs(OllamaChatStrategy):
    def accumulate(self, acc, chunk):
        if SLEEPS:
            time.sleep(SLEEPS.pop())
        return super().accumulate(acc, chunk)

class Raises(OllamaChatStrategy):
    def accumulate(self, acc, chunk):
        raise RuntimeError("boom: the strategy's own bug")

class Exits(OllamaChatStrategy):
    def accumulate(self, acc, chunk):
        raise SystemExit(3)
"""
# reassembly.round-trip feeds chunks (the misbehaviour shows); reassembly.done only asks
# is_done() (it does not): the second must still run, and pass, after the first.
CLAUSES = ("--mcs-clause=reassembly.round-trip", "--mcs-clause=reassembly.done")


@pytest.fixture
def misbehaving(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(misbehaving=MISBEHAVING)
    return pytester


def verdicts(result: pytest.RunResult) -> dict[str, tuple[str, str | None]]:
    out = {}
    for report in result.reprec.getreports("pytest_runtest_logreport"):
        props = dict(report.user_properties)
        if report.when == "call" and "mcs_clause" in props:
            out[props["mcs_clause"]] = (report.outcome, props.get("mcs_verdict"))
    return out


def test_a_hanging_strategy_is_errored_as_hung_and_the_run_goes_on(misbehaving: pytest.Pytester):
    started = time.monotonic()
    # The limit holds for every clause: it leaves the well-behaved one (a third of a second
    # at the dev profile, quiet) eight times its time, for a loaded machine.
    result = misbehaving.runpytest("--mcs-strategy=misbehaving:Hangs", "--mcs-timeout=3", *CLAUSES)
    elapsed = time.monotonic() - started

    assert verdicts(result) == {"reassembly.round-trip": ("failed", "errored"),
                                "reassembly.done": ("passed", "passed")}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert elapsed < 90, f"the 3 s time limit did not stop a 100 s sleep ({elapsed:.0f} s)"
    result.stdout.fnmatch_lines([
        "[[]MUST reassembly.round-trip] *",
        "errored: the strategy hung (no result after 3 s); raise --mcs-timeout if it is only slow",
        "reproduce: pytest --mcs-strategy=misbehaving:Hangs --mcs-clause=reassembly.round-trip *",
    ])
    [reason] = [dict(r.user_properties)["mcs_reason"]
                for r in result.reprec.getreports("pytest_runtest_logreport") if r.failed]
    assert reason == "the strategy hung: no result after 3 s"


def test_a_limit_striking_inside_the_generators_is_reported_as_hung(pytester: pytest.Pytester):
    """Too short a limit stops the clause wherever it is, often inside Hypothesis, which
    then fails its own invariants: still a hang, never "the strategy raised AssertionError"."""
    result = pytester.runpytest("--mcs-strategy=mcs_reference:AnthropicMessagesStrategy",
                                "--mcs-timeout=0.02", "--mcs-clause=reassembly.round-trip",
                                "--mcs-clause=extract.calls")

    assert verdicts(result) == {"reassembly.round-trip": ("failed", "errored"),
                                "extract.calls": ("failed", "errored")}
    result.stdout.fnmatch_lines(["errored: the strategy hung (no result after 0.02 s); *"] * 2)
    assert "the strategy raised" not in result.stdout.str()


def test_a_limit_striking_as_hypothesis_enters_a_case_leaves_no_given_behind():
    """An interrupt can land just after Hypothesis marked the thread as inside `@given` and
    before its `with` took hold (seen in a quiet run of the suite: every later `@given` of
    that worker then failed as nested, the next test here among them). Leaving the limit
    puts the mark back as it found it."""
    with pytest.raises(ClauseTimeout):
        with time_limit(0.05):
            control._current_build_context.value = object()  # marked, and never unmarked
            time.sleep(5)
    assert not control.currently_in_test_context()

    @given(st.integers())
    def any_integer(number: int) -> None:
        pass

    any_integer()  # not nested


def test_a_strategy_that_raises_is_errored_and_the_run_goes_on(misbehaving: pytest.Pytester):
    result = misbehaving.runpytest("--mcs-strategy=misbehaving:Raises", *CLAUSES)

    assert verdicts(result) == {"reassembly.round-trip": ("failed", "errored"),
                                "reassembly.done": ("passed", "passed")}
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "errored: the strategy raised RuntimeError: boom: the strategy's own bug",
        "*in accumulate*",
        "reproduce: pytest --mcs-strategy=misbehaving:Raises --mcs-clause=reassembly.round-trip *",
    ])
    assert "INTERNALERROR" not in result.stdout.str()


def test_a_strategy_that_exits_is_errored_and_the_run_goes_on(misbehaving: pytest.Pytester):
    result = misbehaving.runpytest("--mcs-strategy=misbehaving:Exits", *CLAUSES)

    assert verdicts(result) == {"reassembly.round-trip": ("failed", "errored"),
                                "reassembly.done": ("passed", "passed")}
    result.stdout.fnmatch_lines(["errored: the strategy raised SystemExit: 3"])


def test_a_generous_timeout_lets_a_slow_strategy_pass(misbehaving: pytest.Pytester):
    misbehaving.makepyfile(slow="""
        import time
        from mcs_reference import OllamaChatStrategy

        class Slow(OllamaChatStrategy):
            def accumulate(self, acc, chunk):
                time.sleep(0.001)
                return super().accumulate(acc, chunk)
    """)

    result = misbehaving.runpytest("--mcs-strategy=slow:Slow", "--mcs-timeout=120", CLAUSES[0])

    assert verdicts(result) == {"reassembly.round-trip": ("passed", "passed")}


@pytest.mark.parametrize("timeout", ["0", "-1", "soon", ""])
def test_bad_timeout_is_a_usage_error_in_one_line(pytester: pytest.Pytester, timeout: str):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-timeout={timeout}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-timeout: --mcs-timeout={timeout}: "
                                 "expected a positive number of seconds"])
    assert sum("--mcs-timeout" in line for line in result.stderr.lines) == 1

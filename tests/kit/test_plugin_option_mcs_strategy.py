"""`--mcs-strategy=pkg:Obj`: which targets it takes, how a bad one fails, silence without it."""
from __future__ import annotations

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401
from mcs_conformance.clauses import CLAUSES

FAST = "--mcs-clause=reassembly.done"  # one quick clause: these tests are about the option
TARGETS = """
from mcs_reference import OllamaChatStrategy

INSTANCE = OllamaChatStrategy()

def factory():
    return OllamaChatStrategy()

class NeedsArguments(OllamaChatStrategy):
    def __init__(self, model):
        self.model = model

class Incomplete:
    name = "ollama-chat"
    def recognizes(self, shape):
        return False

def not_a_strategy():
    return {"name": "ollama-chat"}

NUMBER = 42
"""


@pytest.fixture
def targets(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(user_targets=TARGETS)
    return pytester


def clause_items(result: pytest.RunResult) -> list[str]:
    return [report.nodeid for report in result.reprec.getreports("pytest_runtest_logreport")
            if report.when == "call" and dict(report.user_properties).get("mcs_clause")]


@pytest.mark.parametrize("target", [
    "mcs_reference:OllamaChatStrategy",  # a class constructible with no arguments
    "user_targets:INSTANCE",  # an instance
    "user_targets:factory",  # a zero-argument factory
    "mcs_reference.ollama_chat:OllamaChatStrategy",  # through its own module
])
def test_target_kinds_are_certified(targets: pytest.Pytester, target: str):
    result = targets.runpytest(f"--mcs-strategy={target}", FAST)

    result.assert_outcomes(passed=1)
    assert clause_items(result) == [f"mcs[{target}]::reassembly.done"]
    result.stdout.fnmatch_lines([f"mcs-conformance: certifying {target} (profile dev, seed *)"])


def test_option_is_repeatable(targets: pytest.Pytester):
    result = targets.runpytest("--mcs-strategy=user_targets:factory",
                               "--mcs-strategy=mcs_reference:OllamaChatStrategy", FAST)

    result.assert_outcomes(passed=2)
    assert clause_items(result) == ["mcs[user_targets:factory]::reassembly.done",
                                    "mcs[mcs_reference:OllamaChatStrategy]::reassembly.done"]
    result.stdout.fnmatch_lines([
        "mcs-conformance: certifying user_targets:factory, mcs_reference:OllamaChatStrategy *"])


def test_every_clause_runs_by_default_once_per_strategy(targets: pytest.Pytester):
    result = targets.runpytest("--mcs-strategy=user_targets:INSTANCE", "--collect-only", "-q")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([f"mcs[[]user_targets:INSTANCE]::{clause}" for clause in CLAUSES
                                   if CLAUSES[clause].kind == "strategy"])


@pytest.mark.parametrize("target, problem", [
    ("no_such_module:Strategy",
     "no_such_module:Strategy: cannot import module 'no_such_module' (is it installed or on sys.path?)"),
    ("user_targets:Missing", "user_targets:Missing: module 'user_targets' has no attribute 'Missing'"),
    ("user_targets:NUMBER", "user_targets:NUMBER: int object is not an extraction strategy"),
    ("user_targets:not_a_strategy", "user_targets:not_a_strategy: not an extraction strategy (missing "
                                    "name, recognizes, new_accumulator, accumulate, *)"),
    ("user_targets:Incomplete", "user_targets:Incomplete: not an extraction strategy (missing "
                                "new_accumulator, accumulate, *)"),
    ("user_targets:NeedsArguments", "user_targets:NeedsArguments: calling it with no arguments failed "
                                    "(*missing 1 required positional argument: 'model'); name an "
                                    "instance or a zero-argument factory instead"),
    ("user_targets", "user_targets: expected 'package.module:Object'"),
])
def test_bad_target_is_a_usage_error_in_one_line(targets: pytest.Pytester, target: str,
                                                 problem: str):
    result = targets.runpytest(f"--mcs-strategy={target}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-strategy: {problem}"])
    assert sum("--mcs-strategy" in line for line in result.stderr.lines) == 1
    assert "Traceback" not in result.stderr.str()
    assert "mcs[" not in result.stdout.str()


def test_a_module_that_fails_to_import_is_named(pytester: pytest.Pytester):
    pytester.makepyfile(broken_import="raise RuntimeError('missing API key')\n")

    result = pytester.runpytest("--mcs-strategy=broken_import:Strategy")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "*error: argument --mcs-strategy: broken_import:Strategy: importing 'broken_import' "
        "raised RuntimeError: missing API key"])


def test_plugin_is_silent_without_the_option(pytester: pytest.Pytester):
    pytester.makepyfile(test_user="""
        def test_one():
            assert 1 + 1 == 2

        def test_two():
            pass
    """)

    result = pytester.runpytest("-v")

    result.assert_outcomes(passed=2)
    assert "mcs-conformance:" not in result.stdout.str()  # no header lines
    assert "mcs[" not in result.stdout.str()
    assert call_nodeids(result) == ["test_user.py::test_one", "test_user.py::test_two"]


def test_alone_it_runs_only_the_clauses_not_the_projects_tests(targets: pytest.Pytester):
    targets.makepyfile(test_user="def test_mine():\n    pass\n")

    result = targets.runpytest("--mcs-strategy=user_targets:factory", FAST)

    result.assert_outcomes(passed=1)
    assert call_nodeids(result) == ["mcs[user_targets:factory]::reassembly.done"]


def test_with_test_paths_it_runs_them_beside_the_clauses(targets: pytest.Pytester):
    targets.makepyfile(test_user="def test_mine():\n    pass\n")

    result = targets.runpytest("--mcs-strategy=user_targets:factory", FAST, "test_user.py")

    result.assert_outcomes(passed=2)
    assert call_nodeids(result) == ["test_user.py::test_mine",
                                    "mcs[user_targets:factory]::reassembly.done"]


def call_nodeids(result: pytest.RunResult) -> list[str]:
    return [r.nodeid for r in result.reprec.getreports("pytest_runtest_logreport")
            if r.when == "call"]


def test_the_clauses_are_collected_as_pytest_collects_tests(pytester: pytest.Pytester):
    """The header counts the clauses ("collected 0 items" was printed before 25 ran);
    --collect-only lists them by node id and -k selects among them."""
    strategy_clauses = [c for c, clause in CLAUSES.items() if clause.kind == "strategy"]
    listed = pytester.runpytest_subprocess("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                           "--collect-only", "-q")
    assert listed.ret == 0
    listed.stdout.fnmatch_lines([f"mcs[[]mcs_reference:OllamaChatStrategy]::{clause}"
                                 for clause in strategy_clauses])
    listed.stdout.fnmatch_lines([f"{len(strategy_clauses)} tests collected*"])
    chosen = pytester.runpytest_subprocess("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                           "-k", "reassembly.done or resolve.own-wire")
    chosen.stdout.fnmatch_lines([f"collected {len(strategy_clauses)} items / "
                                 f"{len(strategy_clauses) - 2} deselected / 2 selected"])
    chosen.assert_outcomes(passed=2)

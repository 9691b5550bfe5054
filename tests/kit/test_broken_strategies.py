"""The kit proves its power: it flags every deliberately broken strategy in `tests/broken/`
with the clause that names its bug, and it passes every reference strategy.

Each run is a user's run (`pytest --mcs-strategy=...` through pytester, in process): a
broken strategy against the clause that names its bug at the default profile (`dev`, with a
fixed seed), and a reference strategy against the whole catalogue at the same profile: the
reference's own property tests (tests/reference/) are where its correctness is drawn for
long; here each clause is shown to run on it and pass. Runs in a process of their own, as
from a terminal, are shown by tests/kit/test_plugin_*.py and the docs' pages.
"""
from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from xml.etree import ElementTree

import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401
from mcs_conformance.clauses import CLAUSES
from mcs_conformance.targets import BUNDLED_STRATEGIES

TESTS = Path(__file__).resolve().parents[1]
BROKEN = sorted(p.stem for p in (TESTS / "broken").glob("*.py") if not p.stem.startswith("_"))
REFERENCE_STRATEGIES = ("OpenAIChatStrategy", "OpenAIResponsesStrategy",
                        "AnthropicMessagesStrategy", "OllamaChatStrategy", "GeminiStrategy",
                        "BedrockConverseStrategy",
                        "TextStrategy")


def clause_reports(result: pytest.RunResult) -> dict[str, tuple[str, dict, str]]:
    """clause id -> (outcome, user properties, failure text) from the run's call reports."""
    found = {}
    for report in result.reprec.getreports("pytest_runtest_logreport"):
        props = dict(report.user_properties)
        if "mcs_clause" in props and (report.when == "call" or report.outcome == "failed"):
            found[props["mcs_clause"]] = (report.outcome, props, report.longreprtext)
    return found


def junit_reports(path: Path) -> dict[str, tuple[str, dict, str]]:
    """The same from a run's JUnit XML, as a user's CI reads it."""
    found = {}
    for case in ElementTree.parse(path).iter("testcase"):
        props = {prop.get("name"): prop.get("value") for prop in case.iter("property")}
        ended = [child for child in case if child.tag in ("failure", "error", "skipped")]
        outcome = "passed" if not ended else "skipped" if ended[0].tag == "skipped" else "failed"
        if "mcs_clause" in props:
            found[props["mcs_clause"]] = (outcome, props, (ended[0].text or "") if ended else "")
    return found


def outcomes_line(found: dict) -> str:
    return ", ".join(f"{clause}={outcome}" for clause, (outcome, _, _) in found.items())


def load_broken(pytester: pytest.Pytester, module: str):
    pytester.syspathinsert(TESTS)
    return importlib.import_module(f"broken.{module}")


# -- the broken strategies themselves --------------------------------------------------------
def test_there_are_enough_broken_strategies():
    assert len(BROKEN) >= 14, BROKEN


@pytest.mark.parametrize("module", BROKEN)
def test_broken_strategy_is_one_bent_reference(pytester: pytest.Pytester, module: str):
    """One documented bug on top of one reference strategy, naming a real clause."""
    broken = load_broken(pytester, module)
    assert broken.CAUGHT_BY in CLAUSES
    strategy = getattr(broken, broken.STRATEGY)
    assert strategy.__module__ == broken.__name__
    assert len((broken.__doc__ or "").strip().splitlines()) >= 3, "say which real failure it mimics"
    bases = {cls.__name__ for cls in inspect.getmro(strategy)[1:]} & set(REFERENCE_STRATEGIES)
    assert len(bases) == 1, bases
    strategy()  # constructible with no arguments, as --mcs-strategy needs


# -- the kit flags each one ------------------------------------------------------------------
@pytest.mark.parametrize("module", BROKEN)
def test_kit_flags_broken_strategy(pytester: pytest.Pytester, module: str):
    broken = load_broken(pytester, module)
    target = f"broken.{module}:{broken.STRATEGY}"
    clause = broken.CAUGHT_BY

    # The default profile (dev: 40 examples), with a fixed seed, in process: tests/conftest.py
    # keeps Hypothesis from mixing the constants of the modules imported so far into the
    # draws, so what seed 0 draws does not hang on the rest of the suite.
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest(
        "-p", "no:cacheprovider", f"--junitxml={junit}",
        f"--mcs-strategy={target}", f"--mcs-clause={clause}", "--mcs-seed=0")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    found = junit_reports(junit)
    assert clause in found, f"{clause} did not run: {outcomes_line(found)}"
    outcome, props, text = found[clause]
    assert outcome == "failed", f"{target} passed {clause}: {outcomes_line(found)}"
    assert props["mcs_verdict"] in ("failed", "errored")
    assert text.startswith(f"[{CLAUSES[clause].level} {clause}] ")
    assert f"strategy: {target} (" in text
    if props["mcs_verdict"] == "failed":
        assert "\nfailed: " in text
        assert "\nshrunk counterexample:\n" in text
    else:  # the strategy raised where the clause expected an answer
        assert "\nerrored: the strategy raised " in text
    reproduce = f"reproduce: pytest --mcs-strategy={target} --mcs-clause={clause} --mcs-profile=dev --mcs-seed=0"
    assert f"\n{reproduce}" in text
    result.stdout.fnmatch_lines([reproduce])


# -- and passes the reference ---------------------------------------------------------------
@pytest.mark.parametrize("target", BUNDLED_STRATEGIES)
def test_kit_passes_reference_strategy(pytester: pytest.Pytester, target: str):
    result = pytester.runpytest(f"--mcs-strategy={target}", "--mcs-profile=dev", "--mcs-seed=0",
                                "-p", "no:randomly")

    found = clause_reports(result)
    failed = {clause: text for clause, (outcome, _, text) in found.items()
              if outcome not in ("passed", "skipped")}
    assert not failed, "\n\n".join(failed.values())
    assert result.ret == pytest.ExitCode.OK
    assert set(found) == {c for c, k in CLAUSES.items() if k.kind == "strategy"}
    for clause, (outcome, props, _) in found.items():
        assert props["mcs_verdict"] == ("passed" if outcome == "passed" else "skipped")
    passed = [clause for clause, (outcome, _, _) in found.items() if outcome == "passed"]
    assert len(passed) >= 12, passed

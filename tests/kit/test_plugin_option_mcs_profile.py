"""`--mcs-profile=dev|ci|thorough`: how hard Hypothesis searches, shown in the header."""
from __future__ import annotations

import os
import subprocess
import sys

import hypothesis
import pytest

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401

# Counts the examples a clause ran: reassembly.round-trip makes one accumulator per example.
COUNTING = """
import os
from mcs_reference import OllamaChatStrategy

class Counting(OllamaChatStrategy):
    def new_accumulator(self):
        with open(os.environ["MCS_COUNT_FILE"], "a") as out:
            out.write(".")
        return super().new_accumulator()
"""


@pytest.mark.parametrize("profile", ["dev", "ci", "thorough"])
def test_each_profile_is_accepted_and_shown(pytester: pytest.Pytester, profile: str):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-profile={profile}", "--collect-only")

    assert result.ret == pytest.ExitCode.OK
    result.stdout.fnmatch_lines([
        f"mcs-conformance: certifying mcs_reference:OllamaChatStrategy (profile {profile}, seed *)",
        f"mcs-conformance: rerun with: pytest --mcs-strategy=mcs_reference:OllamaChatStrategy "
        f"--mcs-profile={profile} --mcs-seed=*"])


def test_default_profile_is_dev(pytester: pytest.Pytester):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy", "--collect-only")

    result.stdout.fnmatch_lines(["mcs-conformance: certifying * (profile dev, seed *)"])


@pytest.mark.parametrize("profile, examples", [("dev", 40), ("ci", 100)])
def test_profile_sets_how_many_examples_a_clause_runs(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      profile: str, examples: int):
    pytester.makepyfile(counting=COUNTING)
    count_file = pytester.path / "count.txt"
    monkeypatch.setenv("MCS_COUNT_FILE", str(count_file))

    result = pytester.runpytest("--mcs-strategy=counting:Counting", f"--mcs-profile={profile}",
                                "--mcs-clause=reassembly.round-trip")

    result.assert_outcomes(passed=1)
    # round-trip checks two streams per example: any case, and one with parallel calls
    assert len(count_file.read_text()) == 2 * examples


@pytest.mark.parametrize("profile", ["fast", "CI", ""])
def test_bad_profile_is_a_usage_error_in_one_line(pytester: pytest.Pytester, profile: str):
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy",
                                f"--mcs-profile={profile}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-profile: invalid choice: '{profile}' "
                                 "(choose from *dev*, *ci*, *thorough*)"])
    assert sum("--mcs-profile" in line for line in result.stderr.lines) == 1


def test_a_run_leaves_the_callers_hypothesis_profile_alone(pytester: pytest.Pytester):
    """In-process runs (pytester, `mcs-conformance certify`) must not change the settings
    of the Hypothesis tests that run after them in the same process."""
    hypothesis.settings.register_profile("mcs-test-caller", max_examples=7)
    hypothesis.settings.load_profile("mcs-test-caller")

    pytester.runpytest("--mcs-strategy=mcs_reference:OllamaChatStrategy", "--mcs-profile=ci",
                       "--mcs-clause=reassembly.done")

    assert hypothesis.settings.get_current_profile_name() == "mcs-test-caller"
    assert hypothesis.settings.default.max_examples == 7


def test_profiles_ignore_hypothesis_own_ci_profile():
    """With CI set, Hypothesis loads its derandomized `ci` profile; the kit's dev and
    thorough profiles must not inherit it, or --mcs-seed would change nothing in CI."""
    code = ("from mcs_conformance.plugin import profile_settings as p; "
            "print([p(n).derandomize for n in ('dev', 'ci', 'thorough')], p('dev').max_examples)")
    done = subprocess.run([sys.executable, "-c", code], env={**os.environ, "CI": "true"},
                          capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[False,", "True,", "False]", "40"]

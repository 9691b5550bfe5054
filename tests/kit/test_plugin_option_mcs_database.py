"""`--mcs-database=DIR`: the run keeps Hypothesis' example database in DIR (the replay itself is
proven in process by test_certify_database.py); the rerun command carries the option."""
from __future__ import annotations

from pathlib import Path

import pytest

# Imported before pytester snapshots sys.modules (see test_plugin_option_mcs_clause.py).
import mcs_reference.errors  # noqa: F401

STRATEGY = "--mcs-strategy=mcs_reference:OllamaChatStrategy"
TESTS = Path(__file__).resolve().parents[1]


def test_a_failure_is_saved_into_the_folder(pytester: pytest.Pytester):
    pytester.syspathinsert(TESTS)
    result = pytester.runpytest("--mcs-strategy=broken.lost_last_fragment:LostLastFragment",
                                "--mcs-clause=reassembly.round-trip", "--mcs-database=shared/db",
                                "--mcs-seed=5")

    result.assert_outcomes(failed=1)
    assert any((pytester.path / "shared" / "db").iterdir())
    result.stdout.fnmatch_lines(["reproduce: pytest * --mcs-seed=5 --mcs-database=shared/db"])


def test_a_file_is_a_usage_error_in_one_line(pytester: pytest.Pytester):
    pytester.makefile(".txt", db="not a folder")
    result = pytester.runpytest(STRATEGY, "--mcs-database=db.txt")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*error: argument --mcs-database: --mcs-database=db.txt: it is a file, not a folder"])

"""`--mcs-shard=I/N`: collect only shard I of N of the selected clauses (as `certify --shard`)."""
from __future__ import annotations

import pytest

# Imported before pytester snapshots sys.modules (see test_plugin_option_mcs_clause.py).
import mcs_reference.errors  # noqa: F401
from mcs_conformance.clauses import CLAUSES
from mcs_conformance.clauses import Shard

STRATEGY = "--mcs-strategy=mcs_reference:OllamaChatStrategy"


def collected(pytester: pytest.Pytester, *args: str) -> list[str]:
    result = pytester.runpytest(STRATEGY, "--collect-only", "-q", *args)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    return [line.rsplit("::", 1)[1] for line in result.stdout.lines if line.startswith("mcs[")]


def test_the_shards_collect_the_catalogue_once_in_catalogue_order(pytester: pytest.Pytester):
    shares = [collected(pytester, f"--mcs-shard={i}/3") for i in (1, 2, 3)]
    strategy_clauses = [c for c, clause in CLAUSES.items() if clause.kind == "strategy"]
    assert shares == [[c for c in strategy_clauses if c in Shard(i, 3).select(strategy_clauses)]
                      for i in (1, 2, 3)]
    assert sorted(c for share in shares for c in share) == sorted(strategy_clauses)


def test_a_shard_of_a_narrowed_run_shares_out_the_named_clauses(pytester: pytest.Pytester):
    narrowed = ["--mcs-clause=resolve.foreign", "--mcs-clause=reassembly.done"]
    assert collected(pytester, *narrowed, "--mcs-shard=1/2") == ["reassembly.done"]
    result = pytester.runpytest(STRATEGY, *narrowed, "--mcs-shard=2/2", "--mcs-seed=3", "--collect-only")
    result.stdout.fnmatch_lines(["*rerun with: pytest * --mcs-clause=reassembly.done "
                                 "--mcs-shard=2/2 --mcs-profile=dev --mcs-seed=3"])


@pytest.mark.parametrize("value", ["0/2", "3/2", "2", "one/two"])
def test_a_bad_shard_is_a_usage_error_in_one_line(pytester: pytest.Pytester, value: str):
    result = pytester.runpytest(STRATEGY, f"--mcs-shard={value}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*error: argument --mcs-shard: --mcs-shard={value}: expected I/N*"])
    assert sum("--mcs-shard" in line for line in result.stderr.lines) == 1

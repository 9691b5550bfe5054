"""`certify --shard I/N` and `mcs-conformance merge`: the shards of a run, merged, give the
verdicts of the run in one piece; merge refuses shards that do not fit together, naming why.

The certifications are narrowed to three clauses (one the broken strategy fails, one it
passes, one that does not apply) at the dev profile with a fixed seed, so the file stays quick.
"""
from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from mcs_conformance.certify import Request, run, write
from mcs_conformance.clauses import CLAUSES
from mcs_conformance.cli import main
from mcs_conformance.certify import Report
from mcs_conformance.clauses import Shard, parse_shard

TESTS = Path(__file__).resolve().parents[1]
REFERENCE = "mcs_reference:OpenAIChatStrategy"
BROKEN = "broken.lost_last_fragment:LostLastFragment"  # fails reassembly.round-trip
CLAUSE_IDS = ("reassembly.round-trip", "reassembly.done", "resolve.text-never-native")
FILES = {"report.jsonl", "summary.md", "junit.xml", "badge.json"}


# -- the split ------------------------------------------------------------------------------
@pytest.mark.parametrize("count", [1, 2, 3, 7, len(CLAUSES), len(CLAUSES) + 2])
def test_the_shards_partition_the_clauses_whatever_their_order(count):
    ids = list(CLAUSES)
    shares = [Shard(i, count).select(ids) for i in range(1, count + 1)]
    assert sorted(c for share in shares for c in share) == sorted(ids)  # each clause once
    assert shares == [Shard(i, count).select(reversed(ids)) for i in range(1, count + 1)]
    sizes = [len(share) for share in shares]
    assert max(sizes) - min(sizes) <= 1  # round robin: balanced


def test_round_robin_over_sorted_ids():
    assert Shard(1, 2).select(["c", "a", "b"]) == ("a", "c")
    assert Shard(2, 2).select(["c", "a", "b"]) == ("b",)
    assert Shard(3, 3).select(["a"]) == ()


@pytest.mark.parametrize("text, shard", [("1/1", Shard(1, 1)), ("2/4", Shard(2, 4)), (" 3 / 3 ", Shard(3, 3))])
def test_parse_shard(text, shard):
    assert parse_shard(text) == shard and str(shard) == text.replace(" ", "")


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "3", "a/b", "-1/2", "1/2/3", ""])
def test_a_bad_shard_is_one_line_and_exit_2(text, capsys, tmp_path):
    out = tmp_path / "never"
    assert main(["certify", REFERENCE, f"--shard={text}", "--profile", "dev", "--out", str(out)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [lines[0]] and lines[0].startswith(f"mcs-conformance certify: error: --shard {text}: expected I/N")
    assert not out.exists()


# -- shard and merge: the same verdicts as the whole run --------------------------------------
@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, dict]:
    """For each target: the whole run's report, and the folders of its shards 1/2 and 2/2."""
    sys.path.insert(0, str(TESTS))
    try:
        found = {}
        for target in (REFERENCE, BROKEN):
            request = Request(target=target, profile="dev", seed=7, clauses=CLAUSE_IDS)
            folders = []
            for shard in ("1/2", "2/2"):
                folder = tmp_path_factory.mktemp("shard")
                write(run(replace(request, shard=shard)), folder)
                folders.append(folder)
            found[target] = {"whole": run(request), "shards": folders}
        return found
    finally:
        sys.path.remove(str(TESTS))


def verdicts(report: Report) -> list[tuple]:
    return [(r.clause, r.verdict, r.reason, r.counterexample, r.expected_failure) for r in report.results]


@pytest.mark.parametrize("target, status", [(REFERENCE, 0), (BROKEN, 1)])
def test_merged_shards_give_the_verdicts_of_the_whole_run(runs, tmp_path, capsys, target, status):
    out = tmp_path / "merged"
    assert main(["merge", *map(str, runs[target]["shards"]), "--out", str(out)]) == status
    assert {p.name for p in out.iterdir()} == FILES
    merged, whole = Report.from_jsonl((out / "report.jsonl").read_text("utf-8")), runs[target]["whole"]
    assert verdicts(merged) == verdicts(whole)
    assert [r.clause for r in merged.results] == [c for c in CLAUSES if c in CLAUSE_IDS]  # catalogue order
    assert merged.header == replace(whole.header, started=merged.header.started)
    assert merged.certified == whole.certified and merged.score == whole.score
    assert capsys.readouterr().out.startswith(f"{target}: {'certified' if status == 0 else 'refused'} {whole.score}")
    assert json.loads((out / "badge.json").read_text())["message"].endswith(whole.score)
    assert "Shard" not in (out / "summary.md").read_text("utf-8")


def test_a_shard_report_says_which_shard_and_holds_only_its_clauses(runs):
    first, second = (Report.from_jsonl((f / "report.jsonl").read_text("utf-8")) for f in runs[BROKEN]["shards"])
    assert (first.header.shard, second.header.shard) == ("1/2", "2/2")
    assert [r.clause for r in first.results] == ["reassembly.done", "resolve.text-never-native"]
    assert [r.clause for r in second.results] == ["reassembly.round-trip"]
    assert second.results[0].reproduce.endswith("--mcs-clause=reassembly.round-trip --mcs-profile=dev --mcs-seed=7")
    assert "Shard 2/2: part of a certification" in (runs[BROKEN]["shards"][1] / "summary.md").read_text("utf-8")
    assert 'name="mcs-conformance broken.lost_last_fragment:LostLastFragment shard 2/2"' in \
        (runs[BROKEN]["shards"][1] / "junit.xml").read_text("utf-8")


def test_an_empty_shard_is_an_empty_report_that_merges(tmp_path):
    narrow = Request(target=REFERENCE, profile="dev", seed=7, clauses=("reassembly.done",))
    folders = [tmp_path / "1", tmp_path / "2"]
    for folder, shard in zip(folders, ("1/2", "2/2")):
        write(run(replace(narrow, shard=shard)), folder)
    assert Report.from_jsonl((folders[1] / "report.jsonl").read_text()).results == ()
    assert main(["merge", *map(str, folders), "--out", str(tmp_path / "merged")]) == 0


# -- merge refuses, naming the mismatch ---------------------------------------------------------
def _refusal(capsys, out: Path, *folders: Path) -> str:
    assert main(["merge", *map(str, folders), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert lines == [lines[0]] and lines[0].startswith("mcs-conformance merge: error: "), captured.err
    assert not out.exists()
    return lines[0]


def _altered(source: Path, dest: Path, **header) -> Path:
    """A copy of the shard folder `source` whose report header has `header` changed."""
    report = Report.from_jsonl((source / "report.jsonl").read_text("utf-8"))
    write(replace(report, header=replace(report.header, **header)), dest)
    return dest


@pytest.mark.parametrize("field, value, words", [
    ("target", "mcs_reference:OllamaChatStrategy", "targets"),
    ("wire", "ollama-chat", "wires"),
    ("profile", "thorough", "profiles"),
    ("seed", 8, "seeds"),
    ("quirks", "none", "quirks"),
    ("version", "0.0.1", "kit versions"),
    ("hypothesis", "6.0.0", "Hypothesis versions"),
    ("baseline", ("reassembly.done",), "baselines"),
])
def test_shards_of_different_runs_are_refused(runs, tmp_path, capsys, field, value, words):
    first, second = runs[BROKEN]["shards"]
    other = _altered(second, tmp_path / "other", **{field: value})
    line = _refusal(capsys, tmp_path / "merged", first, other)
    assert f"shards of different {words}: {first} has " in line and f"{other} has " in line
    assert str(value if not isinstance(value, tuple) else value[0]) in line


def test_shards_of_another_kit_version_are_refused(runs, tmp_path, capsys):
    older = [_altered(f, tmp_path / f.name, version="0.0.1") for f in runs[BROKEN]["shards"]]
    line = _refusal(capsys, tmp_path / "merged", *older)
    assert "the shards were made by mcs-conformance 0.0.1; this is " in line


def test_a_missing_shard_is_refused(runs, tmp_path, capsys):
    line = _refusal(capsys, tmp_path / "merged", runs[BROKEN]["shards"][0])
    assert "shard 2/2 missing: merge needs every shard's folder" in line


def test_a_shard_given_twice_is_refused(runs, tmp_path, capsys):
    first, second = runs[BROKEN]["shards"]
    line = _refusal(capsys, tmp_path / "merged", first, second, first)
    assert f"shard 1/2 given twice: {first} and {first}" in line


def test_shards_of_different_splits_are_refused(runs, tmp_path, capsys):
    first, second = runs[BROKEN]["shards"]
    third = _altered(second, tmp_path / "third", shard="3/3")
    line = _refusal(capsys, tmp_path / "merged", first, third)
    assert f"shards of different splits: {first} is shard 1/2, {third} is shard 3/3" in line


def test_a_shard_holding_other_clauses_is_refused(runs, tmp_path, capsys):
    first, second = runs[BROKEN]["shards"]
    relabelled = _altered(first, tmp_path / "relabelled", shard="2/2")  # 1/2's clauses, called 2/2
    line = _refusal(capsys, tmp_path / "merged", second, relabelled)
    assert "shard 2/2 given twice" in line
    swapped = _altered(second, tmp_path / "swapped", shard="1/2")
    line = _refusal(capsys, tmp_path / "merged", swapped, relabelled)
    assert (f"{swapped}: shard 1/2 should hold reassembly.done, resolve.text-never-native "
            "but holds reassembly.round-trip") in line


def test_a_whole_run_or_a_folder_without_a_report_is_refused(runs, tmp_path, capsys):
    first = runs[BROKEN]["shards"][0]
    whole = tmp_path / "whole"
    write(runs[BROKEN]["whole"], whole)
    assert f"{whole}: a whole run, not a shard" in _refusal(capsys, tmp_path / "merged", first, whole)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert f"{empty}: cannot read report.jsonl" in _refusal(capsys, tmp_path / "merged", first, empty)
    (empty / "report.jsonl").write_text("{not json\n")
    assert "report line 1: not JSON" in _refusal(capsys, tmp_path / "merged", first, empty)

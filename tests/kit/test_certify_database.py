"""`certify --database DIR|PKG:OBJ` (the plugin's `--mcs-database`): a failure found once is
replayed first on the next run, at the dev profile and at the derandomized ci profile alike;
without a database the kit writes none and every run starts afresh.

A broken strategy records every stream it is fed, so a test sees which stream came first.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mcs_conformance.certify import Request, run
from mcs_conformance.cli import main

TESTS = Path(__file__).resolve().parents[1]
RECORDING = '''
from broken.lost_last_fragment import LostLastFragment

FED = []  # the chunks of each stream, in the order the kit fed them


class Recording(LostLastFragment):
    def new_accumulator(self):
        FED.append([])
        return super().new_accumulator()

    def accumulate(self, acc, chunk):
        FED[-1].append(chunk)
        return super().accumulate(acc, chunk)
'''


@pytest.fixture
def certify(tmp_path, monkeypatch):
    """Certify the recording broken strategy on reassembly.round-trip; returns (result, fed)."""
    (tmp_path / "recording.py").write_text(RECORDING)
    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "recording", raising=False)
    import recording

    def certify_once(profile: str, database: Path | str | None):
        recording.FED.clear()
        database = None if database is None else str(database)
        report = run(Request(target="recording:Recording", profile=profile, seed=7,
                             clauses=("reassembly.round-trip",), database=database))
        return report.results[0], list(recording.FED)

    return certify_once


@pytest.mark.parametrize("profile", ["dev", "ci"])
def test_a_saved_failure_is_replayed_first(certify, tmp_path, profile):
    database = tmp_path / "examples"
    found, _ = certify(profile, database)
    assert found.verdict == "failed" and any(database.iterdir())

    replayed, fed = certify(profile, database)
    assert replayed.verdict == "failed"
    # the first example is the saved failure (round-trip feeds two streams an example: any
    # case, and one with parallel calls; the counterexample is the one that failed)
    assert found.counterexample["chunks"] in fed[:2]
    assert replayed.counterexample == found.counterexample
    assert replayed.examples < found.examples
    assert replayed.reproduce.endswith(f"--mcs-database={database}")

    afresh, _ = certify(profile, None)  # the same run without the database searches again
    assert afresh.examples == found.examples  # the whole search again, not a replay
    assert not (tmp_path / ".hypothesis").exists()


def test_a_database_that_is_a_file_is_one_line_and_exit_2(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    out = tmp_path / "never"
    assert main(["certify", "mcs_reference:OpenAIChatStrategy", "--database", str(tmp_path / "file"),
                 "--profile", "dev", "--out", str(out)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"mcs-conformance certify: error: --database {tmp_path / 'file'}: it is a file, not a folder"]
    assert not out.exists()


def test_a_database_object_is_used_as_given(certify, tmp_path):
    (tmp_path / "shared_examples.py").write_text(
        "from hypothesis.database import DirectoryBasedExampleDatabase\n"
        f"EXAMPLES = DirectoryBasedExampleDatabase({str(tmp_path / 'kept')!r})\n")
    found, _ = certify("dev", "shared_examples:EXAMPLES")
    assert any((tmp_path / "kept").iterdir())
    replayed, fed = certify("dev", "shared_examples:EXAMPLES")
    assert found.counterexample["chunks"] in fed[:2]  # the first example's two streams
    assert replayed.reproduce.endswith("--mcs-database=shared_examples:EXAMPLES")


@pytest.mark.parametrize("spec, says", [
    ("mcs_reference:OpenAIChatStrategy", "a class, not a Hypothesis example database instance"),
    ("mcs_reference:__name__", "a str object, not a Hypothesis example database instance"),
    ("no_such_module_zq:EXAMPLES", "cannot import module 'no_such_module_zq'"),
    ("mcs_reference:NO_SUCH", "has no attribute 'NO_SUCH'"),
])
def test_a_bad_database_object_is_one_line_and_exit_2(tmp_path, capsys, spec, says):
    out = tmp_path / "never"
    assert main(["certify", "mcs_reference:OpenAIChatStrategy", "--database", spec,
                 "--profile", "dev", "--out", str(out)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"mcs-conformance certify: error: --database {spec}: ")
    assert says in lines[0] and not out.exists()

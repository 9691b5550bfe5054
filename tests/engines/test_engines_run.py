"""Running the engines matrix: a cell that breaks, hangs or kills its worker loses no other,
and a run resumes where it stopped (a cell observed by the same engine, kit, profile and seed is
not run again)."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "peers" / "engines"))
from enginematrix import observed  # noqa: E402

IDENTITY = {"environment": {"hypothesis": "x"}, "kit": "k", "profile": "dev", "seed": 0}


#: Seconds a cell may go without a line from its worker. The hung cell waits all of them;
#: the hermes cell, with its fresh worker's start, took 1.2 s beside two busy loops on a
#: 2-core machine: five times that is room for a loaded CI.
HUNG_AFTER = 6


def test_a_hung_or_broken_cell_loses_no_other(monkeypatch):
    troubled = observed.Engine(Path(sys.executable), "tests.engines.broken_parsers:troubled", ())
    monkeypatch.setitem(observed.ENGINES, "troubled", troubled)
    cells = {c["format"]: c for c in observed.observe(
        "troubled", ["json", "qwen3-coder", "mistral", "hermes"], IDENTITY, timeout=HUNG_AFTER)}
    assert cells["json"]["problem"] == f"hung: stopped after {HUNG_AFTER} s"
    assert "cannot be built for qwen3-coder" in cells["qwen3-coder"]["problem"]
    assert cells["mistral"]["problem"] == "exit status 3"  # the worker died: a new one goes on
    assert cells["hermes"]["problem"] is None and cells["hermes"]["observations"]
    assert set(cells["hermes"]["clauses"]) == {"parser.stream-equals-whole", "parser.truth",
                                                "parser.content", "parser.no-phantom",
                                                "parser.malformed"}
    assert cells["hermes"]["command"].startswith("mcs-conformance certify --parser "
                                                 "tests.engines.broken_parsers:troubled")


def test_a_cell_is_run_again_only_when_missing_broken_or_observed_otherwise():
    done = {**IDENTITY, "problem": None}
    assert observed.is_current(done, IDENTITY)
    assert not observed.is_current(None, IDENTITY)
    assert not observed.is_current({**done, "problem": "hung: stopped after 900 s"}, IDENTITY)
    for key, other in (("kit", "k2"), ("seed", 1), ("profile", "ci"),
                       ("environment", {"hypothesis": "y"})):
        assert not observed.is_current({**done, key: other}, IDENTITY), key


def test_the_kit_key_changes_with_the_generators_not_with_the_judgments(tmp_path):
    for name in ("mcs_conformance/wires/formats.py", "mcs_conformance/clauses/_parser.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    key = observed.kit_key(tmp_path)
    (tmp_path / "mcs_conformance/clauses/_parser.py").write_text("x = 2\n")
    assert observed.kit_key(tmp_path) == key  # judged again, not run again
    (tmp_path / "mcs_conformance/wires/formats.py").write_text("x = 2\n")
    assert observed.kit_key(tmp_path) != key

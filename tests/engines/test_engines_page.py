"""docs/engines.md is derived from the saved observations, in CI, with no engine installed:
each verdict, severity and cause on it is what the current parser clauses and the notes
give; the notes obey their rules; and each rule is shown failing on a broken case."""
from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

import pytest

from mcs_conformance.clauses import _parser
from mcs_conformance.engines.reference import parser as reference_parser
from mcs_conformance.clauses import parser_message_calls, reassembled_parser_stream

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "peers" / "engines"))
from enginematrix import judged, observed, page, repros  # noqa: E402

CELLS = observed.load_cells()
NOTES = judged.load_notes()


def _rendered(cells=CELLS, notes=NOTES) -> str:
    return page.render(cells, judged.read(cells, notes))


def _stale(published: str, derived: str) -> list[str]:
    """The published lines the derivation no longer gives."""
    return [line for line in published.splitlines() if line not in derived.splitlines()]


def test_every_engine_cell_is_saved():
    assert {c["engine"] for c in CELLS} == set(observed.ENGINES)
    assert all(c["observations"] for c in CELLS if c["problem"] is None)


def test_the_page_is_what_the_saved_observations_and_notes_give():
    published = page.PAGE.read_text("utf-8")
    assert _stale(published, _rendered()) == [], (
        "docs/engines.md is stale: python peers/engines/run.py --judge")
    assert published == _rendered()


def test_a_changed_judging_rule_makes_the_page_stale(monkeypatch):
    """A rule that no longer sees lost content: the rows it judged are stale."""
    monkeypatch.setitem(_parser._JUDGES, "parser.content", lambda observation, *_: None)
    stale = _stale(page.PAGE.read_text("utf-8"), _rendered())
    assert any("`parser.content`" in line for line in stale), stale


def test_the_notes_obey_their_rules():
    assert judged.problems(judged.read(CELLS, NOTES), CELLS, ROOT) == []


def _bug_notes_of(engine: str) -> list[dict]:
    return [n for n in NOTES if n["engine"] == engine and n["verdict"] == "bug"]


def test_two_bug_causes_sharing_an_observation_break_a_rule():
    reading = judged.read(CELLS, NOTES)
    note = next(n for n in NOTES if n["verdict"] == "bug" and reading.explained_by(n))
    twin = {**copy.deepcopy(note), "title": "the same observations, said twice"}
    found = judged.problems(judged.read(CELLS, NOTES + [twin]), CELLS, ROOT)
    assert any("two ✗ causes" in p and "said twice" in p for p in found), found


def test_a_failure_no_note_explains_shows_as_unread():
    reading = judged.read(CELLS, NOTES)
    note = next(n for n in NOTES if n["verdict"] == "bug" and reading.explained_by(n))
    failure = reading.explained_by(note)[0]
    without = judged.read(CELLS, [n for n in NOTES if n is not note])
    assert failure in without.unread()
    derived = page.render(CELLS, without)
    row = next(line for line in derived.splitlines()
               if line.startswith(f"| {failure.engine} |") and "`json`" not in line
               and line.count("|") > 10)
    assert "?" in row
    assert f"{failure.where}" in derived.split("## Not yet read by hand")[1]


def test_every_bug_note_says_where_its_cause_lies_and_its_upstream_state():
    stripped = [{k: v for k, v in n.items() if k != "function"} for n in NOTES]
    found = judged.problems(judged.read(CELLS, stripped), CELLS, ROOT)
    assert sum("a ✗ note says its function" in p for p in found) == \
        sum(n["verdict"] == "bug" for n in NOTES)


def test_a_repro_that_exits_0_while_its_note_says_bug_breaks_a_rule(tmp_path):
    note = next(n for n in NOTES if n["verdict"] == "bug")
    found, skipped = repros.repro_problems([note], run=lambda python, repro: 0)
    assert skipped or found and "exits 0" in found[0]
    found, _ = repros.repro_problems([note], run=lambda python, repro: 1)
    assert found == []


@pytest.mark.skipif(os.environ.get("MCS_ENGINE_REPROS") != "1",
                    reason="runs each ✗ note's repro where its engine is installed under "
                           ".peers (about 5 minutes): set MCS_ENGINE_REPROS=1")
@pytest.mark.parametrize("engine", sorted({n["engine"] for n in NOTES if n["verdict"] == "bug"}))
def test_each_bug_note_repro_exits_1_while_the_bug_is_there(engine):
    if not observed.ENGINES[engine].python.exists():
        pytest.skip(f"{engine} is not installed here (peers/engines/{engine}/INSTALL.md)")
    found, skipped = repros.repro_problems(NOTES, only=[engine])
    assert skipped == [] and found == []


@pytest.mark.parametrize("cell", [c for c in CELLS if c["engine"] != "mcs-reference"],
                         ids=lambda c: f"{c['engine']}/{c['format']}")
def test_the_reference_reads_each_saved_output_as_its_truth(cell):
    """The truth each observation is judged against is what the reference codec reads."""
    for observation in cell["observations"]:
        assert "".join(t for d in observation["deltas"] for t in d) == observation["text"]
        reference = reference_parser(observation["format"])
        truth = [{"name": c["name"], "arguments": c["arguments"]}
                 for c in observation["calls"] if "error" not in c]
        for message in (reference.parse(observation["text"], observation["tools"]),
                        reassembled_parser_stream(reference.stream(observation["deltas"],
                                                                   observation["tools"]))):
            if observation["cases"] == "malformed":
                assert len(message.get("tool_calls") or []) == 1
            else:
                assert parser_message_calls(message) == json.loads(json.dumps(truth))


def test_a_matcher_naming_spellings_explains_only_the_observations_holding_them():
    """The cause of a failure on a spelling the engine does not claim is its own note: a
    matcher naming spellings reads no other observation, and one naming no real spelling
    breaks a rule."""
    reading = judged.read(CELLS, NOTES)
    note = next(n for n in NOTES if all("spellings" in m for m in n["match"])
                and reading.explained_by(n))
    named = {s for m in note["match"] for s in m["spellings"]}
    assert all(set(f.spellings) & named for f in reading.explained_by(note))
    unspelled = {**copy.deepcopy(note), "title": "no spelling held"}
    for matcher in unspelled["match"]:
        matcher["spellings"] = ["no-such-spelling"]
    found = judged.problems(judged.read(CELLS, NOTES + [unspelled]), CELLS, ROOT)
    assert any("no-such-spelling is no spelling" in p for p in found), found
    assert judged.read(CELLS, [unspelled]).explained_by(unspelled) == []

"""The engines matrix replays in CI with no engine installed: every saved finding's text
and split, fed to the reference parser, give the truth it was judged against; every note
names real clauses and a repro that exists; docs/engines.md is what the rows render."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from mcs_conformance.clauses import CLAUSES, reassembled_parser_stream
from mcs_conformance.clauses import parser_message_calls as _calls
from mcs_conformance.engines.reference import parser

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "peers" / "engines"
SAVED = sorted((ENGINES / "findings").rglob("*.json"))
_spec = importlib.util.spec_from_file_location("engines_run", ENGINES / "run.py")
run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(run)


def test_findings_are_saved():
    assert SAVED, "peers/engines/findings holds no saved finding"


@pytest.mark.parametrize("path", SAVED, ids=lambda p: str(p.relative_to(ENGINES / "findings")))
def test_the_reference_reads_each_saved_output_as_its_truth(path):
    case = json.loads(path.read_text("utf-8"))
    assert case["clause"] in CLAUSES and "".join(t for d in case["deltas"] for t in d) == case["text"]
    reference = parser(case["format"])
    truth = [{"name": c["name"], "arguments": c["arguments"]} for c in case["calls"]
             if "error" not in c]
    squeeze = lambda text: "".join((text or "").split())  # noqa: E731
    for message in (reference.parse(case["text"], case["tools"]),
                    reassembled_parser_stream(reference.stream(case["deltas"], case["tools"]))):
        if any("error" in c for c in case["calls"]):  # malformed: surfaced as a broken call
            assert len(message.get("tool_calls") or []) == 1
            continue
        assert _calls(message) == truth
        assert squeeze(message.get("content")) == squeeze(case["content"])


def test_every_note_names_parser_clauses_a_row_and_its_repro():
    rows = {(r["engine"], r["format"]) for r in run._rows()}
    for note in run._notes():
        assert (note["engine"], note["format"]) in rows, note["title"]
        assert note["clauses"] and all(c in CLAUSES and c.startswith("parser.")
                                       for c in note["clauses"]), note["title"]
        assert note["verdict"] in ("bug", "kit", "adapter", "contract"), note["title"]
        if note["verdict"] == "bug":
            assert (ROOT / note["repro"]).is_file(), note["repro"]
            assert note.get("upstream") or note.get("searched"), note["title"]


def test_the_engines_page_is_what_the_rows_and_notes_render():
    assert (ROOT / "docs" / "engines.md").read_text("utf-8") == run.render(run._rows(),
                                                                           run._notes()), (
        "docs/engines.md is stale: python peers/engines/run.py --page")

"""docs/peers.md is what the saved observations give under the current rules, in CI, with no
peer library installed: judged again here, the matrix must keep every rule of evidence and
render the page and the issue texts byte for byte. The bug repros whose library this
environment has at the matrix's version (the official SDKs among the test extras) must
still exit 1."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PEERS = Path(__file__).resolve().parents[2] / "peers"
sys.path.insert(0, str(PEERS))
_spec = importlib.util.spec_from_file_location("peers_run", PEERS / "run.py")
run = importlib.util.module_from_spec(_spec)  # not `import run`: benchmarks/ has a run.py too
_spec.loader.exec_module(run)
from matrix import issues, judging, observations, repros  # noqa: E402

MATRIX = judging.derive()


def test_observations_are_saved_for_every_peer():
    peers = {cell.peer for cell in MATRIX.cells}
    assert {"mcs-reference", "openai", "anthropic"} <= peers, sorted(peers)
    for cell in MATRIX.cells:
        assert cell.data["status"] in ("run", "could not run"), cell.path
        for clause, entry in cell.clauses.items():
            assert entry["status"] in ("ran", "errored", "n/a", "skipped"), (cell.path, clause)


def test_every_rule_of_evidence_holds():
    assert judging.problems(MATRIX) == []


def test_the_page_is_what_the_saved_observations_give():
    assert (run.DOCS_PAGE.read_text("utf-8") == run.page.render(MATRIX, run.said_of())), (
        "docs/peers.md differs from what the saved observations give: python peers/run.py --page")


def test_every_bug_has_its_issue_text_in_step():
    for path, wanted in run._issue_texts(MATRIX):
        assert path.exists() and path.read_text("utf-8") == wanted, (
            f"{path} is stale: python peers/run.py --page")


def test_the_bug_repros_this_environment_can_run_still_fail():
    ran = repros.run_bug_repros(MATRIX, python=sys.executable)
    assert repros.repro_problems(ran) == [], [out[-2000:] for _, _, out in ran]


def test_every_saved_case_belongs_to_a_cell():
    named = {ident for cell in MATRIX.cells for entry in cell.clauses.values()
             for ident in entry.get("observations", ())}
    saved = {path.stem for path in observations.ROOT.glob("*/cases/*.json")}
    assert saved == named
    assert issues  # the module the page uses for the issue texts

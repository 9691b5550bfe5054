"""The matrix's rules, each shown failing on a deliberately broken case: a stale page, a
duplicate cause, an unread failure, a bug resting on evidence that cannot carry it, a repro
that passes while its cause says ✗. Built on a small matrix of made-up observations, judged
by the kit's real rules."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parents[2] / "peers"
sys.path.insert(0, str(PEERS))
_spec = importlib.util.spec_from_file_location("peers_run", PEERS / "run.py")
run = importlib.util.module_from_spec(_spec)  # not `import run`: benchmarks/ has a run.py too
_spec.loader.exec_module(run)
from matrix import catalog, issues, judging, observations, observing, page, repros  # noqa: E402
from matrix.observations import Cell, Observation  # noqa: E402

BODY = b'data: {"choices": []}\n\n'
TRUTH = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1",
                    "malformed": False}], "text": "", "message": None,
         "stopped_at_token_limit": False, "provider_error": None}
LOST = {"calls": [], "text": "", "message": None, "error": None}
TWIN_RIGHT = {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}],
              "text": "", "message": None, "error": None}


def observation(ident: str, twin: dict | None, quirks=(), body: bytes = BODY) -> Observation:
    data = {"wire": "openai-chat", "status": 200, "complete": True, "quirks": list(quirks),
            "size": len(body), "request": {"tools": []}, "truth": TRUTH, "outcome": LOST,
            "cuts": [len(body)], "confirmed": True}
    if twin is not None:
        data["twin_outcome"] = twin
    return Observation(ident, data, body)


def save(root: Path, peer: str, mode: str, found: list[Observation]) -> None:
    cell = Cell(peer, "openai-chat", mode, {
        "version": "1.0", "library": peer, "language": "python", "profile": "dev", "seed": 0,
        "status": "run", "problem": None, "seconds": 1.0,
        "clauses": {"client.calls": {"status": "ran", "examples": 10,
                                     "observations": [o.id for o in found]},
                    "client.text": {"status": "ran", "examples": 10}}})
    observations.save_cell(cell, found, root)


def cause(ident: str, verdict: str = "bug", severity: str = "silent-loss", **more) -> dict:
    return {"id": ident, "title": f"{ident} loses calls", "verdict": verdict,
            "severity": severity, "matches": {"clauses": ["client.calls"], **more.pop("matches", {})},
            "text": "It drops them.", "code": "acme/stream.py: Stream.merge",
            "searched": "acme stream drops tool call", "repro": "", **more}


@pytest.fixture
def world(tmp_path):
    """A peer with one stream its library disagrees with itself on (a bug's evidence) and one
    it reads the same way whole (a contract's), and the cause files' folder."""
    root, causes = tmp_path / "observations", tmp_path / "causes"
    causes.mkdir()
    save(root, "acme", "none", [observation("a1", TWIN_RIGHT)])
    save(root, "acme", "vllm", [observation("a2", LOST, quirks=["split-id-then-name"],
                                            body=BODY + b"\n")])
    return tmp_path, root, causes


def write_causes(causes: Path, tmp_path: Path, entries: list[dict]) -> None:
    for entry in entries:
        if entry["verdict"] == "bug" and not entry["repro"]:
            repro = tmp_path / f"{entry['id']}.repro.py"
            repro.write_text("import sys\nsys.exit(1)\n")
            entry["repro"] = str(repro)
    (causes / "acme.json").write_text(json.dumps({"summary": "a made-up library",
                                                  "causes": entries}))


def derived(root: Path, causes: Path) -> judging.Matrix:
    return judging.derive(root, causes)


def test_an_unread_failure_shows_as_a_question_mark(world):
    tmp_path, root, causes = world
    matrix = derived(root, causes)
    assert [f.mark for f in matrix.failures] == ["?", "?"]
    text = page.render(matrix, {})
    assert "## Not yet read" in text and "✗" not in text.split("## Summary")[1].split("Legend")[0]
    assert "[?](#not-yet-read)" in text


def test_a_cause_turns_its_failures_into_a_bug_and_a_contract(world):
    tmp_path, root, causes = world
    write_causes(causes, tmp_path, [
        cause("drops-calls", matches={"modes": ["none"]}),
        cause("agrees-with-itself", verdict="contract", matches={"modes": ["vllm"]})])
    matrix = derived(root, causes)
    assert sorted(f.mark for f in matrix.failures) == ["⚠", "✗"]
    assert judging.problems(matrix, tmp_path) == []
    text = page.render(matrix, {})
    assert "### acme: drops-calls loses calls" in text and "[✗](#acme-drops-calls)" in text
    assert "**acme: agrees-with-itself loses calls**" in text


def test_a_bug_needs_the_library_disagreeing_with_itself_or_a_promise(world):
    tmp_path, root, causes = world
    write_causes(causes, tmp_path, [cause("both", matches={})])  # the vllm one agrees with itself
    problems = judging.problems(derived(root, causes), tmp_path)
    assert any("its evidence is 'provider'" in p and "promise" in p for p in problems), problems
    write_causes(causes, tmp_path, [cause("both", matches={}, promise="its docs say X")])
    assert judging.problems(derived(root, causes), tmp_path) == []


def test_no_bug_rests_on_a_shape_no_server_is_shown_to_send(world):
    """`interleaved-calls` is only what the format allows (a spec-edges quirk): even with a
    promise and the library disagreeing with itself, no bug may rest on it."""
    tmp_path, root, causes = world
    save(root, "acme", "openai-chat-spec-edges",
         [observation("a4", TWIN_RIGHT, quirks=["interleaved-calls"], body=BODY * 2)])
    write_causes(causes, tmp_path, [cause("both", matches={}, promise="its docs say X")])
    matrix = derived(root, causes)
    assert [f.judgment.unevidenced for f in matrix.failures if f.observation.id == "a4"] == [
        ("interleaved-calls",)]
    problems = judging.problems(matrix, tmp_path)
    assert any("no real server is shown to send" in p for p in problems), problems


def test_two_bug_causes_of_one_library_never_share_a_stream(world):
    tmp_path, root, causes = world
    save(root, "acme", "groq", [observation("a3", TWIN_RIGHT, quirks=["x-groq-usage"])])  # BODY again
    write_causes(causes, tmp_path, [
        cause("first", matches={"modes": ["none"]}),
        cause("second", matches={"modes": ["groq"]}),
        cause("contract", verdict="contract", matches={"modes": ["vllm"]})])
    problems = judging.problems(derived(root, causes), tmp_path)
    assert any("one stream, one cause" in p for p in problems), problems


def test_a_failure_two_causes_explain_is_refused(world):
    tmp_path, root, causes = world
    write_causes(causes, tmp_path, [cause("one", matches={"modes": ["none"]}),
                                    cause("two", matches={"modes": ["none"]}),
                                    cause("rest", verdict="contract", matches={"modes": ["vllm"]})])
    problems = judging.problems(derived(root, causes), tmp_path)
    assert any("is explained by 2 causes" in p for p in problems), problems


def test_a_cause_that_explains_nothing_is_stale(world):
    tmp_path, root, causes = world
    write_causes(causes, tmp_path, [cause("gone", matches={"modes": ["mistral"]})])
    problems = judging.problems(derived(root, causes), tmp_path)
    assert any("explains no failure" in p for p in problems), problems


def test_a_page_is_stale_once_a_judging_rule_changes(world, monkeypatch):
    """The page is a function of the saved observations and the rules: change a rule and the
    page derived again differs from the one published."""
    tmp_path, root, causes = world
    published = page.render(derived(root, causes), {})
    from mcs_conformance.clauses import _client_rules
    monkeypatch.setitem(_client_rules.JUDGES, "client.calls", lambda observation: None)
    assert page.render(derived(root, causes), {}) != published


def test_an_observation_the_current_rules_pass_drops_out(world, monkeypatch):
    tmp_path, root, causes = world
    from mcs_conformance.clauses import _client_rules
    monkeypatch.setitem(_client_rules.JUDGES, "client.calls", lambda observation: None)
    matrix = derived(root, causes)
    assert matrix.failures == []
    assert "[?]" not in page.render(matrix, {})


def test_a_repro_that_passes_while_its_cause_says_bug_is_caught(world):
    tmp_path, root, causes = world
    passing = tmp_path / "passing.repro.py"
    passing.write_text("print('the library behaves')\n")
    write_causes(causes, tmp_path, [cause("drops-calls", matches={"modes": ["none"]},
                                          repro=str(passing)),
                                    cause("rest", verdict="contract", matches={"modes": ["vllm"]})])
    matrix = derived(root, causes)
    ran = repros.run_bug_repros(matrix, tmp_path, python=sys.executable, only_installed=False)
    assert [(c.id, code) for c, code, _ in ran] == [("drops-calls", 0)]
    assert repros.repro_problems(ran) == [
        f"the repro of acme's cause 'drops-calls' ({passing}) exits 0 while its cause says ✗: "
        "the bug is gone or the repro is wrong"]


def test_a_bug_repro_longer_than_a_screen_is_refused(world):
    tmp_path, root, causes = world
    long = tmp_path / "long.repro.py"
    long.write_text("pass\n" * 61)
    write_causes(causes, tmp_path, [cause("drops-calls", matches={"modes": ["none"]},
                                          repro=str(long)),
                                    cause("rest", verdict="contract", matches={"modes": ["vllm"]})])
    problems = judging.problems(derived(root, causes), tmp_path)
    assert any("longer than 60 lines" in p for p in problems), problems


def test_the_jobs_of_a_ci_matrix_merge_into_one_matrix(world, tmp_path):
    """One CI job per peer writes its cells with `--out DIR`; `--merge` takes them in: a job's
    cells replace the saved ones, the cells it did not run stay, no case is left unnamed."""
    _, root, causes = world
    job = tmp_path / "job-acme"
    save(job, "acme", "none", [observation("b1", LOST, body=BODY + b"\n\n")])
    save(job, "zeta", "none", [])
    run.merge([job], root)
    matrix = derived(root, causes)
    assert sorted((c.peer, c.mode) for c in matrix.cells) == [
        ("acme", "none"), ("acme", "vllm"), ("zeta", "none")]
    assert sorted(f.observation.id for f in matrix.failures) == ["a2", "b1"]
    assert sorted(p.stem for p in root.glob("acme/cases/*.json")) == ["a2", "b1"]


def test_a_replay_differs_by_the_ids_the_library_makes_up_only_when_they_differ():
    served = b'data: {"choices": [{"delta": {"tool_calls": [{"id": "call_1"}]}}]}\n\n'

    def outcome(made_up: str, served_id: str = "call_1") -> dict:
        return {"error": None, "text": "", "calls": [{"id": served_id, "name": "f"},
                                                     {"toolCallId": made_up, "name": "g"}]}
    # an id the body never held is drawn anew by the library on each run
    assert observing.comparable(outcome("aXk2"), served) == observing.comparable(outcome("q9Zt"), served)
    # an id the body holds is the library's reading of the stream: a change in it counts
    assert observing.comparable(outcome("aXk2"), served) != observing.comparable(
        outcome("aXk2", served_id="call_2"), served)
    assert observing.comparable(outcome("aXk2", served_id=""), served)["calls"][0]["id"] == ""


def test_an_issue_names_the_package_that_speaks_the_failing_wire():
    peer = catalog.load_peer(PEERS / "llama-index")
    assert peer.library_on("gemini") == "llama-index-llms-google-genai"
    assert peer.library_on("openai-chat") == peer.library
    cell = Cell("llama-index", "gemini", "none", {"library": peer.library, "version": "0.8.3"})
    failure = type("F", (), {"cell": cell})()
    cause = type("C", (), {"peer": "llama-index"})()
    assert issues._library(cause, failure) == (
        "llama-index-llms-google-genai", peer.pinned("llama-index-llms-google-genai"))

"""`--mcs-save-failures=DIR`: a failing clause's shrunk stream becomes a corpus regression case.

The workflow a user follows, run as they run it (pytester): certify a broken strategy with
the option, find the stream and its sidecar in DIR, snapshot them through a correct strategy
with `--mcs-corpus=DIR --snapshot-update`, and see the corpus pass the correct strategy and
fail the broken one. Also: what is not saved and why, write errors, bad option values,
pytest-xdist, and the body written for every built-in wire.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Imported before pytester snapshots sys.modules: a module first imported inside an
# in-process run is dropped after it, and the next run's fresh StreamError would not be
# the one `mcs_reference.StreamError` kept (robust.bad-input would then fail).
import mcs_reference.errors  # noqa: F401
from mcs_conformance.base import schema
from mcs_conformance.corpora import Stream, find_streams, load_meta
from mcs_conformance.hypothesis import streams
from mcs_conformance.corpora import plan
from mcs_conformance.corpora._regressions import Fed, NotSaved, body_of, entry_name, fed_stream
from mcs_conformance.corpora import decode

TESTS = Path(__file__).resolve().parents[1]
LOST = "broken.lost_last_fragment:LostLastFragment"  # OpenAI Chat, reassembly.round-trip
SPLIT = "broken.hermes_split_marker:HermesSplitMarkerLost"  # a Hermes text strategy
ROUND_TRIP = "--mcs-clause=reassembly.round-trip"


@pytest.fixture(autouse=True)
def _as_a_user_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under pytest-xdist, keep the worker's identity out of the inner runs (syrupy reads it)."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


@pytest.fixture
def user(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.syspathinsert(TESTS)  # the deliberately broken strategies: `broken.<module>:<Obj>`
    return pytester


def certify(pytester: pytest.Pytester, target: str, clause: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(f"--mcs-strategy={target}", f"--mcs-clause={clause}",
                              "--mcs-profile=ci", "--mcs-seed=1", "-p", "no:randomly",
                              "-p", "no:cacheprovider", *args)


def replay(pytester: pytest.Pytester, corpus: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest(f"--mcs-corpus={corpus}", "-p", "no:randomly",
                              "-p", "no:cacheprovider", *args)


def clause_report(result: pytest.RunResult) -> tuple[str, dict, str]:
    reports = [r for r in result.reprec.getreports("pytest_runtest_logreport")
               if r.when == "call" and "mcs_clause" in dict(r.user_properties)]
    assert len(reports) == 1, reports
    return reports[0].outcome, dict(reports[0].user_properties), reports[0].longreprtext


def summary(result: pytest.RunResult) -> str:
    lines = [line for line in result.outlines if line.startswith("mcs-conformance: ")
             and ("saved" in line)]
    assert len(lines) == 1, result.stdout.str()
    return lines[0]


def saved_files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# -- the workflow, end to end ------------------------------------------------------------------
def test_a_saved_failure_is_a_regression_case_that_tells_the_fix_from_the_bug(user: pytest.Pytester):
    corpus = user.path / "regressions"
    name = "reassembly.round-trip--broken.lost_last_fragment-LostLastFragment"

    result = certify(user, LOST, "reassembly.round-trip", f"--mcs-save-failures={corpus.name}")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcome, props, text = clause_report(result)
    assert (outcome, props["mcs_verdict"]) == ("failed", "failed")
    assert "\nshrunk counterexample:\n" in text  # the failure is reported as ever
    assert summary(result) == (f"mcs-conformance: saved 1 failure(s) into regressions: "
                               f"openai-chat/{name}.sse")
    assert saved_files(corpus) == [f"openai-chat/{name}.meta.json", f"openai-chat/{name}.sse"]

    # The body is what the provider sends, and it reads back as the shrunk chunks.
    body = (corpus / f"openai-chat/{name}.sse").read_bytes()
    assert body.startswith(b"data: {") and body.endswith(b"\n\ndata: [DONE]\n\n")
    assert decode(body) == (props["mcs_case"]["chunks"], None)
    # The sidecar fits the schema, the corpus loads it, and it says where the stream comes from.
    stream = Stream(corpus, corpus / f"openai-chat/{name}.sse")
    meta_data = json.loads(stream.meta_path.read_text("utf-8"))
    assert schema.errors(meta_data, "corpus-meta.json") == []
    meta = load_meta(stream)
    assert meta.wire == "openai-chat" and meta.strategy is None and meta.codec is None
    assert f"reassembly.round-trip for {LOST} (profile ci, seed 1)" in meta.source
    assert meta.shows == f"{LOST} fails reassembly.round-trip: {props['mcs_reason']}"
    assert meta.extra["x-mcs-failure"] == {
        "clause": "reassembly.round-trip", "target": LOST, "strategy": "openai-chat",
        "profile": "ci", "seed": 1, "reason": props["mcs_reason"],
        "reproduce": props["mcs_reproduce"]}

    # The honest workflow: pin the outcome a correct strategy gives (here the reference, the
    # fixed version of the broken one), then the corpus holds every strategy to it.
    fixed = "--mcs-strategy=mcs_reference:OpenAIChatStrategy"
    replay(user, corpus, fixed, "--snapshot-update").assert_outcomes(passed=1)
    assert (corpus / f"__snapshots__/openai-chat/{name}.json").is_file()
    replay(user, corpus, fixed).assert_outcomes(passed=1)
    replay(user, corpus).assert_outcomes(passed=1)  # the default chain reads it the same way
    regressed = replay(user, corpus, f"--mcs-strategy={LOST}")
    regressed.assert_outcomes(failed=1)
    regressed.stdout.fnmatch_lines(["*the outcome differs from its snapshot*",
                                    '*-*"arguments": "{}",*', '*+*"arguments": "",*'])

    # A rerun of the same failure replaces the entry: no second copy, the snapshot kept.
    again = certify(user, LOST, "reassembly.round-trip", f"--mcs-save-failures={corpus}")
    assert summary(again).startswith(f"mcs-conformance: saved 1 failure(s) into {corpus.name}: ")
    assert saved_files(corpus) == [f"__snapshots__/openai-chat/{name}.json",
                                   f"openai-chat/{name}.meta.json", f"openai-chat/{name}.sse"]
    replay(user, corpus, fixed).assert_outcomes(passed=1)


def test_a_text_strategy_saves_the_deltas_it_was_fed_with_its_codec(user: pytest.Pytester):
    corpus = user.path / "regressions"
    name = "codec.split-markers--broken.hermes_split_marker-HermesSplitMarkerLost"

    result = certify(user, SPLIT, "codec.split-markers", f"--mcs-save-failures={corpus}")

    assert summary(result) == f"mcs-conformance: saved 1 failure(s) into regressions: text/{name}.jsonl"
    _, props, _ = clause_report(result)
    lines = (corpus / f"text/{name}.jsonl").read_text("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == props["mcs_case"]["deltas"]
    meta = load_meta(Stream(corpus, corpus / f"text/{name}.jsonl"))
    assert (meta.wire, meta.codec, meta.strategy) == ("text", "mcs_reference:HermesCodec", None)

    fixed = "--mcs-strategy=mcs_reference.text:hermes_text_strategy"
    replay(user, corpus, fixed, "--snapshot-update").assert_outcomes(passed=1)
    snapshot = json.loads((corpus / f"__snapshots__/text/{name}.json").read_text("utf-8"))
    assert [call["name"] for call in snapshot["calls"]] == ["get_weather"]
    replay(user, corpus).assert_outcomes(passed=1)  # the sidecar's codec reads it without help
    replay(user, corpus, f"--mcs-strategy={SPLIT}").assert_outcomes(failed=1)


# -- what is not saved, and write errors -------------------------------------------------------
def test_a_counterexample_without_a_stream_is_reported_not_saved(user: pytest.Pytester):
    corpus = user.path / "regressions"
    target = "broken.text_claims_native_dict:TextClaimsNativeDict"

    result = certify(user, target, "resolve.text-never-native", f"--mcs-save-failures={corpus}")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert summary(result) == (
        f"mcs-conformance: not saved: resolve.text-never-native ({target}): its counterexample "
        "holds no stream, only message")
    assert not corpus.exists()


def test_a_stream_whose_replay_cannot_show_the_bug_is_saved_and_flagged(user: pytest.Pytester):
    corpus = user.path / "regressions"
    target = "broken.done_on_item_done:DoneOnItemDone"  # is_done() per chunk: no corpus outcome

    result = certify(user, target, "reassembly.done", f"--mcs-save-failures={corpus}")

    assert summary(result) == (
        "mcs-conformance: saved 1 failure(s) into regressions: openai-responses/reassembly.done--"
        "broken.done_on_item_done-DoneOnItemDone.sse (its replay gives the reference's outcome: "
        "the corpus does not see this failure)")
    body = next(corpus.glob("openai-responses/*.sse")).read_text("utf-8")
    events = [block.splitlines() for block in body.strip().split("\n\n")]
    assert all(len(lines) == 2 and lines[0] == f"event: {json.loads(lines[1][6:])['type']}"
               for lines in events)


def test_a_write_error_is_one_line_and_the_failure_still_shows(user: pytest.Pytester):
    corpus = user.path / "regressions"
    corpus.mkdir()
    (corpus / "openai-chat").write_text("a file where the wire's folder goes", "utf-8")

    result = certify(user, LOST, "reassembly.round-trip", f"--mcs-save-failures={corpus}")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    outcome, props, text = clause_report(result)
    assert (outcome, props["mcs_verdict"]) == ("failed", "failed")
    assert text.startswith("[MUST reassembly.round-trip] ")
    assert props["mcs_not_saved"].startswith(f"reassembly.round-trip ({LOST}): cannot write ")
    assert summary(result) == (f"mcs-conformance: not saved: reassembly.round-trip ({LOST}): "
                               f"cannot write {corpus / 'openai-chat'}: File exists")
    assert "Traceback" not in result.stdout.str() + result.stderr.str()


def test_a_run_where_nothing_fails_says_so(user: pytest.Pytester):
    corpus = user.path / "regressions"
    result = certify(user, "mcs_reference:OpenAIChatStrategy", "reassembly.done",
                     f"--mcs-save-failures={corpus}")
    assert result.ret == pytest.ExitCode.OK
    assert summary(result) == ("mcs-conformance: nothing saved into regressions "
                               "(no clause failed on a counterexample)")
    assert not corpus.exists()


# -- the option ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("value", "expected"), [
    ("", "--mcs-save-failures=: expected a folder to save failing streams into"),
    ("notes.txt", "--mcs-save-failures=notes.txt: it is a file, not a folder"),
    ("notes.txt/regressions", "--mcs-save-failures=notes.txt/regressions: * is a file, not a folder"),
])
def test_a_bad_value_fails_at_option_parsing_in_one_line(pytester: pytest.Pytester, value: str,
                                                         expected: str):
    (pytester.path / "notes.txt").write_text("notes", "utf-8")
    result = pytester.runpytest("--mcs-strategy=mcs_reference:OpenAIChatStrategy",
                                f"--mcs-save-failures={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if "--mcs-save-failures" in line]
    assert len(errors) == 1, result.errlines
    result.stderr.fnmatch_lines([f"*{expected}"])
    assert "Traceback" not in result.stderr.str()


def test_the_option_is_settled_once_and_not_in_the_rerun_command(user: pytest.Pytester):
    result = certify(user, LOST, "reassembly.round-trip", "--mcs-save-failures=regressions")
    header = [line for line in result.outlines if line.startswith("mcs-conformance: rerun with:")]
    assert header and "--mcs-save-failures" not in header[0]
    _, props, _ = clause_report(result)
    assert "--mcs-save-failures" not in props["mcs_reproduce"]


def test_workers_save_their_own_failures_under_xdist(pytester: pytest.Pytester):
    # Workers find targets in the user's directory (see test_plugin_xdist.py).
    for module in ("lost_last_fragment", "usage_added"):
        pytester.makepyfile(**{module: (TESTS / "broken" / f"{module}.py").read_text("utf-8")})
    result = pytester.runpytest(
        "--mcs-strategy=lost_last_fragment:LostLastFragment", "--mcs-strategy=usage_added:UsageAdded",
        ROUND_TRIP, "--mcs-profile=ci", "--mcs-seed=1", "--mcs-save-failures=regressions",
        "-n", "2", "-p", "no:randomly", "-p", "no:cacheprovider")

    result.stdout.fnmatch_lines(["*2 workers [[]2 items]*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    corpus = pytester.path / "regressions"
    assert saved_files(corpus) == [
        "anthropic-messages/reassembly.round-trip--usage_added-UsageAdded.meta.json",
        "anthropic-messages/reassembly.round-trip--usage_added-UsageAdded.sse",
        "openai-chat/reassembly.round-trip--lost_last_fragment-LostLastFragment.meta.json",
        "openai-chat/reassembly.round-trip--lost_last_fragment-LostLastFragment.sse",
    ]
    line = summary(result)
    assert line.startswith("mcs-conformance: saved 2 failure(s) into regressions: ")
    assert "anthropic-messages/reassembly.round-trip--usage_added-UsageAdded.sse" in line
    assert "openai-chat/reassembly.round-trip--lost_last_fragment-LostLastFragment.sse" in line
    assert len(find_streams(corpus)) == 2


# -- the pieces ----------------------------------------------------------------------------------
WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "ollama-chat")


@pytest.mark.parametrize("wire", WIRES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_wire_is_written_as_its_provider_sends_it_and_reads_back(wire: str, data, tmp_path_factory):
    _, chunks = data.draw(streams(wire))
    body = body_of(Fed(wire, chunks))
    assert decode(body) == (chunks, None)
    text = body.decode("utf-8")
    if wire == "ollama-chat":
        assert [json.loads(line) for line in text.split("\n")[:-1]] == chunks  # U+2028 stays
    else:
        blocks = text.split("\n\n")
        assert blocks[-1] == ""
        if wire == "openai-chat":
            assert blocks[-2] == "data: [DONE]"
        if wire in ("openai-responses", "anthropic-messages"):
            assert all(block.startswith("event: ") for block in blocks[:-1])
    # The recorder reads it as that wire's body (a text-shaped OpenAI message goes to text/).
    entry = plan(body, corpus=tmp_path_factory.mktemp("c"), name="x")
    assert entry.path.parent.name in (wire, "text")


def test_text_deltas_are_json_strings_one_a_line():
    assert body_of(Fed("text", ["<tool", "_call>\n{}", "\u2028 \U0001f600"], True)).decode() == \
        '"<tool"\n"_call>\\n{}"\n"\u2028 \U0001f600"\n'


def test_a_chunk_json_cannot_carry_is_refused():
    with pytest.raises(NotSaved, match="chunk 1 cannot be written as JSON"):
        body_of(Fed("ollama-chat", [{"done": False}, {"x": float("nan")}]))


def test_strings_that_look_like_the_end_marker_stay_chunks():
    assert decode(body_of(Fed("openai-chat", ["[DONE]", {"a": 1}]))) == (["[DONE]", {"a": 1}], None)


class _Subject:
    def __init__(self, wire: str | None, is_text: bool = False):
        self.wire = type("W", (), {"name": wire})() if wire else None
        self.is_text = is_text


@pytest.mark.parametrize(("case", "subject", "reason"), [
    (None, _Subject("openai-chat"), "the failure has no counterexample"),
    ({"message": {}, "calls": []}, _Subject("openai-chat"), "holds no stream, only message, calls"),
    ({"chunks": [{"a": 1}]}, _Subject("my-wire"), "'my-wire' is not a built-in wire"),
    ({"chunks": []}, _Subject("ollama-chat"), "its stream is empty"),
])
def test_what_is_no_stream_of_a_known_wire(case, subject, reason: str):
    with pytest.raises(NotSaved, match=reason):
        fed_stream(case, subject)


def test_evidence_streams_take_the_subject_wire_and_text_deltas():
    assert fed_stream({"chunks": [{"a": 1}]}, _Subject("anthropic-messages")) == \
        Fed("anthropic-messages", [{"a": 1}])
    assert fed_stream({"content": "x", "deltas": ["x"]}, _Subject(None, True)) == Fed("text", ["x"], True)
    assert fed_stream({"wire": "text", "chunks": ["x", 1]}, _Subject("text", True)) == \
        Fed("text", ["x", 1], True)


def test_names_are_stable_and_unique_per_clause_and_target():
    clause = "reassembly.round-trip"
    assert entry_name(clause, "pkg.mod:Obj") == "reassembly.round-trip--pkg.mod-Obj"
    assert entry_name(clause, "pkg.mod:Obj") == entry_name(clause, "pkg.mod:Obj")
    assert entry_name(clause, "pkg:mod.Obj") != entry_name(clause, "pkg.mod:Obj")
    assert entry_name("extract.calls", "pkg.mod:Obj") != entry_name(clause, "pkg.mod:Obj")
    odd = entry_name("x.y", "pkg:Obj(1)")
    assert odd.startswith("x.y--pkg-Obj_1_-") and odd != entry_name("x.y", "pkg:Obj[1]")

"""`mcs-conformance certify`, run as a user runs it: exit statuses, the four report files,
baselines, usage errors, progress; and the report model and its renderings on their own.

The real certifications are narrowed with `--clause` and run at the dev profile with a
fixed seed, so the whole file stays quick; `docs/reports/` holds full ones.
"""
from __future__ import annotations

import gc
import json
import os
import pty
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from mcs_conformance.base import schema
from mcs_conformance.cli import main
from mcs_conformance.clauses import CLAUSES
from mcs_conformance.certify import badge, junit_xml, summary_markdown
from mcs_conformance.certify import (
    ClauseResult, DuplicateClause, FooterMismatch, Header, InvalidLine, MissingFooter,
    MissingHeader, Report, ReportError, Request, run,
)

ROOT = Path(__file__).resolve().parents[2]
FILES = {"report.jsonl", "summary.md", "junit.xml", "badge.json"}
REFERENCE = "mcs_reference:OpenAIChatStrategy"
BROKEN = "lossy_strategy:DropsLastFragment"
# One clause that passes and one that does not apply to a native strategy.
QUICK = ["--clause", "reassembly.done", "--clause", "resolve.text-never-native"]
# The clause that names the lost fragment, and one the broken strategy still passes.
CAUGHT = ["--clause", "reassembly.round-trip", "--clause", "reassembly.done"]
COMMON = ["--profile", "dev", "--seed", "7"]

LOSSY = '''
import copy
from mcs_reference import OpenAIChatStrategy


class DropsLastFragment(OpenAIChatStrategy):
    """Holds each arguments fragment back until the next one comes: the last never lands."""

    def new_accumulator(self):
        return (super().new_accumulator(), {})

    def accumulate(self, acc, chunk):
        inner, held = acc
        chunk = copy.deepcopy(chunk)
        for choice in chunk.get("choices") or ():
            for entry in (choice.get("delta") or {}).get("tool_calls") or ():
                function = entry.get("function") or {}
                if function.get("arguments"):
                    key = entry.get("index")
                    function["arguments"], held[key] = held.get(key, ""), function["arguments"]
        return super().accumulate(inner, chunk)

    def as_message(self, acc):
        return super().as_message(acc[0])

    def as_response(self, acc):
        return super().as_response(acc[0])

    def forming_name_of(self, acc):
        return super().forming_name_of(acc[0])
'''

NOT_STRATEGIES = '''
ANSWER = 42


class Half:
    name = "half"

    def recognizes(self, shape):
        return False
'''


# -- running the command -------------------------------------------------------------------
@pytest.fixture(scope="module")
def workdir(tmp_path_factory, share_caches) -> Path:
    """A user's folder: their own (broken) strategy module and some things that are not."""
    folder = tmp_path_factory.mktemp("certify")
    share_caches(folder)
    (folder / "lossy_strategy.py").write_text(textwrap.dedent(LOSSY), "utf-8")
    (folder / "not_strategies.py").write_text(textwrap.dedent(NOT_STRATEGIES), "utf-8")
    return folder


def certify(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """`mcs-conformance certify ...` in a subprocess, from `workdir`, stderr not a terminal."""
    return subprocess.run([sys.executable, "-m", "mcs_conformance.cli", "certify", *args],
                          cwd=workdir, capture_output=True, text=True, timeout=900)


def certify_on_a_terminal(workdir: Path, *args: str) -> tuple[int, str, str]:
    """The same with stderr on a pseudo-terminal: (exit status, stdout, terminal output)."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "mcs_conformance.cli", "certify", *args],
                               cwd=workdir, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    seen = bytearray()
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal closed: the command ended
            break
        if not data:
            break
        seen += data
    stdout = process.stdout.read().decode()
    code = process.wait(timeout=900)
    os.close(master)
    return code, stdout, seen.decode().replace("\r\n", "\n")


def read_report(folder: Path) -> Report:
    return Report.from_jsonl((folder / "report.jsonl").read_text("utf-8"))


def baseline_file(folder: Path, name: str, content) -> Path:
    path = folder / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return path


@pytest.fixture(scope="module")
def reference_run(workdir):
    out = workdir / "reference-report"
    return certify(workdir, REFERENCE, *COMMON, *QUICK, "--out", str(out)), out


@pytest.fixture(scope="module")
def broken_run(workdir):
    out = workdir / "broken-report"
    return certify(workdir, BROKEN, *COMMON, *CAUGHT, "--out", str(out)), out


# -- certifying a reference strategy ---------------------------------------------------------
def test_a_reference_strategy_is_certified_and_the_four_files_are_written(reference_run):
    done, out = reference_run
    assert done.returncode == 0, done.stderr
    assert {p.name for p in out.iterdir()} == FILES
    assert f"{REFERENCE}: certified 1/1" in done.stdout
    report = read_report(out)
    assert report.certified and report.score == "1/1"
    assert [(r.clause, r.verdict) for r in report.results] == [
        ("reassembly.done", "passed"), ("resolve.text-never-native", "skipped")]
    assert report.header.target == REFERENCE and report.header.wire == "openai-chat"
    assert report.header.profile == "dev" and report.header.seed == 7
    assert report.header.clauses == ("reassembly.done", "resolve.text-never-native")
    assert report.results[1].reason  # a skip says why


def test_each_clause_says_how_many_examples_it_ran(reference_run):
    _, out = reference_run
    passed, skipped = read_report(out).results
    assert passed.examples >= 40  # the dev profile's 40 examples, at least
    assert skipped.examples is None  # a clause that does not apply runs none
    assert f"| {passed.examples} |" in (out / "summary.md").read_text("utf-8")


def test_report_lines_validate_against_the_schema_and_round_trip(reference_run):
    _, out = reference_run
    lines = [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()]
    for line in lines:
        assert schema.errors(line, "report.json") == []
    assert [line["kind"] for line in lines] == ["header", "clause", "clause", "footer"]
    assert lines[-1]["score"] == "1/1" and lines[-1]["certified"] is True
    report = Report.from_serialized(lines)
    assert report.serialized() == lines


def test_piped_it_prints_one_plain_line_a_clause_as_it_ends(reference_run):
    """stderr not a terminal (a log): what runs, then each clause's id, verdict, examples
    and seconds; no status line, no control character."""
    done, out = reference_run
    passed, skipped = read_report(out).results
    lines = done.stderr.splitlines()
    assert lines[0] == (f"certifying {REFERENCE} on wire openai-chat: 2 clauses, profile dev, "
                        "seed 7, quirks all")
    assert re.fullmatch(rf"\[1/2\] reassembly\.done: passed, {passed.examples} examples, "
                        r"\d+\.\d\d s", lines[1]), lines[1]
    assert re.fullmatch(r"\[2/2\] resolve\.text-never-native: skipped, no examples, \d+\.\d\d s",
                        lines[2]), lines[2]
    assert done.stderr == "\n".join(lines) + "\n" and len(lines) == 3  # no \r anywhere
    assert all(line.isprintable() for line in lines)


def test_the_badge_is_a_shields_endpoint(reference_run):
    _, out = reference_run
    endpoint = json.loads((out / "badge.json").read_text("utf-8"))
    assert endpoint["schemaVersion"] == 1
    assert set(endpoint) == {"schemaVersion", "label", "message", "color"}
    assert all(isinstance(endpoint[k], str) and endpoint[k] for k in ("label", "message", "color"))
    assert endpoint["message"] == "certified 1/1" and endpoint["color"] == "brightgreen"


def test_junit_has_one_testcase_per_clause(reference_run):
    _, out = reference_run
    suite = ET.parse(out / "junit.xml").getroot()
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == ["reassembly.done", "resolve.text-never-native"]
    assert suite.get("tests") == "2" and suite.get("skipped") == "1" and suite.get("failures") == "0"
    assert cases[0].find("*") is None and cases[1].find("skipped") is not None


# -- a broken strategy -----------------------------------------------------------------------
def test_a_broken_strategy_is_refused_with_its_counterexample_and_reproduce_command(broken_run):
    done, out = broken_run
    assert done.returncode == 1, done.stderr
    assert {p.name for p in out.iterdir()} == FILES
    report = read_report(out)
    assert not report.certified and report.unexpected == ["reassembly.round-trip"]
    failed = report.results[0]
    assert done.stdout.splitlines() == [  # the reason, where the case is, the rerun
        f"{BROKEN}: refused 1/2 (report in {out})",
        "  unexpected failure: reassembly.round-trip (failed, MUST)",
        f"    reason: {failed.reason}",
        f"    counterexample: {out / 'report.jsonl'} line 2; shown in {out / 'summary.md'}",
        f"    rerun: {failed.reproduce}"]
    assert failed.verdict == "failed" and failed.counterexample["chunks"]
    assert failed.reproduce.startswith(f"pytest --mcs-strategy={BROKEN}")
    assert "--mcs-clause=reassembly.round-trip" in failed.reproduce
    summary = (out / "summary.md").read_text("utf-8")
    assert "**refused**" in summary
    assert "## `reassembly.round-trip` failed" in summary
    assert "Shrunk counterexample:" in summary and '"chunks": [' in summary
    assert failed.reproduce in summary
    assert json.loads((out / "badge.json").read_text("utf-8"))["color"] == "red"


def test_junit_of_a_refused_run_carries_the_failure(broken_run):
    _, out = broken_run
    suite = ET.parse(out / "junit.xml").getroot()
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"reassembly.round-trip", "reassembly.done"}
    failure = cases["reassembly.round-trip"].find("failure")
    assert failure is not None and "reproduce: pytest" in failure.text
    assert suite.get("failures") == "1"


# -- how a certification runs: the plugins it loads, the garbage collector -------------------
NOISY_PLUGIN = "def pytest_configure(config):\n    raise RuntimeError('the noisy plugin was loaded')\n"


def test_jobs_give_the_same_verdicts_and_no_other_installed_plugin_loads(tmp_path, share_caches, broken_run):
    """A pytest plugin installed beside the kit (one that fails any run it is loaded in) is
    left out, and `--jobs 2` (pytest-xdist) gives the verdicts and shrunk counterexample of
    the run in one process."""
    share_caches(tmp_path)
    (tmp_path / "lossy_strategy.py").write_text(textwrap.dedent(LOSSY), "utf-8")
    (tmp_path / "noisy_plugin.py").write_text(NOISY_PLUGIN, "utf-8")
    dist = tmp_path / "noisy_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: noisy-plugin\nVersion: 1.0\n", "utf-8")
    (dist / "entry_points.txt").write_text("[pytest11]\nnoisy = noisy_plugin\n", "utf-8")
    plain = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert "the noisy plugin was loaded" in plain.stdout + plain.stderr  # it is installed there

    out = tmp_path / "report"
    done = certify(tmp_path, BROKEN, *COMMON, *CAUGHT, "--jobs", "2", "--out", str(out))
    assert done.returncode == 1, done.stdout + done.stderr
    spread, whole = read_report(out), read_report(broken_run[1])
    assert [(r.clause, r.verdict) for r in spread.results] == [(r.clause, r.verdict) for r in whole.results]
    assert spread.results[0].counterexample == whole.results[0].counterexample
    ended = sorted(re.sub(r"^\[\d/2\] |, [\d.]+ s$", "", line) for line in done.stderr.splitlines()[1:])
    assert ended == sorted(f"{r.clause}: {r.verdict}, {r.examples} examples" for r in spread.results)


@pytest.mark.parametrize("caller_froze", [False, True])
def test_a_certification_freezes_what_is_loaded_and_leaves_the_collector_as_found(
        monkeypatch, caller_froze):
    """certify freezes the objects loaded before the run (the collector skips them), then
    unfreezes them; a caller that froze objects of its own finds them still frozen."""
    from mcs_conformance.certify import _run as module

    seen, main_ = [], module.pytest.main
    monkeypatch.setattr(module.pytest, "main", lambda *a, **k: (
        seen.append(gc.get_freeze_count()), main_(*a, **k))[1])
    gc.unfreeze()  # what the suite froze after its collection (tests/conftest.py)
    if caller_froze:
        gc.freeze()
    before = gc.get_freeze_count()
    try:
        report = module.run(module.Request(target=REFERENCE, profile="dev", seed=7,
                                           clauses=("reassembly.done",)))
        after = gc.get_freeze_count()
    finally:
        gc.freeze()  # as the suite keeps it
    assert [r.verdict for r in report.results] == ["passed"]
    if caller_froze:  # theirs still frozen (a frozen object can still die, or come back)
        assert seen[0] > before * 0.9 and after > before * 0.9
    else:
        assert seen[0] >= 1000  # the kit, Hypothesis and pytest, frozen for the run
        assert after == 0


# -- baselines -------------------------------------------------------------------------------
def test_a_listed_failure_is_accepted_and_marked_expected(workdir):
    baseline = baseline_file(workdir, "accepts.json", {"expected_failures": ["reassembly.round-trip"]})
    out = workdir / "accepted-report"
    done = certify(workdir, BROKEN, *COMMON, *CAUGHT, "--baseline", str(baseline), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    report = read_report(out)
    assert report.certified and report.header.baseline == ("reassembly.round-trip",)
    assert report.results[0].verdict == "failed" and report.results[0].expected_failure
    assert report.unexpected == [] and report.score == "1/2"
    assert f"  expected failure: reassembly.round-trip (failed, MUST), accepted by {baseline}" \
        in done.stdout.splitlines()
    assert "❌ failed (expected)" in (out / "summary.md").read_text("utf-8")
    case = ET.parse(out / "junit.xml").getroot().find("testcase[@name='reassembly.round-trip']")
    assert case.find("failure") is None and "expected failure" in case.find("skipped").get("message")
    assert json.loads((out / "badge.json").read_text("utf-8"))["color"] == "yellow"


def test_unlisted_failures_and_stale_entries_refuse_and_progress_shows_on_a_terminal(workdir):
    # The baseline lists the clause that passes (stale), not the one that fails (unlisted).
    baseline = baseline_file(workdir, "stale.json", {"expected_failures": ["reassembly.done"]})
    out = workdir / "stale-report"
    code, stdout, terminal = certify_on_a_terminal(
        workdir, BROKEN, *COMMON, *CAUGHT, "--baseline", str(baseline), "--out", str(out))
    assert code == 1, stdout + terminal
    assert "unexpected failure: reassembly.round-trip" in stdout
    assert f"stale baseline: reassembly.done now passes; remove it from {baseline}" in stdout
    report = read_report(out)
    assert report.unexpected == ["reassembly.round-trip"]
    assert report.stale_baseline == ["reassembly.done"] and not report.certified
    summary = (out / "summary.md").read_text("utf-8")
    assert "Refused: stale baseline, these listed clauses now pass (remove them): `reassembly.done`" in summary
    assert f"certifying {BROKEN} on wire openai-chat: 2 clauses" in terminal
    clauses = {r.clause: r for r in report.results}
    for number, clause in enumerate(["reassembly.round-trip", "reassembly.done"], 1):
        result = clauses[clause]  # the verdict coloured, the status line before it cleared
        assert re.search(rf"\r +\r\[{number}/2\] {re.escape(clause)}: (\x1b\[\d+m)?"
                         rf"{result.verdict}(\x1b\[0m)?, {result.examples} examples, ", terminal)


# -- usage errors: one line, exit 2, nothing written -------------------------------------------
def _usage_error(capsys, out: Path, *args: str) -> str:
    assert main(["certify", *args, *COMMON, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert not out.exists()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcs-conformance certify: error: "), captured.err
    return lines[0]


@pytest.fixture
def user(workdir, monkeypatch) -> Path:
    monkeypatch.syspath_prepend(str(workdir))
    return workdir


@pytest.mark.parametrize("target, says", [
    ("no_such_module_zq:Strategy", "cannot import module 'no_such_module_zq'"),
    ("mcs_reference", "expected 'package.module:Object'"),
    ("mcs_reference:NoSuchStrategy", "has no attribute 'NoSuchStrategy'"),
    ("not_strategies:ANSWER", "int object is not an extraction strategy"),
    ("not_strategies:Half", "not an extraction strategy (missing"),
])
def test_a_bad_target_is_one_line_and_exit_2(user, capsys, target, says):
    line = _usage_error(capsys, user / "never", target)
    assert target in line and says in line


def test_an_unknown_wire_is_one_line_and_exit_2(user, capsys):
    line = _usage_error(capsys, user / "never", REFERENCE, "--wire", "no-such-wire")
    assert "no-such-wire: unknown wire; known wires: " in line and "openai-chat" in line


def test_an_unknown_clause_is_one_line_and_exit_2(user, capsys):
    line = _usage_error(capsys, user / "never", REFERENCE, "--clause", "reassembly.nope")
    assert "--clause reassembly.nope: no such clause" in line


def test_a_negative_seed_is_one_line_and_exit_2(user, capsys):
    assert main(["certify", REFERENCE, "--seed", "-1", "--out", str(user / "never")]) == 2
    assert "--seed -1: expected a non-negative integer" in capsys.readouterr().err


@pytest.mark.parametrize("content, says", [
    ("{not json", "not JSON"),
    ([], "is not of type 'object'"),
    ({}, "'expected_failures' is a required property"),
    ({"expected_failures": "reassembly.done"}, "is not of type 'array'"),
    ({"expected_failures": ["reassembly.nope"]}, "unknown clause id(s) reassembly.nope"),
])
def test_a_bad_baseline_is_one_line_and_exit_2(user, capsys, content, says):
    path = baseline_file(user, "bad-baseline.json", content)
    line = _usage_error(capsys, user / "never", REFERENCE, "--baseline", str(path))
    assert f"--baseline {path}" in line and says in line


def test_a_missing_baseline_file_is_one_line_and_exit_2(user, capsys):
    line = _usage_error(capsys, user / "never", REFERENCE, "--baseline", str(user / "absent.json"))
    assert "cannot read it" in line


def test_out_that_is_a_file_is_one_line_and_exit_2(user, capsys):
    path = baseline_file(user, "a-file", "")
    assert main(["certify", REFERENCE, *COMMON, "--out", str(path)]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err


def test_a_usage_error_from_the_real_command(workdir):
    out = workdir / "never"
    done = certify(workdir, "not_strategies:ANSWER", "--out", str(out))
    assert done.returncode == 2 and done.stdout == "" and not out.exists()
    assert done.stderr.splitlines() == [
        "mcs-conformance certify: error: not_strategies:ANSWER: "
        "int object is not an extraction strategy"]


def test_a_bad_option_value_exits_2():
    with pytest.raises(SystemExit) as exited:
        main(["certify", REFERENCE, "--profile", "fastest"])
    assert exited.value.code == 2


# -- the report model ------------------------------------------------------------------------
HEADER = Header(target="pkg:Strategy", strategy="openai-chat", wire="openai-chat", profile="ci",
                seed=1, started="2025-01-01T00:00:00+00:00", version="0.1.0", python="3.12.0",
                hypothesis="6.100.0", platform="Linux")


def result(clause: str, verdict: str, **extra) -> ClauseResult:
    details = {
        "failed": {"reason": "it broke", "counterexample": {"chunks": [1]}, "reproduce": "pytest x"},
        "errored": {"reason": "the strategy raised KeyError: 'a'", "reproduce": "pytest x"},
        "skipped": {"reason": "does not apply"},
    }.get(verdict, {})
    item = CLAUSES[clause]
    return ClauseResult(clause, item.level, item.meaning, verdict, 0.5, **{**details, **extra})


def make_report(verdicts: dict[str, str], baseline: tuple[str, ...] | None = None) -> Report:
    expected = set(baseline or ())
    results = tuple(replace(result(c, v), expected_failure=v in ("failed", "errored") and c in expected)
                    for c, v in verdicts.items())
    return Report(replace(HEADER, baseline=baseline), results, 12.5)


MIXED = {"reassembly.round-trip": "passed", "reassembly.prefix": "failed",
         "reassembly.done": "errored", "resolve.foreign": "skipped", "extract.calls": "passed"}


def test_score_counts_passed_over_applicable_clauses():
    report = make_report(MIXED)
    assert report.score == "2/4"
    assert [report.count(v) for v in ("passed", "failed", "errored", "skipped")] == [2, 1, 1, 1]
    assert make_report({"resolve.foreign": "skipped"}).score == "0/0"


def test_failed_and_errored_clauses_outside_the_baseline_are_unexpected():
    report = make_report(MIXED)
    assert report.unexpected == ["reassembly.prefix", "reassembly.done"]
    assert not report.certified
    partly = make_report(MIXED, baseline=("reassembly.prefix",))
    assert partly.unexpected == ["reassembly.done"] and not partly.certified


def test_a_baseline_listing_every_failure_certifies():
    report = make_report(MIXED, baseline=("reassembly.prefix", "reassembly.done"))
    assert report.certified and report.unexpected == [] and report.stale_baseline == []


def test_a_listed_clause_that_passes_is_stale_and_refuses():
    report = make_report(MIXED, baseline=("reassembly.prefix", "reassembly.done", "extract.calls"))
    assert report.stale_baseline == ["extract.calls"] and not report.certified


def test_a_listed_clause_that_is_skipped_is_not_stale():
    report = make_report({"resolve.foreign": "skipped"}, baseline=("resolve.foreign",))
    assert report.stale_baseline == [] and report.certified


def test_serialized_lines_are_valid_and_read_back_equal():
    for report in (make_report(MIXED), make_report(MIXED, baseline=("reassembly.prefix",)),
                   replace(make_report(MIXED), header=replace(HEADER, clauses=("extract.calls",)))):
        lines = report.serialized()
        assert all(schema.errors(line, "report.json") == [] for line in lines)
        assert Report.from_serialized(lines) == report
        text = "".join(json.dumps(line) + "\n" for line in lines)
        assert Report.from_jsonl(text) == report


def test_a_failure_without_a_case_still_shows_a_null_counterexample():
    report = make_report({"reassembly.prefix": "failed"})
    bare = replace(report, results=(replace(report.results[0], counterexample=None),))
    assert bare.serialized()[1]["counterexample"] is None
    assert Report.from_serialized(bare.serialized()) == bare


def test_serialized_refuses_a_report_that_breaks_the_schema():
    report = make_report({"reassembly.prefix": "failed"})
    broken = replace(report, results=(replace(report.results[0], reproduce=None),))
    with pytest.raises(InvalidLine, match="report line 2: .*'reproduce' is a required property"):
        broken.serialized()


def _lines() -> list[dict]:
    return make_report(MIXED, baseline=("reassembly.prefix",)).serialized()


@pytest.mark.parametrize("spoil, error, says", [
    (lambda lines: [], MissingHeader, "line 1 must be the header"),
    (lambda lines: lines[1:], MissingHeader, "line 1 must be the header"),
    (lambda lines: lines[:-1], MissingFooter, "last report line must be the footer"),
    (lambda lines: lines[:1], MissingFooter, "last report line must be the footer"),
    (lambda lines: [lines[0], lines[0], *lines[1:]], InvalidLine, "line 2: expected a clause line"),
    (lambda lines: [*lines[:2], lines[1], *lines[2:]], DuplicateClause, "reported twice"),
    (lambda lines: [*lines[:-1], {**lines[-1], "passed": 5}], FooterMismatch, "passed"),
    (lambda lines: [*lines[:-1], {**lines[-1], "certified": True}], FooterMismatch, "certified"),
    (lambda lines: [*lines[:-1], {**lines[-1], "unexpected": []}], FooterMismatch, "unexpected"),
    (lambda lines: [lines[0], {**lines[1], "verdict": "maybe"}, *lines[2:]], InvalidLine, "line 2"),
    (lambda lines: [{**lines[0], "seed": -3}, *lines[1:]], InvalidLine, "line 1"),
    (lambda lines: [lines[0], {k: v for k, v in lines[2].items() if k != "counterexample"},
                    lines[-1]], InvalidLine, "line 2"),
    (lambda lines: [lines[0], "not an object", lines[-1]], InvalidLine, "line 2"),
])
def test_each_malformed_report_has_its_own_error(spoil, error, says):
    with pytest.raises(error, match=says) as raised:
        Report.from_serialized(spoil(_lines()))
    assert isinstance(raised.value, ReportError)


def test_a_line_that_is_not_json_is_an_invalid_line():
    texts = [json.dumps(line) for line in _lines()]
    texts.insert(2, "{oops")
    with pytest.raises(InvalidLine, match="report line 3: not JSON"):
        Report.from_jsonl("\n".join(texts))


# -- rendering -------------------------------------------------------------------------------
def test_the_badge_says_certified_refused_or_accepted_failures():
    assert badge(make_report({"extract.calls": "passed"})) == {
        "schemaVersion": 1, "label": "mcs-conformance", "message": "certified 1/1",
        "color": "brightgreen"}
    assert badge(make_report(MIXED))["color"] == "red"
    assert badge(make_report(MIXED))["message"] == "refused 2/4"
    accepted = make_report(MIXED, baseline=("reassembly.prefix", "reassembly.done"))
    assert badge(accepted)["color"] == "yellow"


def test_junit_survives_characters_xml_cannot_hold():
    report = make_report({"reassembly.done": "errored"})
    odd = replace(report.results[0], reason="the strategy raised ValueError: \x00\x1b[31m\ud800")
    suite = ET.fromstring(junit_xml(replace(report, results=(odd,))).encode("utf-8"))
    assert "\\x00" in suite.find("testcase/error").get("message")


def test_summary_keeps_the_table_whole_and_fences_the_case():
    report = make_report({"reassembly.prefix": "failed"})
    odd = replace(report.results[0], meaning="a | b", counterexample={"text": "```"})
    summary = summary_markdown(replace(report, results=(odd,)))
    assert "| a \\| b |" in summary
    assert '````json\n{\n  "text": "```"\n}\n````' in summary


# -- the committed reports of the bundled strategies -----------------------------------------
BUNDLED = {
    "openai-chat": "mcs_reference:OpenAIChatStrategy",
    "openai-responses": "mcs_reference:OpenAIResponsesStrategy",
    "anthropic-messages": "mcs_reference:AnthropicMessagesStrategy",
    "ollama-chat": "mcs_reference:OllamaChatStrategy",
    "text-json": "mcs_reference.text:json_text_strategy",
    "hermes": "mcs_reference.text:hermes_text_strategy",
}


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_the_committed_report_is_valid_and_certified(name):
    folder = ROOT / "docs" / "reports" / name
    assert {p.name for p in folder.iterdir()} >= FILES
    text = (folder / "report.jsonl").read_text("utf-8")
    for number, line in enumerate(text.splitlines(), 1):
        assert schema.errors(json.loads(line), "report.json") == [], f"{name} line {number}"
    report = Report.from_jsonl(text)
    assert report.header.target == BUNDLED[name] and report.header.profile == "ci"
    assert report.header.clauses is None and report.header.baseline is None
    assert [r.clause for r in report.results] == [c for c, k in CLAUSES.items() if k.kind == "strategy"]
    assert report.certified, f"{name}: {report.unexpected}"
    assert json.loads((folder / "badge.json").read_text("utf-8"))["message"] == f"certified {report.score}"


def test_certify_loads_its_target_once(tmp_path, monkeypatch):
    """The request is checked and the target loaded once, by `settings_for`; the pytest
    session gets those settings and loads nothing again (a factory counts its calls)."""
    (tmp_path / "counted_target.py").write_text(textwrap.dedent("""
        from mcs_reference import OllamaChatStrategy

        MADE = []

        def factory():
            MADE.append(1)
            return OllamaChatStrategy()
    """), "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    report = run(Request("counted_target:factory", profile="dev", seed=0,
                         clauses=("reassembly.done",)))
    assert [r.verdict for r in report.results] == ["passed"]
    import counted_target

    assert counted_target.MADE == [1]

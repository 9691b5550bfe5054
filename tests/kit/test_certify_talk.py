"""What `certify` says while it runs and at the end: a plain line a clause in a log, a status
line rewritten in place on a terminal (in one process and from `--jobs` workers), a clause
that hangs, and each failure's reason, counterexample and rerun; and the report files it
writes, byte for byte those of a quiet run.

The displays are driven by hand (a fake clock, fake counts) for their exact bytes; the runs
that show them live use strategies that stall until the test has seen what it waits for, so
nothing here hangs on timing.
"""
from __future__ import annotations

import codecs
import fcntl
import importlib
import io
import os
import re
import struct
import subprocess
import sys
import termios
import textwrap
import threading
from pathlib import Path

import pytest

from mcs_conformance.certify import (ClauseResult, Header, Report, Request, closing_lines, run,
                                     write)
from mcs_conformance.certify import _talk
from mcs_conformance.certify._talk import Talk
from mcs_conformance.clauses import examples_failed

STRATEGIES = '''
import os
import time
from pathlib import Path

from mcs_conformance.clauses import examples_failed
from mcs_reference import OpenAIChatStrategy


class Stalls(OpenAIChatStrategy):
    """Right, but as_response() (reassembly.response alone calls it) waits for the file
    named by $MCS_TALK_FLAG, a minute at most, then raises."""

    def as_response(self, acc):
        flag, waited = Path(os.environ["MCS_TALK_FLAG"]), 0.0
        while not flag.exists():
            if waited > 60:
                raise RuntimeError("nobody saw the progress in a minute")
            time.sleep(0.02)
            waited += 0.02
        return super().as_response(acc)


class WrongAndStalls(OpenAIChatStrategy):
    """Adds a "!" to the text (reassembly.round-trip fails on its first example); once a
    failure is counted, each example waits for `release` (set by the test), a minute at most."""

    release = None
    failed_before = 0

    def as_message(self, acc):
        message = dict(super().as_message(acc))
        message["content"] = (message.get("content") or "") + "!"
        return message

    def new_accumulator(self):
        if self.release is not None and examples_failed() > self.failed_before:
            self.release.wait(60)
        return super().new_accumulator()
'''

SECONDS = r"\d+\.\d\d s"
COLOUR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def folder(tmp_path_factory, share_caches) -> Path:
    folder = tmp_path_factory.mktemp("talk")
    share_caches(folder)
    (folder / "talk_strategies.py").write_text(textwrap.dedent(STRATEGIES), "utf-8")
    return folder


class Screen:
    """A pseudo-terminal and what it has shown, read by a thread; `when(pattern, then)`
    calls `then` once the output matches."""

    def __init__(self) -> None:
        self.master, slave = os.openpty()  # 200 columns: a status line is cut to the width
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 200, 0, 0))
        self.file = open(slave, "w", encoding="utf-8")
        self.shown = ""
        self.waiting: list[tuple[re.Pattern, object]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def when(self, pattern: str, then) -> None:
        with self.lock:
            self.waiting.append((re.compile(pattern), then))

    def _read(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:  # every writer closed the terminal
                break
            if not data:
                break
            with self.lock:
                self.shown += decoder.decode(data)
                for entry in [e for e in self.waiting if e[0].search(COLOUR.sub("", self.shown))]:
                    self.waiting.remove(entry)
                    entry[1]()

    def close(self) -> str:
        """Close the test's end of the terminal; what it showed, once every writer closed."""
        self.file.close()
        self.thread.join(timeout=120)
        os.close(self.master)
        return COLOUR.sub("", self.shown).replace("\r\n", "\n")


# -- the display, driven by hand -------------------------------------------------------------
class Counts:
    """Fake counts of the running clauses."""

    def __init__(self) -> None:
        self.now: dict[str, tuple[int, int]] = {}
        self.begun: list[str] = []

    def started(self, clause: str) -> None:
        self.begun.append(clause)

    def counts(self, clause: str):
        return self.now.get(clause)


class TerminalLike(io.StringIO):
    def isatty(self) -> bool:
        return True


def result(clause: str, verdict: str = "passed", **fields) -> ClauseResult:
    return ClauseResult(clause=clause, level="MUST", meaning="m", verdict=verdict, **fields)


def test_on_a_terminal_the_status_line_is_rewritten_in_place_and_cleared(monkeypatch):
    monkeypatch.setenv("PY_COLORS", "0")
    monkeypatch.setenv("TERM", "xterm")
    clock, counts, screen = [0.0], Counts(), TerminalLike()
    talk = Talk(screen, total=2, source=counts, clock=lambda: clock[0])
    assert talk.live

    talk.started("reassembly.done")
    first = "  reassembly.done: 0 examples, 0 failing, 0.0 s"
    clock[0], counts.now["reassembly.done"] = 1.5, (7, 1)
    talk.tick()
    second = "  reassembly.done: 7 examples, 1 failing, 1.5 s"
    clock[0] = 4.0  # no example begun for 2.5 s: it says which one it waits on
    talk.tick()
    third = "  reassembly.done: 7 examples, 1 failing, 4.0 s, waiting on example 7 for 2.5 s"
    talk.started("extract.calls")  # two clauses at once (--jobs): one line, cut to the width
    both = (third[2:] + " | extract.calls: 0 examples, 0 failing, 0.0 s")
    both = ("  " + both)[:79]
    talk.ended(result("reassembly.done", "failed", seconds=4.0, examples=7))
    alone = "  extract.calls: 0 examples, 0 failing, 0.0 s"
    talk.close()

    assert counts.begun == ["reassembly.done", "extract.calls"]
    assert len(second) == len(first) and len(both) == 79
    assert screen.getvalue() == (
        "\r" + first
        + "\r" + second
        + "\r" + third
        + "\r" + both.ljust(len(third))  # spaces over what a longer line left
        + "\r" + " " * len(both) + "\r" + "[1/2] reassembly.done: failed, 7 examples, 4.00 s\n"
        + "\r" + alone
        + "\r" + " " * len(alone) + "\r")


def test_in_a_log_a_line_a_clause_and_a_long_clause_says_so_once_a_minute():
    clock, counts, log = [0.0], Counts(), io.StringIO()
    talk = Talk(log, total=3, source=counts, clock=lambda: clock[0])
    assert not talk.live
    talk.say("certifying x")
    talk.started("reassembly.done")
    clock[0], counts.now["reassembly.done"] = 2.0, (7, 1)
    talk.tick()
    for now in (59.0, 60.0, 119.0, 120.0):
        clock[0] = now
        talk.tick()
    talk.ended(result("reassembly.done", "errored", seconds=120.5, examples=7))
    talk.started("codec.round-trip")
    talk.ended(result("codec.round-trip", "skipped", seconds=0.001))
    talk.close()
    assert log.getvalue().splitlines() == [
        "certifying x",
        "  still running: reassembly.done: 7 examples, 1 failing, 60 s, waiting on example 7 "
        "for 58 s",
        "  still running: reassembly.done: 7 examples, 1 failing, 120 s, waiting on example 7 "
        "for 118 s",
        "[1/3] reassembly.done: errored, 7 examples, 120.50 s",
        "[2/3] codec.round-trip: skipped, no examples, 0.00 s",
    ]
    assert log.getvalue().isascii() and "\r" not in log.getvalue() and "\x1b" not in log.getvalue()


def test_the_closing_lines_give_each_failure_and_note_its_reason_case_and_rerun():
    header = Header(target="pkg:Client", strategy="c", wire="openai-chat", profile="dev", seed=1,
                    started="2025-01-01T00:00:00+00:00", version="0", python="3", hypothesis="6",
                    baseline=("client.calls", "client.text"), target_kind="client")
    case = {"chunks": []}
    report = Report(header, (
        result("client.calls", "failed", reason="lost a call", counterexample=case,
               reproduce="pytest --mcs-clause=client.calls", severity="silent-loss",
               expected_failure=True),
        result("client.malformed", "failed", reason="a call\x1b[2J ran\nsecond line",
               counterexample=case, reproduce="pytest --mcs-clause=client.malformed",
               severity="crash", more_failures=[{"reason": "r", "severity": "crash",
                                                 "counterexample": None}]),
        result("client.done", "errored", reason="the client hung: no result after 300 s",
               reproduce="pytest --mcs-clause=client.done"),
        result("client.http-error", "noted", reason="null where [] was", counterexample=case,
               reproduce="pytest --mcs-clause=client.http-error", severity="fidelity"),
        result("client.text", "passed"),
    ))
    out = Path("out")
    assert closing_lines(report, out, "b.json") == [
        "pkg:Client: refused 2/5 (report in out)",
        "  unexpected failure: client.malformed (failed, MUST, crash)",
        "    reason: a call\\x1b[2J ran",
        f"    counterexample: {out / 'report.jsonl'} line 3; shown in {out / 'summary.md'}",
        f"    and 1 failure(s) of other causes, in {out / 'summary.md'}",
        "    rerun: pytest --mcs-clause=client.malformed",
        "  unexpected failure: client.done (errored, MUST)",
        "    reason: the client hung: no result after 300 s",
        f"    no counterexample; details: {out / 'report.jsonl'} line 4, {out / 'summary.md'}",
        "    rerun: pytest --mcs-clause=client.done",
        "  expected failure: client.calls (failed, MUST, silent-loss), accepted by b.json",
        "    reason: lost a call",
        f"    counterexample: {out / 'report.jsonl'} line 2; shown in {out / 'summary.md'}",
        "    rerun: pytest --mcs-clause=client.calls",
        "  note (fidelity): client.http-error; --strict refuses on it",
        "    reason: null where [] was",
        f"    counterexample: {out / 'report.jsonl'} line 5; shown in {out / 'summary.md'}",
        "    rerun: pytest --mcs-clause=client.http-error",
        "  stale baseline: client.text now passes; remove it from b.json",
    ]


# -- live runs -------------------------------------------------------------------------------
def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mcs_conformance.cli", "certify", "talk_strategies:Stalls",
            "--clause", "reassembly.done", "--clause", "reassembly.response",
            "--profile", "dev", "--seed", "5", *args]


def test_piped_each_line_comes_as_its_clause_ends(folder):
    """The second clause stalls until the test has read the first clause's line from the
    pipe: a line held back until the end would leave it stalled, then errored."""
    flag = folder / "piped.flag"
    process = subprocess.Popen(_command("--out", str(folder / "piped")), cwd=folder, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env={**os.environ, "MCS_TALK_FLAG": str(flag)})
    lines = []
    for line in process.stderr:
        lines.append(line)
        if line.startswith("[1/2] reassembly.done: passed"):
            flag.touch()
    stdout = process.stdout.read()
    assert process.wait(timeout=300) == 0, "".join(lines) + stdout
    assert lines[0].startswith("certifying talk_strategies:Stalls on wire openai-chat: 2 clauses")
    assert re.fullmatch(rf"\[1/2\] reassembly\.done: passed, \d+ examples, {SECONDS}\n", lines[1])
    assert re.fullmatch(rf"\[2/2\] reassembly\.response: passed, \d+ examples, {SECONDS}\n",
                        lines[2])
    assert len(lines) == 3 and all(line[:-1].isprintable() for line in lines)
    assert stdout == f"talk_strategies:Stalls: certified 2/2 (report in {folder / 'piped'})\n"


def test_with_jobs_the_workers_counts_reach_the_terminal(folder):
    """Under --jobs 2 the stalled clause runs in a worker; its example count shows on the
    controller's status line, and only then does the test let it go on."""
    flag, screen = folder / "jobs.flag", Screen()
    screen.when(r"reassembly\.response: [1-9]\d* examples?, 0 failing", flag.touch)
    process = subprocess.Popen(_command("--jobs", "2", "--out", str(folder / "jobs")), cwd=folder,
                               stdout=subprocess.PIPE, stderr=screen.file, text=True,
                               env={**os.environ, "MCS_TALK_FLAG": str(flag), "TERM": "xterm"})
    stdout = process.stdout.read()
    code = process.wait(timeout=300)
    shown = screen.close()
    assert code == 0 and flag.exists(), shown + stdout
    for clause in ("reassembly.done", "reassembly.response"):  # in the order they end
        assert re.search(rf"\r +\r\[[12]/2\] {re.escape(clause)}: passed, \d+ examples, {SECONDS}\n",
                         shown), shown


@pytest.fixture(scope="module")
def terminal_run(folder, monkeypatch_module):
    """reassembly.round-trip on `WrongAndStalls`, in this process, its progress on a
    pseudo-terminal: the strategy waits after its first failure until the status line shows
    the failure and the example it waits on."""
    monkeypatch_module.syspath_prepend(str(folder))
    monkeypatch_module.setattr(_talk, "WAITING", 0.3)  # say what it waits on sooner
    monkeypatch_module.setenv("TERM", "xterm")
    strategy = importlib.import_module("talk_strategies").WrongAndStalls
    strategy.release, strategy.failed_before = threading.Event(), examples_failed()
    screen = Screen()
    screen.when(r"reassembly\.round-trip: [1-9]\d* examples?, [1-9]\d* failing, [^\r]*waiting "
                r"on example [1-9]", strategy.release.set)
    request = Request(target="talk_strategies:WrongAndStalls", profile="dev", seed=5,
                      clauses=("reassembly.round-trip", "reassembly.done"))
    try:
        report = run(request, progress=screen.file)
    finally:
        shown = screen.close()
        seen, strategy.release = strategy.release.is_set(), None
    return request, report, shown, seen


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def test_on_a_terminal_the_running_clause_shows_its_examples_and_failures(terminal_run):
    _, report, shown, seen = terminal_run
    assert seen, shown  # the status line showed the failures and the waiting example
    failed, passed = report.results
    assert (failed.verdict, passed.verdict) == ("failed", "passed")
    statuses = re.findall(r"\r(  reassembly\.round-trip: [^\r\n]*)", shown)
    assert len(statuses) >= 2 and statuses[0] == "  reassembly.round-trip: 0 examples, 0 failing, 0.0 s"
    # cleared (spaces over the last status) before the clause's own line
    cleared = re.search(r"\r(  reassembly\.round-trip: [^\r\n]*)\r( +)\r\[1/2\] reassembly\.round-trip: "
                        rf"failed, {failed.examples} examples, {SECONDS}\n", shown)
    assert cleared and len(cleared[2]) == len(cleared[1].rstrip()), shown
    assert re.search(rf"\r +\r\[2/2\] reassembly\.done: passed, {passed.examples} examples, "
                     rf"{SECONDS}\n$", shown), shown  # and nothing after the last line


def _normalized(report: Report, folder: Path) -> dict[str, bytes]:
    """The four files' bytes, the run's start time and durations blanked."""
    files = write(report, folder)
    blank = [(rb'"started": "[^"]*"', b'"started": ""'), (rb'"seconds": [0-9.e-]+', b'"seconds": 0'),
             (rb'time="[^"]*"', b'time=""')]
    texts = {}
    for name, path in files.items():
        data = path.read_bytes()
        for pattern, by in blank:
            data = re.sub(pattern, by, data)
        texts[name] = data
    return texts


def test_talking_changes_no_byte_of_the_report(terminal_run, folder):
    """The same request run quietly writes the same four files (start time and durations
    aside): the progress counts nothing and draws nothing the report holds."""
    request, talked, _, _ = terminal_run
    quiet = run(request)
    assert _normalized(quiet, folder / "quiet") == _normalized(talked, folder / "talked")
    assert talked.results[0].counterexample is not None  # the comparison covers a failure

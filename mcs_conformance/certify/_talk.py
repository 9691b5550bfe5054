"""What `certify` says while it runs, and what it says at the end.

While it runs (`Talk`): a plain line per clause as it ends, in a log as on a terminal
(`[3/22] reassembly.done: passed, 100 examples, 0.41 s`). On a terminal, one status line
under them is rewritten in place with what each running clause has done so far: examples,
failing examples, seconds, and the example it waits on when one takes long; it is cleared
before the next line. In a log, which a status line would fill with control characters, a
clause that runs long says so once a minute instead. At the end (`closing_lines`): the
verdict, then each failed or noted clause's reason, level and severity, where its
counterexample is in the report folder, and the command that reruns it.
"""
from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path
from typing import Callable, Protocol, TextIO

from _pytest._io import TerminalWriter

from mcs_conformance.base import shorten
from mcs_conformance.certify._report import ClauseResult, Report

__all__ = ["Talk", "closing_lines"]

REDRAW = 0.2  # seconds between two redraws of the status line on a terminal
STILL_RUNNING = 60.0  # in a log: a clause running this long says so, and again as often
WAITING = 2.0  # seconds with no new example begun before the status says what it waits on
REASON_LIMIT = 300  # characters of a reason in the closing lines
COLOURS = {"passed": {"green": True}, "failed": {"red": True}, "errored": {"red": True},
           "noted": {"yellow": True}, "skipped": {"yellow": True}}
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


class Source(Protocol):
    """Where the counts of a running clause come from (`_counts`)."""

    def started(self, clause: str) -> None: ...

    def counts(self, clause: str) -> tuple[int, int] | None: ...


def printable(text: str) -> str:
    """`text` with its control characters escaped: a reason cannot move the cursor."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _examples(count: int | None) -> str:
    return "no examples" if count is None else f"{count} example{'' if count == 1 else 's'}"


def _seconds(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def clause_line(result: ClauseResult, done: int, total: int,
                paint: Callable[[str], str] = str) -> str:
    """The line a clause prints as it ends: `[3/22] reassembly.done: passed, 100 examples, 0.41 s`."""
    return (f"[{done}/{total}] {result.clause}: {paint(result.verdict)}, "
            f"{_examples(result.examples)}, {result.seconds:.2f} s")


def _own_copy(stream: TextIO) -> tuple[TextIO, bool]:
    """A file of its own on `stream`'s descriptor, and whether it is one: pytest captures
    descriptors 1 and 2 while a clause runs, and a status drawn then would land there."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation: a StringIO
        return stream, False
    stream.flush()
    return open(os.dup(descriptor), "w", encoding=getattr(stream, "encoding", None) or "utf-8",
                errors="backslashreplace"), True


class _Running:
    """A clause that has started and not ended, as the controller sees it."""

    def __init__(self, clause: str, now: float) -> None:
        self.clause = clause
        self.since = self.moved = now  # when it started; when its examples last moved
        self.counts = (0, 0)  # examples begun, examples failed
        self.told = 0  # "still running" lines printed for it (in a log)

    def doing(self, now: float) -> str:
        examples, failed = self.counts
        text = (f"{self.clause}: {_examples(examples)}, {failed} failing, "
                f"{_seconds(now - self.since)}")
        if now - self.moved >= WAITING:  # the count is of examples begun: the last one runs
            text += f", waiting on example {max(examples, 1)} for {_seconds(now - self.moved)}"
        return text


class Talk:
    """Progress of one run, written to `stream`: live on a terminal, plain lines otherwise.

    `started`, `ended` and `finished` come from pytest's hooks (on the controller under
    `--jobs`); `tick`, which takes the counts from `source`, from a thread of its own while
    the run is `open`, so the status moves while an example hangs. Every write holds the
    lock and is flushed."""

    def __init__(self, stream: TextIO, *, total: int, source: Source,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.live = stream.isatty() and os.environ.get("TERM") != "dumb"
        self.stream, self.copied = _own_copy(stream)
        writer = TerminalWriter(self.stream)
        self.paint: Callable[[str], str] = (
            (lambda verdict: writer.markup(verdict, **COLOURS[verdict])) if self.live else str)
        self.total = total
        self.clock = clock
        self.source = source
        self.running: dict[str, _Running] = {}
        self.done = 0
        self.shown = 0  # characters of the status line on the screen
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    # -- from the run ----------------------------------------------------------------------
    def say(self, line: str) -> None:
        """A line of its own (above the status line on a terminal)."""
        with self.lock:
            self._clear()
            self.stream.write(printable(line) + "\n")
            self.stream.flush()

    def started(self, clause: str) -> None:
        with self.lock:
            self.source.started(clause)
            self.running[clause] = _Running(clause, self.clock())
            self._draw()

    def ended(self, result: ClauseResult) -> None:
        with self.lock:
            self.running.pop(result.clause, None)
            self.done += 1
            self._clear()
            self.stream.write(clause_line(result, self.done, self.total, self.paint) + "\n")
            self._draw()
            self.stream.flush()

    def finished(self, clause: str) -> None:
        """The clause's item is over (its line, if any, was printed by `ended`)."""
        with self.lock:
            if self.running.pop(clause, None) is not None:
                self._draw()

    def tick(self) -> None:
        """Take the running clauses' counts; redraw the status, or say who runs long."""
        with self.lock:
            now = self.clock()
            for running in self.running.values():
                counts = self.source.counts(running.clause)
                if counts is not None and counts != running.counts:
                    running.counts, running.moved = counts, now
                if not self.live and now - running.since >= STILL_RUNNING * (running.told + 1):
                    running.told += 1
                    self.stream.write(f"  still running: {running.doing(now)}\n")
                    self.stream.flush()
            self._draw()

    # -- the ticking thread -----------------------------------------------------------------
    def open(self) -> None:
        """Start ticking: every `REDRAW` seconds on a terminal, every second in a log."""
        self.stop.clear()
        every = REDRAW if self.live else 1.0
        self.thread = threading.Thread(target=self._loop, args=(every,), name="mcs-talk",
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Stop ticking and clear the status line."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        with self.lock:
            self.running.clear()
            self._clear()
            self.stream.flush()
            if self.copied:
                self.stream.close()

    def _loop(self, every: float) -> None:
        while not self.stop.wait(every):
            self.tick()

    # -- the status line (a terminal only) ----------------------------------------------------
    def _width(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 80
        except (AttributeError, OSError, ValueError):
            return 80

    def _draw(self) -> None:
        if not self.live:
            return
        now = self.clock()
        text = " | ".join(r.doing(now) for r in self.running.values())
        text = ("  " + text)[: self._width() - 1] if text else ""
        if text or self.shown:  # spaces over what is left of a longer line
            self.stream.write("\r" + text.ljust(self.shown))
            self.shown = len(text)
        self.stream.flush()

    def _clear(self) -> None:
        if self.live and self.shown:
            self.stream.write("\r" + " " * self.shown + "\r")
            self.shown = 0


def _reason(result: ClauseResult) -> str:
    """The reason's first line, cut when long (the report holds all of it)."""
    lines = (result.reason or "").strip().splitlines() or ["none given"]
    return shorten(printable(lines[0]), REASON_LIMIT)


def _details(result: ClauseResult, line: int, out: Path) -> list[str]:
    """Where a failed or noted clause's evidence is, and how to run it again."""
    jsonl, summary = out / "report.jsonl", out / "summary.md"
    lines = [f"    reason: {_reason(result)}",
             f"    counterexample: {jsonl} line {line}; shown in {summary}"
             if result.counterexample is not None
             else f"    no counterexample; details: {jsonl} line {line}, {summary}"]
    if result.more_failures:
        lines.append(f"    and {len(result.more_failures)} failure(s) of other causes, in {summary}")
    if result.reproduce:
        lines.append(f"    rerun: {printable(result.reproduce)}")
    return lines


def _grade(result: ClauseResult) -> str:
    """`failed, MUST` or, for a client clause, `failed, MUST, silent-loss`."""
    return ", ".join(filter(None, (result.verdict, result.level, result.severity)))


def closing_lines(report: Report, out: Path, baseline: str) -> list[str]:
    """The verdict line, then each failure (unexpected, then accepted), each note and each
    stale baseline entry, with the reason, the counterexample's place and the rerun."""
    word = "certified" if report.certified else "refused"
    lines = [printable(f"{report.header.target}: {word} {report.score} (report in {out})")]
    unexpected = set(report.unexpected)
    numbered = [(number, r) for number, r in enumerate(report.results, 2)]  # jsonl line numbers
    groups = [  # (which clauses, the first line of each)
        (lambda r: r.clause in unexpected, lambda r: f"unexpected failure: {r.clause} ({_grade(r)})"),
        (lambda r: r.bad and r.clause not in unexpected,
         lambda r: f"expected failure: {r.clause} ({_grade(r)}), accepted by {baseline}"),
        (lambda r: r.verdict == "noted",
         lambda r: f"note ({r.severity}): {r.clause}; --strict refuses on it"),
    ]
    for belongs, head in groups:
        lines += [line for number, r in numbered if belongs(r)
                  for line in ["  " + printable(head(r)), *_details(r, number, out)]]
    for clause_id in report.stale_baseline:
        lines.append(f"  stale baseline: {clause_id} now passes; remove it from {baseline}")
    return lines

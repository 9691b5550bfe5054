"""One pytest item per (strategy, clause): runs the clause and reports it as the kit's users read it.

A clause failure shows the clause id, the shrunk case and a command that reproduces it; a
strategy that raises or hangs is reported as *errored* against the clause and never stops
the run. The verdict also goes into `user_properties`, which survive pytest-xdist, so
`certify` reads verdicts from ordinary test reports.
"""
from __future__ import annotations

import json
import signal
import threading
import traceback
from contextlib import contextmanager
from typing import Any, Iterator

import hypothesis.core
import pytest

from .clauses import Clause, ClauseFailure, ClauseNotApplicable, Subject
from .clauses._run import examples_run, load_kit_modules
from .targets import LoadedStrategy

MAX_SHOWN = 2000  # characters of one JSON value shown in a failure


class ClauseTimeout(BaseException):
    """Raised inside a hung clause; a BaseException so neither Hypothesis nor the strategy
    under test can swallow it."""


REFIRE = 0.25  # seconds between interrupts once the limit is reached


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the block after `seconds` (main thread on POSIX; elsewhere no limit).

    The interrupt repeats until the block ends: one that strikes where Python ignores
    exceptions (a gc callback, a `__del__`) or where code swallows them is not the last.
    Leaving disarms it first, even when an interrupt lands during the cleanup itself, so
    none can strike after the block (in pytest's own teardown).
    """
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return
    armed = [True]

    def interrupt(signum: int, frame: Any) -> None:
        if armed[0]:
            raise ClauseTimeout(f"no result after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds, min(seconds, REFIRE))
        yield
    finally:
        while armed[0]:
            try:
                armed[0] = False
            except ClauseTimeout:  # landed before the store: the same limit, already reported
                continue
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def timeout_behind(exc: BaseException) -> ClauseTimeout | None:
    """The `ClauseTimeout` that caused `exc`, if any (Hypothesis may raise its own error
    while unwinding from a limit that struck inside its engine)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ClauseTimeout):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def shown(value: Any) -> str:
    """Compact JSON of a value for a report, cut when huge."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def case_record(case: Any) -> Any:
    """A JSON-able view of a counterexample (a wire `Case` or whatever the clause passed)."""
    if case is None:
        return None
    if isinstance(case, tuple) and case and hasattr(case[0], "record"):
        case = case[0]  # a client clause's draw: what the server sent, then what it means
    if callable(getattr(case, "record", None)):  # what the local server sent a client
        return case.record()
    if hasattr(case, "chunks") and hasattr(case, "message"):
        return {
            "wire": case.wire,
            "quirks": sorted(getattr(case, "quirks", ())),  # docs/quirks.md; [] = own shape
            "message": case.message,
            "chunks": case.chunks,
            "calls": [vars(call) for call in case.calls],
        }
    return json.loads(json.dumps(case, default=repr))


def describe_case(case: Any) -> list[str]:
    """The shrunk counterexample, one field a line; a chunk list one chunk a line, last.

    Clauses pass a wire `Case` or a dict of evidence (any keys, `chunks` optional).
    """
    record = case_record(case)
    if record is None:
        return []
    if not isinstance(record, dict):
        return ["shrunk counterexample:", f"  {shown(record)}"]
    chunks = record.get("chunks")
    lines = ["shrunk counterexample:"]
    lines += [f"  {key}: {shown(value)}" for key, value in record.items() if key != "chunks"]
    if isinstance(chunks, list):
        lines.append(f"  chunks ({len(chunks)}):")
        lines += [f"    [{i}] {shown(chunk)}" for i, chunk in enumerate(chunks)]
    elif chunks is not None:
        lines.append(f"  chunks: {shown(chunks)}")
    return lines


def _is_outcome_error(exc: BaseException) -> bool:
    """Did a client return something that is not an outcome? (a usage error, exit 2)"""
    from .clients.outcome import OutcomeError

    return isinstance(exc, OutcomeError)


class ClauseItem(pytest.Item):
    """Run one clause against one strategy."""

    def __init__(self, *, clause: Clause, loaded: LoadedStrategy, wire: Any, settings: Any,
                 runner: Any = None, **kw: Any):
        super().__init__(**kw)
        self.clause = clause
        self.loaded = loaded
        self.wire = wire
        self.mcs = settings
        self.runner = runner  # a client's `clients.runner.ClientRunner`; None for a strategy
        self.noun = getattr(loaded, "kind", "strategy")  # strategy, client or harness
        self.user_properties.append(("mcs_clause", clause.id))
        self.user_properties.append(("mcs_target", loaded.target))

    def subject(self) -> Subject:
        if self.runner is not None:
            return Subject(strategy=None, target=self.loaded.target, wire=self.wire,
                           make=lambda: None, client=self.runner)
        return Subject(strategy=self.loaded.strategy, target=self.loaded.target,
                       wire=self.wire, make=self.loaded.make)

    def reproduce(self) -> str:
        return self.mcs.rerun_command(self.loaded.target, self.clause.id)

    def runtest(self) -> None:
        load_kit_modules()  # the same draws for a seed whichever clauses run
        subject = self.subject()
        if not self.clause.applies(subject):
            self.user_properties.append(("mcs_verdict", "skipped"))
            pytest.skip(f"{self.clause.id} does not apply to {subject.name}")
        previous_seed = hypothesis.core.global_force_seed
        hypothesis.core.global_force_seed = self.mcs.seed
        first = examples_run()
        try:
            if self.runner is not None:  # a harness starts under its own start timeout
                self.runner.start()
            with time_limit(self.mcs.timeout):
                self.clause.check(subject)
        except ClauseFailure as failure:
            self._verdict("failed", failure.reason, case_record(failure.case))
            if self.mcs.save_failures is not None:  # --mcs-save-failures: keep it in a corpus
                from .regressions import save_failure

                self.user_properties.append(save_failure(self, failure))
            raise
        except ClauseNotApplicable as not_applicable:  # n/a: skipped with why, never passed
            self.user_properties += [("mcs_verdict", "skipped"),
                                     ("mcs_reason", not_applicable.reason)]
            pytest.skip(not_applicable.reason)
        except ClauseTimeout as hung:
            self._verdict("errored", f"the {self.noun} hung: {hung}", None)
            raise
        except (KeyboardInterrupt, pytest.exit.Exception):  # the user stops the run
            raise
        except BaseException as exc:  # SystemExit from a strategy is its bug, not the end
            hung = timeout_behind(exc)
            if hung is not None:  # the limit struck inside Hypothesis, which then raised
                self._verdict("errored", f"the {self.noun} hung: {hung}", None)
                raise ClauseTimeout(str(hung)) from exc
            if _is_outcome_error(exc):  # no outcome at all: the user must fix the client
                self._verdict("errored", str(exc), case_record(getattr(exc, "mcs_case", None)))
                self.user_properties.append(("mcs_usage_error", str(exc)))
                raise
            self._verdict("errored", f"the {self.noun} raised {type(exc).__name__}: {exc}",
                          case_record(getattr(exc, "mcs_case", None)))
            raise
        finally:
            hypothesis.core.global_force_seed = previous_seed
            self.user_properties.append(("mcs_examples", examples_run() - first))
        self.user_properties.append(("mcs_verdict", "passed"))

    def _verdict(self, verdict: str, reason: str, case: Any) -> None:
        self.user_properties += [("mcs_verdict", verdict), ("mcs_reason", reason),
                                 ("mcs_case", case), ("mcs_reproduce", self.reproduce())]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        clause = self.clause
        lines = [f"[{clause.level} {clause.id}] {clause.meaning}",
                 f"{self.noun}: {self.loaded.target}" + (
                     "" if self.subject().name == self.loaded.target
                     else f" ({self.subject().name})")]
        error = excinfo.value
        if isinstance(error, ClauseFailure):
            lines.append(f"failed: {error.reason}")
            lines += describe_case(error.case)
        elif isinstance(error, ClauseTimeout):
            lines.append(f"errored: the {self.noun} hung ({error}); raise --mcs-timeout if it "
                         "is only slow")
        elif _is_outcome_error(error):
            lines.append(f"errored: {error}")
        else:  # the traceback ends with Hypothesis' notes (the failing case, the blob)
            lines.append(f"errored: the {self.noun} raised {type(error).__name__}: {error}")
            case = getattr(error, "mcs_case", None)
            if isinstance(case, tuple) and case:
                case = case[0]
            if getattr(case, "quirks", None) is not None:
                lines.append(f"quirks: {shown(sorted(case.quirks))}")
            lines += ["", *traceback.format_exception(error, limit=-6)]
        if isinstance(error, ClauseFailure):
            notes = [n for n in getattr(error, "__notes__", [])
                     if "reproduce_failure" in n or "Falsifying" in n]
            lines += [""] + notes if notes else []
        lines += ["", f"what this means: {clause.failure_means}", f"typical bug: {clause.typical_bug}",
                  f"reproduce: {self.reproduce()}"]
        return "\n".join(line.rstrip("\n") for line in lines)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return f"mcs[{self.loaded.target}]", None, f"{self.loaded.target} :: {self.clause.id}"

"""One pytest item per (strategy, clause): runs the clause and reports it as the kit's users read it.

A clause failure shows the clause id, the shrunk case and a command that reproduces it; a
strategy that raises or hangs is reported as *errored* against the clause and never stops
the run. The verdict also goes into `user_properties`, which survive pytest-xdist, so
`certify` reads verdicts from ordinary test reports.
"""
from __future__ import annotations

import json
import traceback
import warnings
from typing import Any

import hypothesis.core
import pytest

from mcs_conformance.base import shorten
from mcs_conformance.clauses import (AnySubject, Clause, ClauseFailure, ClauseNotApplicable,
                                     ClauseTimeout, ClientSubject, examples_run, load_kit_modules,
                                     time_limit, timeout_behind)
from mcs_conformance.clients import ClientRunner, HarnessStartError, OutcomeError
from mcs_conformance.corpora import save_failure
from mcs_conformance.targets import Target

MAX_SHOWN = 2000  # characters of one JSON value shown in a failure


def shown(value: Any) -> str:
    """Compact JSON of a value for a report, cut when huge."""
    return shorten(json.dumps(value, ensure_ascii=False, default=repr), MAX_SHOWN)


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
    return isinstance(exc, OutcomeError)


class ClauseNote(UserWarning):
    """A client's strictness or fidelity failure, shown in pytest's warnings summary: the
    clause passes unless `--mcs-strict`."""


class ClauseItem(pytest.Item):
    """Run one clause against one target: a strategy, or a client through its runner."""

    def __init__(self, *, clause: Clause, loaded: Target, subject: AnySubject, settings: Any,
                 **kw: Any):
        super().__init__(**kw)
        self.clause = clause
        self.loaded = loaded
        self._subject = subject
        self.mcs = settings
        self.noun = loaded.kind  # strategy, client or harness
        self.user_properties.append(("mcs_clause", clause.id))
        self.user_properties.append(("mcs_target", loaded.target))

    @property
    def runner(self) -> ClientRunner | None:
        """A client's runner (shared by the target's items); None for a strategy."""
        return self._subject.client if isinstance(self._subject, ClientSubject) else None

    def subject(self) -> AnySubject:
        return self._subject

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
                if self.runner.implementation is not None:  # what a harness said it runs
                    self.user_properties.append(("mcs_implementation", self.runner.implementation))
            with time_limit(self.mcs.timeout):
                self.clause.check(subject)
        except ClauseFailure as failure:
            if failure.severity is not None:
                self.user_properties.append(("mcs_severity", failure.severity))
            if failure.others:  # one failure per cause (client clauses)
                self.user_properties.append(("mcs_more_failures", [
                    {"reason": other.reason, "severity": other.severity,
                     "counterexample": case_record(other.case)} for other in failure.others]))
            if failure.is_note and not self.mcs.strict:  # reported, but not a failure
                self._verdict("noted", failure.reason, case_record(failure.case))
                warnings.warn(ClauseNote(f"[{self.clause.id}] {failure.severity}: "
                                         f"{failure.reason} (--mcs-strict fails on it)"))
                return
            self._verdict("failed", failure.reason, case_record(failure.case))
            if self.mcs.save_failures is not None:  # --mcs-save-failures: keep it in a corpus
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
            if isinstance(exc, HarnessStartError):  # certify refuses the run (exit 2)
                self.user_properties.append(("mcs_start_error", str(exc)))
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
            severity = f" ({error.severity})" if error.severity else ""
            lines.append(f"failed{severity}: {error.reason}")
            lines += describe_case(error.case)
            for number, other in enumerate(error.others, 2):  # found without the quirks above
                lines += ["", f"failure {number} ({other.severity}), searched without the "
                          f"quirks before: {other.reason}", *describe_case(other.case)]
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

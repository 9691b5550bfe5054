"""The certification report as data: no I/O here (rendering lives in `render`, running in `certify`).

`Report.serialized()` gives the lines of `report.jsonl`; `Report.from_serialized(lines)`
reads them back, validating each against `schemas/report.json`. Each way a report can be
malformed has its own exception.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any, Iterable

from mcs_conformance.base import schema

__all__ = ["VERDICTS", "ClauseResult", "DuplicateClause", "FooterMismatch", "Header", "InvalidLine",
           "MissingFooter", "MissingHeader", "Report", "ReportError"]

#: `noted`: a client's strictness or fidelity failure, which refuses nothing unless the run
#: was strict (then it is `failed`, with its severity).
VERDICTS = ("passed", "failed", "noted", "errored", "skipped")


class ReportError(ValueError):
    """Raised when report lines cannot be read back into a `Report`."""


class InvalidLine(ReportError):
    """Raised when one line does not fit `schemas/report.json`; names the line."""


class MissingHeader(ReportError):
    """Raised when the first line is not the header."""


class MissingFooter(ReportError):
    """Raised when the last line is not the footer."""


class FooterMismatch(ReportError):
    """Raised when the footer's counts, score or verdict disagree with the clause lines."""


class DuplicateClause(ReportError):
    """Raised when two clause lines carry the same clause id."""


@dataclass(frozen=True)
class Header:
    target: str
    strategy: str
    wire: str
    profile: str
    seed: int
    started: str
    version: str
    python: str
    hypothesis: str
    platform: str = ""
    baseline: tuple[str, ...] | None = None
    clauses: tuple[str, ...] | None = None  # the clauses run when narrowed, None for all
    quirks: str = "all"  # the quirks the streams could hold: all, none or names (docs/quirks.md)
    target_kind: str = "strategy"  # strategy, client, harness or parser (wire: its format)
    implementation: dict | None = None  # what a harness said it runs
    shard: str | None = None  # "I/N" on a shard's report (certify --shard), None on a whole run
    strict: bool = False  # strictness and fidelity failures counted as failures (--strict)
    server: str | None = None  # the server profile certified against (--server), None for none


@dataclass(frozen=True)
class ClauseResult:
    clause: str
    level: str
    meaning: str
    verdict: str
    seconds: float = 0.0
    examples: int | None = None  # examples the verdict rests on (None: the clause did not run)
    reason: str | None = None
    counterexample: Any = None
    reproduce: str | None = None
    expected_failure: bool = False
    severity: str | None = None  # a client failure's or note's severity (docs/clauses.md)
    more_failures: list | None = None  # a client clause's failures of other causes

    @property
    def bad(self) -> bool:
        return self.verdict in ("failed", "errored")


@dataclass(frozen=True)
class Report:
    header: Header
    results: tuple[ClauseResult, ...]
    seconds: float = 0.0

    def count(self, verdict: str) -> int:
        return sum(1 for r in self.results if r.verdict == verdict)

    @property
    def score(self) -> str:
        """Passed (notes included) over applicable (not skipped) clauses, e.g. "19/20"."""
        held = self.count("passed") + self.count("noted")
        return f"{held}/{len(self.results) - self.count('skipped')}"

    @property
    def baseline(self) -> tuple[str, ...]:
        return self.header.baseline or ()

    @property
    def unexpected(self) -> list[str]:
        """Failed or errored clauses the baseline does not accept."""
        return [r.clause for r in self.results if r.bad and r.clause not in self.baseline]

    @property
    def stale_baseline(self) -> list[str]:
        """Clauses the baseline expects to fail that now pass: the baseline must be updated."""
        passed = {r.clause for r in self.results if r.verdict == "passed"}
        return [c for c in self.baseline if c in passed]

    @property
    def certified(self) -> bool:
        return not self.unexpected and not self.stale_baseline

    def footer(self) -> dict:
        return {
            "kind": "footer", **{v: self.count(v) for v in VERDICTS}, "score": self.score,
            "certified": self.certified, "unexpected": self.unexpected,
            "stale_baseline": self.stale_baseline, "seconds": round(self.seconds, 3),
        }

    def serialized(self) -> list[dict]:
        """The lines of `report.jsonl`, each valid against `schemas/report.json`."""
        header = {"kind": "header", "tool": "mcs-conformance", **asdict(self.header)}
        for key in ("baseline", "clauses"):
            if header[key] is not None:
                header[key] = list(header[key])
        for key in ("shard", "server"):  # only a shard's report says which one it is, and
            if header[key] is None:      # only a run against a server profile names it
                del header[key]
        lines = [header]
        for result in self.results:
            line = {"kind": "clause", **{k: v for k, v in asdict(result).items() if v is not None}}
            line["seconds"] = round(result.seconds, 3)
            if result.verdict in ("failed", "noted"):  # always shows its case, null if none
                line["counterexample"] = result.counterexample
            if not result.expected_failure:
                del line["expected_failure"]
            lines.append(line)
        lines.append(self.footer())
        for number, line in enumerate(lines, 1):
            _check(line, number)
        return lines

    @classmethod
    def from_jsonl(cls, text: str) -> "Report":
        """Read the text of a `report.jsonl`; a line that is not JSON is an `InvalidLine`."""
        lines = []
        for number, raw in enumerate(text.splitlines(), 1):
            try:
                lines.append(json.loads(raw))
            except ValueError as exc:
                raise InvalidLine(f"report line {number}: not JSON ({exc})") from None
        return cls.from_serialized(lines)

    @classmethod
    def from_serialized(cls, lines: Iterable[dict]) -> "Report":
        """The report whose `serialized()` lines these are; raises a `ReportError` subclass."""
        lines = list(lines)
        for number, line in enumerate(lines, 1):
            _check(line, number)
        if not lines or lines[0].get("kind") != "header":
            raise MissingHeader("report line 1 must be the header (\"kind\": \"header\")")
        if len(lines) < 2 or lines[-1].get("kind") != "footer":
            raise MissingFooter("the last report line must be the footer (\"kind\": \"footer\")")
        head = {k: v for k, v in lines[0].items() if k not in ("kind", "tool")}
        for key in ("baseline", "clauses"):
            if head.get(key) is not None:
                head[key] = tuple(head[key])
        results, seen = [], set()
        for number, line in enumerate(lines[1:-1], 2):
            if line["kind"] != "clause":
                raise InvalidLine(f"report line {number}: expected a clause line, got {line['kind']!r}")
            if line["clause"] in seen:
                raise DuplicateClause(f"report line {number}: clause {line['clause']} reported twice")
            seen.add(line["clause"])
            results.append(ClauseResult(**{k: v for k, v in line.items() if k != "kind"}))
        report = cls(Header(**head), tuple(results), lines[-1]["seconds"])
        footer, derived = lines[-1], report.footer()
        wrong = [k for k in derived if k != "seconds" and footer[k] != derived[k]]
        if wrong:
            raise FooterMismatch(f"the footer's {', '.join(wrong)} disagree with the clause lines")
        return report


def _check(line: Any, number: int) -> None:
    problems = schema.errors(line, "report.json")
    if problems:
        raise InvalidLine(f"report line {number}: {problems[0]}")

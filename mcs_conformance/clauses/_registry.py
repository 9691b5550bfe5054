"""The clause registry: every property the kit checks, with a stable id the reports cite.

A clause is data (id, level, meaning, what a failure means, the typical bug behind it) plus
two functions: `applies(subject)` (does it concern this strategy?) and `check(subject)`
(run the property; raise `ClauseFailure` with the shrunk case when it does not hold, or
`ClauseNotApplicable` when the run showed the subject cannot be judged on it).
Any other exception from `check` means the strategy under test raised: an *errored* verdict.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Union

from mcs_conformance.clients import ClientRunner
from mcs_conformance.wires import Wire

__all__ = ["CLAUSES", "KINDS", "LEVELS", "NOTE_SEVERITIES", "SEVERITIES", "AnySubject", "Clause", "ClauseFailure", "ClauseNotApplicable",
           "ClientSubject", "ParserSubject", "Subject", "applicable", "clause"]

LEVELS = ("MUST", "SHOULD")
# What a clause certifies: an extraction strategy, a client, or an engine's tool parser.
KINDS = ("strategy", "client", "parser")
#: How bad a client failure is (docs/clauses.md, "Severities"). The first three are bugs a
#: maintainer accepts and fail a certification; the last three are notes unless `--strict`.
SEVERITIES = ("crash", "silent-loss", "false-success", "strictness", "fidelity", "contract")
NOTE_SEVERITIES = frozenset({"strictness", "fidelity", "contract"})


@dataclass
class Subject:
    """An extraction strategy under certification and what the clauses need around it.

    `strategy` is an instance; `make()` builds a fresh one (for clauses needing one per example);
    `target` is how the user named it (`pkg:Obj`), for reproduce commands; `wire` is the
    `Wire` that generates its streams (None when the kit knows no wire for it).
    """

    strategy: Any
    target: str
    wire: Wire | None
    make: Callable[[], Any]
    kind: ClassVar[str] = "strategy"

    @property
    def name(self) -> str:
        return str(getattr(self.strategy, "name", type(self.strategy).__name__))

    @property
    def codec(self) -> Any:
        return getattr(self.strategy, "codec", None)

    @property
    def is_text(self) -> bool:
        return self.codec is not None


@dataclass
class ClientSubject:
    """A client or a harness under certification: `client` is its `ClientRunner`, which puts
    each served case through it; `target` is how the user named it; `wire` is the wire the
    local server speaks to it."""

    client: ClientRunner
    target: str
    wire: Wire
    kind: ClassVar[str] = "client"

    @property
    def name(self) -> str:
        return self.client.name


@dataclass
class ParserSubject:
    """An engine's tool parser under certification: `parser` speaks the parser protocol
    (`mcs_conformance.engines`) for the catalogue format `format`; `codec` is that format's
    reference codec, which writes the model outputs it is fed."""

    parser: Any
    target: str
    format: str
    codec: Any
    kind: ClassVar[str] = "parser"

    @property
    def name(self) -> str:
        return str(getattr(self.parser, "name", self.target))


AnySubject = Union[Subject, ClientSubject, ParserSubject]


class ClauseFailure(AssertionError):
    """Raised by a clause's check when the property does not hold for a (shrunk) case.

    `case` is the counterexample (a `Case`, or a dict describing it) that reports print;
    `severity` says how bad a client clause's failure is (one of `SEVERITIES`), None for a
    strategy clause's; `others` holds the failures a client clause found after this one,
    searching without the quirks of the counterexamples before (one per cause); `note`
    True makes a bug's severity a note (a client agreeing with its own stream=false answer,
    a shape no real server is shown to send).
    """

    def __init__(self, clause_id: str, reason: str, case: Any = None, severity: str | None = None,
                 note: bool | None = None):
        if severity is not None and severity not in SEVERITIES:
            raise ValueError(f"clause {clause_id}: severity must be one of {SEVERITIES}, got {severity!r}")
        self.clause_id = clause_id
        self.reason = reason
        self.case = case
        self.severity = severity
        self.note = note
        self.others: tuple[ClauseFailure, ...] = ()  # failures of other causes, same clause
        super().__init__(f"[{clause_id}] {reason}")

    @property
    def is_note(self) -> bool:
        """A strictness, fidelity or contract failure, or one its check made a note:
        reported, but no certification fails on it unless `--strict`."""
        return self.severity in NOTE_SEVERITIES if self.note is None else self.note


class ClauseNotApplicable(Exception):
    """Raised by a clause's check when the subject turned out to expose nothing the clause
    can judge (a client with no native message): the verdict is skipped, with `reason`
    starting "n/a:", never passed."""

    def __init__(self, clause_id: str, reason: str):
        self.clause_id = clause_id
        self.reason = reason
        super().__init__(f"[{clause_id}] {reason}")


@dataclass(frozen=True)
class Clause:
    id: str
    level: str
    meaning: str
    failure_means: str
    typical_bug: str
    applies: Callable[[AnySubject], bool]
    check: Callable[[AnySubject], None] = field(compare=False)
    kind: str = "strategy"

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"clause {self.id}: level must be one of {LEVELS}")
        if self.kind not in KINDS:
            raise ValueError(f"clause {self.id}: kind must be one of {KINDS}")

    def fail(self, reason: str, case: Any = None, severity: str | None = None,
             note: bool | None = None) -> ClauseFailure:
        """The exception to raise from `check`: `raise clause.fail(...)`."""
        return ClauseFailure(self.id, reason, case, severity, note)


CLAUSES: dict[str, Clause] = {}


def clause(id: str, *, level: str, meaning: str, failure_means: str, typical_bug: str,
           applies: Callable[[AnySubject], bool],
           kind: str = "strategy") -> Callable[[Callable[[AnySubject], None]], Clause]:
    """Decorator registering `check` as the clause `id`; ids are unique. `kind` says what
    it certifies: "strategy" (in-process) or "client" (over HTTP)."""

    def register(check: Callable[[AnySubject], None]) -> Clause:
        if id in CLAUSES:
            raise ValueError(f"clause id {id!r} registered twice")
        made = Clause(id, level, meaning, failure_means, typical_bug, applies, check, kind)
        CLAUSES[id] = made
        return made

    return register


def applicable(subject: AnySubject) -> list[Clause]:
    """The registered clauses that concern `subject`, in catalogue order."""
    return [c for c in CLAUSES.values() if c.kind == subject.kind and c.applies(subject)]

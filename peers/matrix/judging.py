"""From saved observations to the matrix's conclusions, by the current kit and the causes
people wrote: nothing here runs a library.

Every observation a cell kept is judged again by the kit's client rules
(`clauses.judge_observation`): one the current rules no longer fail drops out. Each failure
is then explained by at most one *cause* of its peer, a note a person wrote after reading
the library's source (`peers/causes/<peer>.json`): its matcher says which failures it
explains, its verdict whether they are the library's bug (✗) or its contract (⚠). A failure
no cause explains is unread (`?`), and so is one that did not repeat when replayed alone.
`problems()` lists every way the causes break the rules of evidence; the page is refused
while there is one.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from mcs_conformance.clauses import BUG_SEVERITIES, Judgment, judge_observation

from .catalog import PEERS, REPO
from .observations import ROOT, Cell, Observation, load_cells, observations_of

CAUSES = PEERS / "causes"
VERDICTS = ("bug", "contract")
#: The severities from the worst down: a cause says the worst of the failures it explains.
ORDER = ("crash", "silent-loss", "false-success", "strictness", "fidelity", "contract")
REPRO_LINES = 60
UPSTREAM_STATES = ("open", "closed", "merged", "declined", "answered")


@dataclass
class Cause:
    """A root cause a person read: `matches` (clauses, and optionally wires, modes, quirks
    held, quirks not held, a pattern over the library's error and one over the kit's
    reason) picks the failures it explains; `verdict` is bug or contract."""

    peer: str
    id: str
    title: str
    verdict: str
    severity: str
    matches: dict
    text: str
    code: str = ""
    promise: str = ""
    upstream: list = field(default_factory=list)
    searched: str = ""
    repro: str = ""

    @property
    def anchor(self) -> str:
        return f"{self.peer}-{self.id}"

    def explains(self, failure: "Failure") -> bool:
        match, data = self.matches, failure.observation.data
        quirks = set(data.get("quirks") or ())
        error = data["outcome"].get("error") or ""
        return (failure.clause in match["clauses"]
                and failure.cell.wire in match.get("wires", [failure.cell.wire])
                and failure.cell.mode in match.get("modes", [failure.cell.mode])
                and set(match.get("quirks", ())) <= quirks
                and not set(match.get("without", ())) & quirks
                and re.search(match.get("error", ""), error) is not None
                and re.search(match.get("reason", ""), failure.judgment.reason) is not None)


@dataclass
class Failure:
    """One observation of a cell that the current rules fail, and the cause explaining it."""

    cell: Cell
    clause: str
    observation: Observation
    judgment: Judgment
    cause: Cause | None = None

    @property
    def confirmed(self) -> bool:
        return bool(self.observation.data.get("confirmed"))

    @property
    def stream(self) -> str:
        """The bytes and cuts served: one stream whatever clauses and outcomes it gave."""
        digest = hashlib.sha256(self.observation.body).hexdigest()[:16]
        return f"{digest}:{','.join(map(str, self.observation.cuts))}"

    @property
    def mark(self) -> str:
        """✗ a bug, ⚠ the library's contract, ? unread (or not repeated alone)."""
        if self.cause is None or not self.confirmed:
            return "?"
        return "✗" if self.cause.verdict == "bug" else "⚠"


@dataclass
class Matrix:
    cells: list[Cell]
    failures: list[Failure]
    causes: dict[str, list[Cause]]  # peer -> its causes
    ambiguous: list[tuple[Failure, list[Cause]]] = field(default_factory=list)


def load_causes(root: Path = CAUSES) -> dict[str, list[Cause]]:
    """Every peer's causes and summary line: `causes/<peer>.json` is `{"summary": ...,
    "causes": [...]}`."""
    found = {}
    for path in sorted(root.glob("*.json")):
        entries = json.loads(path.read_text("utf-8")).get("causes", [])
        found[path.stem] = [Cause(peer=path.stem, **entry) for entry in entries]
    return found


def summaries(root: Path = CAUSES) -> dict[str, dict]:
    return {path.stem: {k: v for k, v in json.loads(path.read_text("utf-8")).items()
                        if k != "causes"} for path in sorted(root.glob("*.json"))}


def derive(root: Path = ROOT, causes_root: Path = CAUSES) -> Matrix:
    """Judge every saved observation again and explain each failure by its cause."""
    cells = load_cells(root)
    causes = load_causes(causes_root)
    matrix = Matrix(cells, [], causes)
    for cell in cells:
        for clause, observation in observations_of(cell, root):
            judged = judge_observation(clause, observation.rules_view())
            if judged is None:  # the current rules no longer fail it
                continue
            failure = Failure(cell, clause, observation, judged)
            found = [cause for cause in causes.get(cell.peer, ()) if cause.explains(failure)]
            if len(found) > 1:
                matrix.ambiguous.append((failure, found))
            failure.cause = found[0] if len(found) == 1 else None
            matrix.failures.append(failure)
    return matrix


def worst(severities) -> str:
    return min(severities, key=ORDER.index)


def _bug_allowed(cause: Cause, failure: Failure) -> str | None:
    """Why `failure` cannot be a bug of `cause`, or None: a bug rests on the library
    disagreeing with itself, or on a promise of its own docs, types or tests that the cause
    quotes, and never on a shape no real server is shown to send."""
    judged = failure.judgment
    if judged.unevidenced:
        return f"its stream holds {', '.join(judged.unevidenced)}, which no real server is shown to send"
    if cause.promise:
        return None
    if judged.evidence != "self":
        return (f"its evidence is {judged.evidence!r}, not the library disagreeing with itself, "
                "and the cause quotes no promise of the library's (`promise`)")
    if judged.severity not in BUG_SEVERITIES:
        return f"its severity {judged.severity!r} is a note, and the cause quotes no promise"
    return None


def problems(matrix: Matrix, repo: Path = REPO) -> list[str]:
    """Every way the causes break the rules; empty when the page may be published."""
    found = []
    for failure, causes in matrix.ambiguous:
        found.append(f"{failure.cell.peer}: {failure.clause} on {failure.cell.wire} "
                     f"{failure.cell.mode} (observation {failure.observation.id}) is explained "
                     f"by {len(causes)} causes: {', '.join(c.id for c in causes)}")
    by_cause: dict[int, list[Failure]] = {}
    for failure in matrix.failures:
        if failure.cause is not None:
            by_cause.setdefault(id(failure.cause), []).append(failure)
    for peer, causes in matrix.causes.items():
        owners: dict[str, str] = {}
        for cause in causes:
            where = f"peers/causes/{peer}.json: cause {cause.id!r}"
            explained = by_cause.get(id(cause), [])
            if cause.verdict not in VERDICTS:
                found.append(f"{where}: verdict must be one of {VERDICTS}, got {cause.verdict!r}")
            for thread in cause.upstream:
                if thread.get("state") not in UPSTREAM_STATES or not thread.get("url"):
                    found.append(f"{where}: an upstream thread needs its url and a state of "
                                 f"{UPSTREAM_STATES}, got {thread}")
            if not explained:
                found.append(f"{where} explains no failure of the saved observations (stale: "
                             "remove it, or re-run the cells it was written for)")
                continue
            derived = worst(f.judgment.severity for f in explained)
            if cause.severity != derived:
                found.append(f"{where} says severity {cause.severity!r}; its failures' worst "
                             f"is {derived!r}")
            if cause.verdict != "bug":
                continue
            for failure in explained:
                why = _bug_allowed(cause, failure)
                if why:
                    found.append(f"{where} is a bug, but {failure.clause} on "
                                 f"{failure.cell.wire} {failure.cell.mode} cannot be: {why}")
                    break
            if not cause.code or not (cause.upstream or cause.searched):
                found.append(f"{where} is a bug without the library code it names (`code`) "
                             "or its upstream state (`upstream`, or `searched`)")
            repro = repo / cause.repro if cause.repro else None
            if repro is None or not repro.is_file():
                found.append(f"{where} is a bug without its repro file ({cause.repro or 'none'})")
            elif len(repro.read_text("utf-8").splitlines()) > REPRO_LINES:
                found.append(f"{where}: its repro {cause.repro} is longer than "
                             f"{REPRO_LINES} lines")
            for failure in explained:  # no two bugs of one library share a stream
                other = owners.setdefault(failure.stream, cause.id)
                if other != cause.id:
                    found.append(f"{where} and cause {other!r} both explain the stream of "
                                 f"observation {failure.observation.id}: one stream, one cause")
    return found

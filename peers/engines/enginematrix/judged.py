"""Verdicts, severities and causes, derived from saved observations: never stored.

Each saved observation is judged by every parser clause of its kind that ran in its cell,
with the kit's current judgments (`judge_parser_observation`, the function certifying
uses). A failure is explained by a note when the note's engine and formats hold the cell
and one of its matchers names the clause and finds its pattern in the reason (and, when it
names spellings, the observation holds one of them, or none of its `without_spellings`).
The notes obey rules (`problems`): two ✗ causes never explain one observation, two notes
never explain one failure, and a ✗ note says where its cause lies, which deltas show it,
its repro and its upstream state. A failure no note explains is unread: the page shows it as `?`.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from mcs_conformance.clauses import CLAUSES, judge_parser_observation, parser_clauses_judging
from mcs_conformance.wires import SPELLINGS

NOTES = Path(__file__).resolve().parents[1] / "notes"  # <engine>.json: a list of causes
VERDICTS = ("bug", "contract")
#: What a ✗ note must say (issue 32, part 4): the function that decides the failure, the
#: smallest delta size that shows it and the server settings that make such deltas, its
#: repros, and upstream: the threads on the same cause with their states, and the search terms.
BUG_FIELDS = ("function", "deltas", "repros", "upstream", "searched")
STATES = ("open", "closed", "merged", "closed unmerged", "declined")


@dataclass(frozen=True)
class Failure:
    """One clause's judgment against one saved observation (the cell's `observation`-th)."""

    engine: str
    format: str
    observation: int
    clause: str
    severity: str
    reason: str
    spellings: tuple[str, ...] = ()  # the real models' spellings the observation's text holds

    @property
    def where(self) -> str:
        return f"{self.engine}/{self.format} #{self.observation}"


def ran(cell: dict, clause: str) -> bool:
    return bool(cell["clauses"].get(clause, {}).get("ran"))


def failures_of(cell: dict) -> list[Failure]:
    """Every failure the current clauses find in the cell's saved observations."""
    found = []
    for index, observation in enumerate(cell["observations"]):
        for clause in parser_clauses_judging(observation):
            if not ran(cell, clause):
                continue
            failure = judge_parser_observation(clause, observation)
            if failure is not None:
                found.append(Failure(cell["engine"], cell["format"], index, clause,
                                     failure.severity, failure.reason,
                                     tuple(observation.get("spellings", ()))))
    return found


def verdict(cell: dict, clause: str, failures: list[Failure]) -> str:
    """passed or failed as judged now; skipped or errored as the run said; `not run` when
    the cell broke before it."""
    said = cell["clauses"].get(clause)
    if said is None:
        return "not run"
    if not said["ran"]:
        return said["verdict"]
    return "failed" if any(f.clause == clause for f in failures) else "passed"


def load_notes() -> list[dict]:
    notes = []
    for path in sorted(NOTES.glob("*.json")):
        notes += json.loads(path.read_text("utf-8"))
    return notes


def _hit(matcher: dict, failure: Failure) -> bool:
    held = set(failure.spellings)
    return (failure.clause in matcher["clauses"]
            and re.search(matcher.get("reason", ""), failure.reason) is not None
            and ("spellings" not in matcher or bool(held & set(matcher["spellings"])))
            and not held & set(matcher.get("without_spellings", ())))


def explains(note: dict, failure: Failure, others: list[Failure]) -> bool:
    """Does `note` explain `failure`? A matcher names its clauses and a pattern found in the
    reason (and may narrow the note's formats, or ask for the observation's spellings:
    `spellings`, one of them held; `without_spellings`, none held); `with` / `without`
    (matchers too) ask that another failure of the same observation be there, or not: how
    one observation is given to one cause."""
    return (note["engine"] == failure.engine and failure.format in note["formats"]
            and any(_hit(matcher, failure)
                    and failure.format in matcher.get("formats", note["formats"])
                    and all(any(_hit(w, o) for o in others) for w in matcher.get("with", ()))
                    and not any(_hit(w, o) for w in matcher.get("without", ()) for o in others)
                    for matcher in note["match"]))


@dataclass
class Reading:
    """The failures and the notes that explain each (in the notes' order)."""

    failures: list[Failure]
    notes: list[dict]
    explained: dict[Failure, list[int]]

    def notes_of(self, failure: Failure) -> list[dict]:
        return [self.notes[i] for i in self.explained[failure]]

    def unread(self) -> list[Failure]:
        return [f for f in self.failures if not self.explained[f]]

    def explained_by(self, note: dict) -> list[Failure]:
        index = next(i for i, n in enumerate(self.notes) if n is note)
        return [f for f in self.failures if index in self.explained[f]]


def read(cells: list[dict], notes: list[dict]) -> Reading:
    failures = [f for cell in cells for f in failures_of(cell)]
    of_observation: dict[str, list[Failure]] = {}
    for failure in failures:
        of_observation.setdefault(failure.where, []).append(failure)
    explained = {f: [i for i, note in enumerate(notes)
                     if explains(note, f, [o for o in of_observation[f.where] if o != f])]
                 for f in failures}
    return Reading(failures, notes, explained)


def problems(reading: Reading, cells: list[dict], root: Path) -> list[str]:
    """What breaks the notes' rules; empty when they hold."""
    found = []
    cells_of = {(c["engine"], c["format"]) for c in cells}
    for note in reading.notes:
        found += _note_problems(note, cells_of, root)
    by_observation: dict[str, set[int]] = {}
    for failure in reading.failures:
        indices = reading.explained[failure]
        if len(indices) > 1:
            found.append(f"{failure.where} {failure.clause} is explained by "
                         f"{len(indices)} notes: " + "; ".join(
                             repr(reading.notes[i]["title"]) for i in indices))
        by_observation.setdefault(failure.where, set()).update(indices)
    for where, indices in by_observation.items():
        bugs = sorted(i for i in indices if reading.notes[i]["verdict"] == "bug")
        if len(bugs) > 1:
            found.append(f"{where} is explained by two ✗ causes: " + "; ".join(
                repr(reading.notes[i]["title"]) for i in bugs))
    return found


def _note_problems(note: dict, cells_of: set, root: Path) -> list[str]:
    title = note.get("title", "?")
    found = [f"{title!r}: no cell {note['engine']}/{f}" for f in note["formats"]
             if (note["engine"], f) not in cells_of]
    if note["verdict"] not in VERDICTS:
        found.append(f"{title!r}: verdict {note['verdict']!r} is none of {VERDICTS}")
    for matcher in note["match"]:
        found += [f"{title!r}: {c} is no parser clause" for c in matcher["clauses"]
                  if c not in CLAUSES or not c.startswith("parser.")]
        named = [*matcher.get("spellings", ()), *matcher.get("without_spellings", ())]
        found += [f"{title!r}: {name} is no spelling" for name in named
                  if name not in {s.name for s in SPELLINGS.values()}]
    if note["verdict"] != "bug":
        return found
    found += [f"{title!r}: a ✗ note says its {field}" for field in BUG_FIELDS
              if not note.get(field) and not (field == "upstream" and note.get(field) == [])]
    found += [f"{title!r}: repro {path} is missing" for path in note.get("repros", ())
              if not (root / path).is_file()]
    found += [f"{title!r}: upstream {thread.get('url')} has no state among {STATES}"
              for thread in note.get("upstream", ()) if thread.get("state") not in STATES]
    return found

"""`peers/results.json`: read, check against `peers/results.schema.json`, write."""
from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from .catalog import PEERS

RESULTS = PEERS / "results.json"
SCHEMA = PEERS / "results.schema.json"
NOTES = PEERS / "notes.json"


class ResultsError(ValueError):
    """results.json (or a row about to go in) does not fit its schema; names the row."""


def problems(rows: object) -> list[str]:
    """Every way `rows` breaks the schema, each with the path to the bad value."""
    validator = Draft202012Validator(json.loads(SCHEMA.read_text("utf-8")))
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in sorted(validator.iter_errors(rows), key=lambda e: list(e.absolute_path))]


def check(rows: object, where: Path = RESULTS) -> list[dict]:
    found = problems(rows)
    if found:
        raise ResultsError(f"{where}: {found[0]} (see {SCHEMA.name})")
    return rows  # type: ignore[return-value]


def load(path: Path = RESULTS) -> list[dict]:
    if not path.exists():
        return []
    return check(json.loads(path.read_text("utf-8")), path)


def save(rows: list[dict], path: Path = RESULTS) -> None:
    check(rows, path)
    path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")


def load_notes(path: Path = NOTES) -> dict:
    return json.loads(path.read_text("utf-8")) if path.exists() else {}


def merged(old: list[dict], new: list[dict]) -> list[dict]:
    """`old` with the rows of every (peer, wire, quirks) in `new` replaced."""
    key = lambda row: (row["peer"], row["wire"], row["quirks"])  # noqa: E731
    replaced = {key(row) for row in new}
    return [row for row in old if key(row) not in replaced] + new

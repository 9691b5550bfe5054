"""What the matrix saw, kept apart from what it concludes: `peers/observations/`.

A *cell* is one peer on one wire in one mode (the provider's own shape, or a server
profile): `observations/<peer>/<wire>/<mode>.json` says which library version ran, when,
at which profile and seed, with what protocol, and per client clause whether it ran, how
many examples it took, and which observations its search kept. An *observation* is one
case the client failed (a kit judgment, a note included): what the server sent (the body
under `bodies/`, its cuts, a clean end or a drop, the quirks, the request the case
needed), the truth of the case, and the library's outcomes (streamed, the same body whole,
its own non-streamed answer), plus whether a fresh harness, given the same bytes alone,
gave the same outcome (`confirmed`). Nothing here judges: `judging.py` derives verdicts,
severities and causes from these files with the current kit, with no library installed.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from .catalog import PEERS, REPO

ROOT = PEERS / "observations"
_REPLACED = re.compile(r"(?<!\\)((?:\\\\)*)\\x([0-9a-f]{2})")
#: What an observation keeps of a counterexample besides its body (`pieces`).
_KEPT = ("wire", "status", "complete", "quirks", "size", "request", "truth", "outcome",
         "whole_outcome", "again_outcome", "twin_outcome", "exposed_before")


def piece_bytes(texts: list[str]) -> tuple[bytes, ...]:
    """The body pieces as sent: a counterexample's pieces are text decoded with
    backslashreplace, so a UTF-8 character cut between two pieces shows as `\\xNN`
    escapes; give those bytes back. A JSON body holds a backslash before `x` only inside an
    even run of backslashes (an escaped backslash), which may begin in an earlier piece:
    the run carries over."""
    pieces: list[bytes] = []
    carried = 0  # backslashes at the end of what came before
    for text in texts:
        prefix = "\\" * (carried % 2)
        out, start = bytearray(), 0
        shifted = prefix + text
        for match in _REPLACED.finditer(shifted):
            out += shifted[start:match.start()].encode("utf-8") + match.group(1).encode("utf-8")
            out.append(int(match.group(2), 16))
            start = match.end()
        out += shifted[start:].encode("utf-8")
        piece = bytes(out[len(prefix):])
        pieces.append(piece)
        stripped = piece.rstrip(b"\\")
        carried = (carried if not stripped else 0) + len(piece) - len(stripped)
    return tuple(pieces)


@dataclass
class Observation:
    """One failed case as saved: `id` names it (its body, cuts, request and outcome),
    `data` holds the JSON the rules read, `body` the bytes sent, `clauses` the clauses whose
    search kept it."""

    id: str
    data: dict
    body: bytes
    clauses: list = field(default_factory=list)

    @property
    def cuts(self) -> list[int]:
        return self.data["cuts"]

    @property
    def pieces(self) -> tuple[bytes, ...]:
        out, start = [], 0
        for size in self.cuts:
            out.append(self.body[start:start + size])
            start += size
        return tuple(out)

    def rules_view(self) -> dict:
        """The observation as the kit's rules read it (`clauses.judge_observation`)."""
        return {**self.data, "pieces": [p.decode("utf-8", "backslashreplace") for p in self.pieces]}


def observation_of(counterexample: dict, clause: str) -> Observation:
    """An observation from a certify report's counterexample of `clause`."""
    pieces = piece_bytes(counterexample.get("pieces") or [])
    data = {key: counterexample[key] for key in _KEPT if key in counterexample}
    data["cuts"] = [len(piece) for piece in pieces]
    body = b"".join(pieces)
    key = json.dumps([hashlib.sha256(body).hexdigest(), data["cuts"], data.get("complete"),
                      data.get("status"), data.get("request"), data.get("outcome")],
                     sort_keys=True, ensure_ascii=False)
    return Observation(hashlib.sha256(key.encode("utf-8")).hexdigest()[:12], data, body, [clause])


@dataclass
class Cell:
    """One peer on one wire in one mode, as run."""

    peer: str
    wire: str
    mode: str
    data: dict  # version, profile, seed, kit, date, seconds, status, problem, clauses, ...

    @property
    def path(self) -> Path:
        return cell_path(self.peer, self.wire, self.mode)

    @property
    def clauses(self) -> dict:
        return self.data.get("clauses", {})


def cell_path(peer: str, wire: str, mode: str, root: Path = ROOT) -> Path:
    return root / peer / wire / f"{mode}.json"


def _dump(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def save_cell(cell: Cell, observations: list[Observation], root: Path = ROOT) -> None:
    """Write the cell and its observations (bodies kept once, by their content); the cell's
    observations saved before, and no longer named by any cell of the peer, go."""
    folder = root / cell.peer
    for observation in observations:
        digest = hashlib.sha256(observation.body).hexdigest()[:16]
        body = folder / "bodies" / f"{digest}.bin"
        body.parent.mkdir(parents=True, exist_ok=True)
        body.write_bytes(observation.body)
        path = folder / "cases" / f"{observation.id}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump({**observation.data, "body": body.name}), "utf-8")
    path = cell_path(cell.peer, cell.wire, cell.mode, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_dump({"peer": cell.peer, "wire": cell.wire, "mode": cell.mode,
                           **cell.data}), "utf-8")
    prune(cell.peer, root)


def prune(peer: str, root: Path = ROOT) -> None:
    """Drop the saved cases and bodies of `peer` that no cell names any more."""
    folder = root / peer
    named = {ident for cell in load_cells(root, peer) for entry in cell.clauses.values()
             for ident in entry.get("observations", ())}
    bodies = set()
    for path in sorted((folder / "cases").glob("*.json")):
        if path.stem in named:
            bodies.add(json.loads(path.read_text("utf-8"))["body"])
        else:
            path.unlink()
    for path in sorted((folder / "bodies").glob("*.bin")):
        if path.name not in bodies:
            path.unlink()


def load_cells(root: Path = ROOT, peer: str | None = None) -> list[Cell]:
    """Every saved cell (of `peer`), in a stable order."""
    pattern = f"{peer}/*/*.json" if peer else "*/*/*.json"
    cells = []
    for path in sorted(root.glob(pattern)):
        if path.parent.name in ("cases", "bodies"):
            continue
        data = json.loads(path.read_text("utf-8"))
        cells.append(Cell(data.pop("peer"), data.pop("wire"), data.pop("mode"), data))
    return cells


def load_observation(peer: str, ident: str, root: Path = ROOT) -> Observation:
    data = json.loads((root / peer / "cases" / f"{ident}.json").read_text("utf-8"))
    body = (root / peer / "bodies" / data.pop("body")).read_bytes()
    return Observation(ident, data, body)


def set_confirmed(peer: str, ident: str, confirmed: bool, root: Path = ROOT) -> None:
    """Save whether a replay alone gave the observed outcome again (`run.py --confirm`)."""
    path = root / peer / "cases" / f"{ident}.json"
    path.write_text(_dump({**json.loads(path.read_text("utf-8")), "confirmed": confirmed}), "utf-8")


def observations_of(cell: Cell, root: Path = ROOT) -> Iterator[tuple[str, Observation]]:
    """(clause, observation) for every observation the cell's clauses kept."""
    for clause, entry in cell.clauses.items():
        for ident in entry.get("observations", ()):
            yield clause, load_observation(cell.peer, ident, root)


def relative(path: Path) -> str:
    return path.resolve().relative_to(REPO).as_posix()

"""A failure becomes a finding only when the peer's harness, alone, fails it again; then its
stream is kept under `peers/findings/<peer>/` as a corpus entry.

The counterexample of a client clause records what the server sent (`Served.record()`: the
status, the body pieces, whether the connection was dropped) and the outcome that failed.
Confirming serves exactly those bytes, cut exactly there, to a fresh harness process, and
asks for the same outcome (for `client.byte-cuts`: that the pieces and the whole body still
disagree). A clause's verdict is a function of the case and the outcome, so the same
outcome on the same bytes fails the same clause. Errors are compared by their text with the
case's base URL taken out (it names a port and a case id that change from run to run).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcs_conformance.clients import harness_client
from mcs_conformance.clients import Served
from mcs_conformance.clients import ProviderServer
from mcs_conformance.wires import content_type
from mcs_conformance.corpora import RecordError, plan, write_entry as write

from .catalog import REPO
from .repros import also_writes_repro

BYTE_CUTS = "client.byte-cuts"
_REPLACED = re.compile(r"(?<!\\)((?:\\\\)*)\\x([0-9a-f]{2})")
_BASE_URL = re.compile(r"https?://127\.0\.0\.1:\d+(/case/[^/\s'\"]*)?/?[^\s'\"]*")


@dataclass(frozen=True)
class Finding:
    """A confirmed failure: the clause, the quirks of its stream, where its stream is kept
    (None: not a stream, `note` says why), the kit's reason, and the failing outcome."""

    clause: str
    quirks: list
    corpus: str | None
    reason: str
    note: str | None = None


def piece_bytes(texts: list[str]) -> tuple[bytes, ...]:
    """The body pieces as sent: `Served.record()` decodes each piece with backslashreplace,
    so a UTF-8 character cut between two pieces shows as `\\xNN` escapes; give those bytes
    back. A JSON body holds a backslash before `x` only inside an even run of backslashes
    (an escaped backslash), which may begin in an earlier piece: the run carries over."""
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


def served_of(evidence: dict) -> Served:
    """The answer a counterexample records, ready to serve again."""
    wire, status = evidence["wire"], evidence["status"]
    return Served(wire=wire, status=status,
                  content_type=content_type(wire) if status == 200 else "application/json",
                  pieces=piece_bytes(evidence["pieces"]),
                  complete=evidence.get("complete", True),
                  quirks=frozenset(evidence.get("quirks", ())))


def comparable(outcome: dict) -> dict:
    """The outcome with the case's base URL taken out of its error text."""
    error = outcome.get("error")
    return {**outcome, "error": _BASE_URL.sub("<base_url>", error) if error else error}


def confirm(command: str, clause: str, evidence: dict, *, timeout: float = 120.0) -> bool:
    """True when a fresh harness fails `clause` again on the counterexample's bytes."""
    served = served_of(evidence)
    client = harness_client(command, timeout=timeout)
    try:
        with ProviderServer() as server:
            def run(answer: Served) -> dict:
                url = server.add(answer)
                try:
                    return comparable(client(url, served.wire, evidence.get("request")))
                finally:
                    server.discard(url)

            if clause == BYTE_CUTS:
                whole = Served(**{**vars(served), "pieces": (served.body,)})
                return run(served) != run(whole)
            return run(served) == comparable(evidence["outcome"])
    finally:
        client.close()


RAW = ".body"  # a failing answer the corpus cannot read, kept for `--confirm` only
RAW_META = ".finding.json"


@also_writes_repro  # each finding kept gets its standalone repro (repros.py)
def save(root: Path, *, peer: str, version: str, clause: str, quirks_mode: str,
         evidence: dict, reason: str, severity: str | None = None,
         cause: int = 1) -> tuple[str, str | None]:
    """Keep the counterexample's answer under `root` (the peer's findings folder): a corpus
    entry when its body is a stream the corpus can replay, else the raw body (an HTTP error
    answer, a body cut inside its first event) beside a `.finding.json`. Returns the path
    relative to the repository and, for a raw body, a note saying why it is not an entry.
    `cause` numbers the clause's failures in one cell (one per cause): the second and later
    get `--2`, `--3` in their names."""
    served = served_of(evidence)
    name = f"{clause.removeprefix('client.')}--{served.wire}--quirks-{quirks_mode}" + (
        f"--{cause}" if cause > 1 else "")
    finding = {"peer": peer, "version": version, "clause": clause, "wire": served.wire,
               "quirks": sorted(served.quirks), "quirks_mode": quirks_mode,
               "status": served.status, "complete": served.complete,
               "cuts": [len(piece) for piece in served.pieces],
               "outcome": evidence.get("outcome"),
               "whole_outcome": evidence.get("whole_outcome"), "reason": reason,
               "request": evidence.get("request"),
               "severity": severity}
    why = f"an HTTP {served.status} answer is not a stream" if served.status != 200 else None
    if why is None:
        try:
            entry = plan(served.body, corpus=root, name=name, suffix=".sse",
                         source=f"peers/run.py: the shrunk counterexample of {clause} for "
                                f"{peer} {version} on {served.wire}, quirks {quirks_mode}",
                         shows=f"{peer} {version} fails {clause}: {reason}"[:2000])
        except RecordError as exc:
            why = f"the corpus cannot read its body ({exc})"
        else:
            meta = {**entry.meta, "x-mcs-finding": finding}
            write(type(entry)(entry.path, entry.body, meta, entry.summary), overwrite=True)
            return entry.path.resolve().relative_to(REPO).as_posix(), None
    folder = root / served.wire
    folder.mkdir(parents=True, exist_ok=True)
    (folder / (name + RAW)).write_bytes(served.body)
    (folder / (name + RAW_META)).write_text(json.dumps(finding, indent=1, ensure_ascii=False)
                                            + "\n", "utf-8")
    note = f"kept as a raw body, replayed by `peers/run.py --confirm` and its repro: {why}"
    return (folder / (name + RAW)).resolve().relative_to(REPO).as_posix(), note


def evidence_of_entry(stream: Path) -> tuple[str, dict]:
    """The clause and the counterexample a saved finding holds, to confirm it again."""
    if stream.suffix == RAW:
        finding = json.loads(stream.with_name(stream.stem + RAW_META).read_text("utf-8"))
    else:
        meta = json.loads(stream.with_name(stream.stem + ".meta.json").read_text("utf-8"))
        finding = meta["x-mcs-finding"]
    body, pieces, start = stream.read_bytes(), [], 0
    for size in finding["cuts"]:
        pieces.append(body[start:start + size].decode("utf-8", "backslashreplace"))
        start += size
    evidence = {"wire": finding["wire"], "status": finding["status"], "pieces": pieces,
                "complete": finding["complete"], "quirks": finding["quirks"],
                "outcome": finding["outcome"], "whole_outcome": finding["whole_outcome"],
                "request": finding.get("request")}
    return finding["clause"], evidence

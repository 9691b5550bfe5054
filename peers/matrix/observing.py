"""One cell of the matrix, observed: certify one peer on one wire in one mode through the
kit's own command (`mcs-conformance certify --harness`), keep what each clause's search
found as observations, and replay each alone through a fresh harness process (the same
bytes, cut at the same places, the same request) to record whether it repeats.

A cell that cannot run, crashes or hangs past its time limit is saved as such and loses no
other cell: the runner goes on.
"""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

from mcs_conformance.clients import HarnessError, ProviderServer, Served, harness_client
from mcs_conformance.wires import content_type

from .catalog import REPO, Peer
from .observations import Cell, Observation, observation_of

BYTE_CUTS = "client.byte-cuts"
#: What a run against one server profile checks: the clauses a stream's shape decides. The
#: run of the provider's own shape checks every client clause (errors, cuts, HTTP errors).
SHAPE_CLAUSES = ("client.calls", "client.text", "client.message", "client.byte-cuts")
CELL_LIMIT = 45 * 60.0  # seconds a cell may take before it is stopped and saved as hung
_BASE_URL = re.compile(r"https?://127\.0\.0\.1:\d+(/case/[^/\s'\"]*)?/?[^\s'\"]*")
_KIT = ("mcs_conformance/wires", "mcs_conformance/clients", "mcs_conformance/clauses")


def kit_fingerprint() -> str:
    """What the kit draws and judges with: a digest of its generators', clients' and clauses'
    source. A saved cell of another fingerprint is run again on resume."""
    digest = hashlib.sha256()
    for folder in _KIT:
        for path in sorted((REPO / folder).rglob("*.py")):
            digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def mode_options(mode: str) -> list[str]:
    """certify's options for a mode: the provider's own shape (every clause), or one server
    profile (the shape clauses)."""
    if mode == "none":
        return ["--quirks", "none"]
    return ["--server", mode, *(option for clause in SHAPE_CLAUSES
                                for option in ("--clause", clause))]


def comparable(outcome: dict, body: bytes) -> dict:
    """The outcome with what changes from run to run taken out: the case's base URL in its
    error text (a port and a case id), and the ids the library made up itself (an id the
    served `body` does not hold: some SDKs draw one for a call that came without)."""
    error = outcome.get("error")
    return {**_without_invented_ids(outcome, body.decode("utf-8", "replace")),
            "error": _BASE_URL.sub("<base_url>", error) if error else error}


def _without_invented_ids(value, served: str):
    if isinstance(value, dict):
        return {key: "<made up by the library>" if _invented(key, item, served)
                else _without_invented_ids(item, served) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_invented_ids(item, served) for item in value]
    return value


def _invented(key: str, item, served: str) -> bool:
    return (isinstance(item, str) and bool(item) and (key == "id" or key.endswith(("_id", "Id")))
            and item not in served)


def served_of(observation: Observation) -> Served:
    """The answer an observation records, ready to serve again."""
    data = observation.data
    status = data["status"]
    return Served(wire=data["wire"], status=status,
                  content_type=content_type(data["wire"]) if status == 200 else "application/json",
                  pieces=observation.pieces, complete=data.get("complete", True),
                  quirks=frozenset(data.get("quirks", ())))


def confirm(command: str, clause: str, observation: Observation, *, timeout: float = 120.0) -> bool:
    """True when a fresh harness gives the observed outcome again on the same bytes (for
    `client.byte-cuts`: the pieces and the whole body still disagree)."""
    served = served_of(observation)
    client = harness_client(command, timeout=timeout)
    try:
        with ProviderServer() as server:
            def run(answer: Served) -> dict:
                url = server.add(answer)
                try:
                    return comparable(client(url, served.wire, observation.data.get("request")),
                                      served.body)
                finally:
                    server.discard(url)

            if clause == BYTE_CUTS:
                whole = Served(**{**vars(served), "pieces": (served.body,)})
                return run(served) != run(whole)
            return run(served) == comparable(observation.data["outcome"], served.body)
    finally:
        client.close()


def _clause_entry(line: dict) -> dict:
    verdict, reason = line["verdict"], line.get("reason")
    if verdict in ("passed", "failed", "noted"):
        return {"status": "ran", "examples": line.get("examples")}
    if verdict == "skipped" and (reason or "").startswith("n/a:"):
        return {"status": "n/a", "reason": reason}
    return {"status": verdict, "reason": reason}


def read_report(report: Path) -> tuple[dict, list[tuple[str, dict]], dict]:
    """The clauses of a certify report.jsonl (client clauses only: status, examples), every
    counterexample as (clause, counterexample), and the header."""
    clauses, found, header = {}, [], {}
    # "\n" only: str.splitlines() would also cut at U+2028, U+0085 ... inside JSON strings
    for line in map(json.loads, filter(None, report.read_text("utf-8").split("\n"))):
        if line.get("kind") == "header":
            header = line
        if line.get("kind") != "clause" or not line["clause"].startswith("client."):
            continue
        clauses[line["clause"]] = _clause_entry(line)
        if line["verdict"] in ("failed", "noted"):
            found += [(line["clause"], case) for case in
                      [line.get("counterexample"), *(other.get("counterexample") for other in
                                                     line.get("more_failures") or ())]
                      if isinstance(case, dict) and "pieces" in case]
    return clauses, found, header


def observe(peer: Peer, wire: str, mode: str, *, profile: str, seed: int, out: Path,
            say=print) -> tuple[Cell, list[Observation]]:
    """Run the cell; the cell's record and its observations, each confirmed or not."""
    command = [sys.executable, "-m", "mcs_conformance.cli", "certify", "--harness",
               peer.command(), "--wire", wire, *mode_options(mode), "--profile", profile,
               "--seed", str(seed), "--out", str(out)]
    data = {"library": peer.library, "language": peer.language, "homepage": peer.homepage,
            "pinned": peer.pinned(),
            "profile": profile, "seed": seed, "kit": kit_fingerprint(),
            "date": date.today().isoformat(), "status": "run", "problem": None, "clauses": {}}
    clock = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=REPO, capture_output=True, text=True,
                              timeout=CELL_LIMIT)
        problem = None if done.returncode in (0, 1) else (
            f"certify exited {done.returncode}: "
            f"{(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    except subprocess.TimeoutExpired:
        problem = f"the cell ran past {CELL_LIMIT / 60:g} minutes and was stopped"
    data["seconds"] = round(time.perf_counter() - clock, 1)
    report = out / "report.jsonl"
    if problem is not None or not report.exists():
        data.update(status="could not run", problem=problem or "certify wrote no report")
        return Cell(peer.name, wire, mode, {**data, "version": peer.pinned()}), []
    clauses, found, header = read_report(report)
    implementation = header.get("implementation") or {}
    data["version"] = implementation.get("version") or peer.pinned()
    data["clauses"] = clauses
    kept: dict[str, Observation] = {}
    for clause, counterexample in found:
        observation = observation_of(counterexample, clause)
        try:
            again = confirm(peer.command(), clause, observation)
        except HarnessError as exc:
            again = False
            say(f"  {peer.name} {wire} {mode}: {clause} could not be replayed alone: {exc}")
        observation.data.setdefault("confirmed", again)
        if not again:
            say(f"  {peer.name} {wire} {mode}: {clause} did not fail the same way again alone")
        kept.setdefault(observation.id, observation)
        ids = clauses[clause].setdefault("observations", [])
        if observation.id not in ids:
            ids.append(observation.id)
    return Cell(peer.name, wire, mode, data), list(kept.values())

"""One cell of the matrix: certify one peer on one wire with one quirks mode, through the
kit's own command (`mcs-conformance certify --harness`), and read its report back.

`client.message` becomes "n/a" when the harness exposes no native message on that wire
(the clause passes vacuously on a null message; the page must not call that a pass): a
probe serves one plain stream and looks at the outcome's `message`.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from mcs_conformance.clients import HarnessError, harness_client
from mcs_conformance.clients import served_stream
from mcs_conformance.clients import ProviderServer
from mcs_conformance.wires import get_wire

from .catalog import REPO, Peer

MESSAGE = "client.message"
_PROBE_TIMEOUT = 120.0


@dataclass
class Cell:
    """What one certification run gave: the verdict per clause, the failed clauses with
    their reason and counterexample, the run's length, or why it could not run."""

    peer: str
    wire: str
    quirks: str  # the mode: "none" (the provider's own shape) or a server profile's name
    verdicts: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)  # (clause, reason, counterexample, severity)
    seconds: float = 0.0
    problem: str | None = None


def _probe_case(wire: str):
    """One plain stream of `wire` with a call and the provider's own shape (fixed draw)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    drawn = []

    @settings(max_examples=1, database=None, derandomize=True, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(get_wire(wire).cases(min_calls=1, max_calls=1, quirks=frozenset()))
    def draw(case):
        drawn.append(case)

    draw()
    return drawn[0]


def probe(peer: Peer, wire: str) -> tuple[dict, bool | None]:
    """The harness's implementation dict, and whether it exposes the native message on
    `wire` (None: the probe stream ended in an error, so it cannot tell)."""
    client = harness_client(peer.command(), timeout=_PROBE_TIMEOUT)
    try:
        with ProviderServer() as server:
            outcome = client(server.add(served_stream(_probe_case(wire))), wire)
        exposes = None if outcome["error"] else outcome["message"] is not None
        return client.implementation, exposes
    finally:
        client.close()


#: What a run against one server profile checks: the clauses the stream's shape decides. The
#: run of the provider's own shape checks every client clause (errors, cuts, HTTP errors).
SHAPE_CLAUSES = ("client.calls", "client.text", "client.message", "client.byte-cuts")


def mode_options(mode: str) -> list[str]:
    """certify's options for a mode: the provider's own shape (every clause), or one server
    profile (the shape clauses)."""
    if mode == "none":
        return ["--quirks", "none"]
    return ["--server", mode, *(option for clause in SHAPE_CLAUSES
                                for option in ("--clause", clause))]


def certify(peer: Peer, wire: str, quirks: str, *, profile: str, seed: int, out: Path,
            exposes_message: bool | None) -> Cell:
    """Run the kit's certify on the peer's harness; the cell of the matrix it gives."""
    cell = Cell(peer.name, wire, quirks)
    command = [sys.executable, "-m", "mcs_conformance.cli", "certify", "--harness",
               peer.command(), "--wire", wire, *mode_options(quirks), "--profile", profile,
               "--seed", str(seed), "--out", str(out)]
    clock = time.perf_counter()
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    cell.seconds = round(time.perf_counter() - clock, 1)
    report = out / "report.jsonl"
    if done.returncode not in (0, 1) or not report.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        cell.problem = f"certify exited {done.returncode}: {last}"
        return cell
    cell.verdicts, cell.failures = read_report(report, exposes_message)
    return cell


def read_report(report: Path, exposes_message: bool | None) -> tuple[dict, list]:
    """The client clauses' verdicts of a report.jsonl, and its failures and notes (clause,
    reason, counterexample, severity), one per cause; `client.message` passed on a harness
    without a message is "n/a"."""
    verdicts, failures = {}, []
    # "\n" only: str.splitlines() would also cut at U+2028, U+0085 ... inside JSON strings
    for line in map(json.loads, filter(None, report.read_text("utf-8").split("\n"))):
        if line.get("kind") != "clause" or not line["clause"].startswith("client."):
            continue
        verdict = line["verdict"]
        if line["clause"] == MESSAGE and exposes_message is False and verdict == "passed":
            verdict = "n/a"
        if verdict == "skipped" and (line.get("reason") or "").startswith("n/a:"):
            verdict = "n/a"  # the clause found nothing to judge (no native message)
        verdicts[line["clause"]] = verdict
        if verdict in ("failed", "noted"):
            failures.append((line["clause"], line.get("reason") or "",
                             line.get("counterexample"), line.get("severity")))
            failures += [(line["clause"], other["reason"], other["counterexample"],
                          other["severity"]) for other in line.get("more_failures", ())]
    return verdicts, failures


def start_problem(peer: Peer) -> str | None:
    """None when the harness starts and shakes hands; else the one-line reason."""
    try:
        harness_client(peer.command(), timeout=_PROBE_TIMEOUT).close()
    except HarnessError as exc:
        return str(exc)
    return None

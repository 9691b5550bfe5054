"""The two harnesses in harnesses/, run through the kit's side of the protocol.

The reference harness certifies; the Node harness (the official `openai` npm package) is
pinned to what it really does, on streams recorded in corpora/openai-chat/ and through
certification: its findings are documented in harnesses/README.md.
"""
from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mcs_conformance.certify import Request, run
from mcs_conformance.clauses import CLAUSES
from mcs_conformance.clients import harness_client
from mcs_conformance.clients.reference_client import reference_client
from mcs_conformance.clients import Served
from mcs_conformance.clients import ProviderServer
from mcs_conformance.wires import content_type, frame_body

ROOT = Path(__file__).resolve().parents[2]
HARNESSES = ROOT / "harnesses"
PYTHON_HARNESS = f"{sys.executable} {HARNESSES / 'python-reference' / 'harness.py'}"
NODE_DIR = HARNESSES / "node-openai"
NODE_HARNESS = f"node {NODE_DIR / 'harness.mjs'}"
CORPORA = ROOT / "corpora"
OPENAI_NPM = json.loads((NODE_DIR / "package.json").read_text())["dependencies"]["openai"]


@pytest.fixture(scope="module")
def node_harness(node_install) -> str:
    """The Node harness command, its locked packages installed (`npm ci`) when missing."""
    assert shutil.which("node") and shutil.which("npm"), "node and npm are needed for the Node harness"
    with open(Path(tempfile.gettempdir()) / "mcs-node-openai-npm-ci.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # xdist workers: one installs, the others wait
        if not (NODE_DIR / "node_modules" / "openai").is_dir():
            node_install(NODE_DIR, "--no-audit", "--no-fund", "--prefer-offline")
    return NODE_HARNESS


def recorded(name: str, wire: str = "openai-chat") -> Served:
    """A recorded stream as the server sends it (chunk lists framed as the wire frames
    them), cut once mid-line."""
    path = CORPORA / wire / name
    body = path.read_bytes()
    if path.suffix == ".jsonl":
        body = frame_body(wire, [json.loads(line) for line in body.splitlines()])
    return Served(wire=wire, status=200, content_type=content_type(wire),
                  pieces=(body[:57], body[57:]))


@pytest.fixture(scope="module")
def server():
    with ProviderServer() as server:
        yield server


RECORDED = [  # (wire, stream): calls, text, errors, quirks of each wire
    ("openai-chat", "tool-fragmented-arguments.sse"), ("openai-chat", "text-stop.sse"),
    ("openai-chat", "error-event.sse"), ("openai-chat", "call-without-index.jsonl"),
    ("openai-responses", "parallel-function-calls.sse"),
    ("openai-responses", "cut-before-completed.sse"),
    ("anthropic-messages", "text-then-tool-use.sse"),
    ("anthropic-messages", "overloaded-error-midstream.sse"),
    ("ollama-chat", "calls-in-done-chunk.jsonl"), ("ollama-chat", "error-midstream.jsonl"),
]


def test_the_python_harness_answers_as_the_reference_client_on_every_wire(server):
    with harness_client(PYTHON_HARNESS, timeout=30) as client:
        assert client.implementation["name"] == "mcs_reference"
        assert client.implementation["wires"] == ["anthropic-messages", "ollama-chat",
                                                  "openai-chat", "openai-responses"]
        errors = 0
        for wire, name in RECORDED:
            url = server.add(recorded(name, wire))
            outcome = client(url, wire)
            assert outcome == reference_client(url, wire), name
            errors += outcome["error"] is not None
        assert errors == 4  # the error streams end in an error, through the harness too


def test_the_node_harness_reports_the_installed_openai_package(node_harness):
    with harness_client(node_harness, timeout=30) as client:
        assert client.implementation == {
            "name": "openai", "language": "javascript", "version": OPENAI_NPM,
            "homepage": "https://github.com/openai/openai-node", "wires": ["openai-chat"]}


def test_the_node_harness_keeps_calls_and_numbers_exactly(node_harness, server):
    """Object arguments travel as their own JSON text: no JS number rounding."""
    with harness_client(node_harness, timeout=30) as client:
        url = server.add(recorded("tool-fragmented-arguments.sse"))
        outcome = client(url, "openai-chat")
        assert outcome["calls"] == reference_client(url, "openai-chat")["calls"]
        assert outcome["error"] is None


# What openai 6.49.0 does with streams other OpenAI-compatible servers send (harnesses/README.md).
NODE_FINDINGS = {
    # Mistral: deltas without `index`; the call lands on tool_calls["undefined"] and is lost
    "call-without-index.jsonl": ([], None),
    # older vLLM: id and type first, no `function`; #addChunk reads function.arguments
    "id-then-name-then-escaped-arguments.sse": (
        [], "OpenAIError: Cannot read properties of undefined (reading 'arguments')"),
    # Snowflake: no finish_reason, then [DONE]; finalizeChatCompletion throws
    "no-finish-reason.sse": ([], "OpenAIError: missing finish_reason for choice 0"),
}


@pytest.mark.parametrize("name", sorted(NODE_FINDINGS))
def test_the_node_harness_findings_on_recorded_streams(node_harness, server, name):
    with harness_client(node_harness, timeout=30) as client:
        url = server.add(recorded(name))
        outcome = client(url, "openai-chat")
    truth = reference_client(url, "openai-chat")
    assert truth["calls"] or truth["text"]  # the reference gets the content ...
    assert truth["error"] is None
    assert (outcome["calls"], outcome["error"]) == NODE_FINDINGS[name]  # ... the package loses it


# -- certified through `mcs-conformance certify --harness` ---------------------------------
def certify(tmp_path: Path, harness: str, *options: str, wire: str = "openai-chat") -> tuple[int, dict, dict]:
    """Certify a harness on `wire` at `dev`, seed 0: exit status, header, verdicts."""
    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "mcs_conformance.cli", "certify", "--harness", harness,
         "--wire", wire, "--profile", "dev", "--seed", "0", "--out", str(out), *options],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    lines = [json.loads(line) for line in (out / "report.jsonl").read_text().splitlines()]
    clauses = {line["clause"]: line for line in lines if line["kind"] == "clause"}
    return done.returncode, lines[0], clauses


def test_the_python_harness_is_certified(tmp_path):
    status, header, clauses = certify(tmp_path, PYTHON_HARNESS)
    assert status == 0
    assert header["implementation"]["name"] == "mcs_reference"
    assert {c: line["verdict"] for c, line in clauses.items()} == dict.fromkeys(clauses, "passed")
    assert len(clauses) == len([c for c in CLAUSES if c.startswith("client.")])


NODE_VERDICTS = {  # openai 6.49.0 on openai-chat, dev profile, seed 0, every quirk
    "client.calls": "failed", "client.text": "failed", "client.message": "failed",
    "client.byte-cuts": "passed", "client.no-phantom": "passed", "client.malformed": "passed",
    "client.provider-error": "passed", "client.truncated": "passed", "client.http-error": "passed",
    "client.early-end": "passed", "client.partial-event": "passed",
}


def test_the_node_harness_verdicts_are_the_packages_own(node_harness, tmp_path):
    status, header, clauses = certify(tmp_path, node_harness, "--baseline",
                                      str(NODE_DIR / "baseline.json"))
    assert header["implementation"]["version"] == OPENAI_NPM
    assert {c: line["verdict"] for c, line in clauses.items()} == NODE_VERDICTS
    assert status == 0  # harnesses/node-openai/baseline.json lists exactly these failures
    # each failure is one of the findings in harnesses/README.md, named by its quirk
    assert clauses["client.calls"]["counterexample"]["quirks"] in (
        ["no-index"], ["split-id-then-name"], ["no-finish-reason"])
    assert clauses["client.text"]["counterexample"]["quirks"] in (["no-finish-reason"], ["split-id-then-name"])
    # content "" left null is a fidelity note: the failure is what the message loses, the
    # reasoning or the calls it drops (the calls' own finding, seen in the message)
    message = clauses["client.message"]
    assert message["severity"] == "silent-loss"
    assert (message["counterexample"]["quirks"], "reasoning_content" in message["reason"]) in (
        (["reasoning-content"], True), (["no-index"], False)), message["reason"]
    assert message["counterexample"]["quirks"] != ["no-index"] or "tool_calls" in message["reason"]


def test_certify_starts_a_harness_once_a_run(tmp_path):
    """`certify --harness` loads its target once: the harness process starts when the first
    clause needs it and serves every clause (it used to start once more, before the run,
    only to say its name). The report still carries what the harness said it runs."""
    starts = tmp_path / "starts"
    counting = tmp_path / "counting_harness.py"
    counting.write_text(
        "import runpy, sys\n"
        f"with open({str(starts)!r}, 'a') as log:\n"
        "    log.write('started\\n')\n"
        f"runpy.run_path({str(HARNESSES / 'python-reference' / 'harness.py')!r}, "
        "run_name='__main__')\n")
    report = run(Request(target=f"{sys.executable} {counting}", kind="harness",
                         wire="anthropic-messages", profile="dev", seed=0,
                         clauses=("client.calls", "client.text", "client.message")))
    assert [r.verdict for r in report.results] == ["passed"] * 3
    assert starts.read_text().splitlines() == ["started"]
    assert report.header.implementation["name"] == "mcs_reference"

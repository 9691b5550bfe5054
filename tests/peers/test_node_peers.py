"""Each Node peer's harness: start, one served case per wire, stop.

The case is a recorded stream from corpora/ served by the kit's local provider server; the
harness must report the same calls and text as the kit's reference client reads from the
same served body, and so must its library's non-streaming call (protocol v3) on each wire the
harness declares one for, served the stream's whole twin (the stream=false body the reference
assembles from the same stream) behind an empty stream body, so that a harness whose
"non-streaming" call streams reads nothing. Each peer's pinned environment is installed
into .peers/<peer>/ with `npm ci` when it is missing or stale. Skipped only where node (or npm) is not installed.
"""
from __future__ import annotations

import dataclasses
import filecmp
import json
import shlex
import shutil
from pathlib import Path

import pytest

from mcs_conformance.clients import harness_client
from mcs_conformance.clients.reference_client import reference_client
from mcs_conformance.clients import Served
from mcs_conformance.clients import ProviderServer
from mcs_conformance.corpora import decode
from mcs_conformance.wires import content_type
from mcs_reference.buffer import LLMStreamBuffer

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "peers"
NODE_PEERS = sorted(path.parent.name for path in PEERS.glob("node-*/peer.json"))
#: one small recorded stream per wire: some text, then a call whose arguments are fragmented
STREAMS = {
    "openai-chat": "openai-chat/tool-fragmented-arguments.sse",
    "openai-responses": "openai-responses/function-call-argument-deltas.sse",
    "anthropic-messages": "anthropic-messages/text-then-tool-use.sse",
    "gemini": "gemini/text-then-call.sse",
    "bedrock-converse": "bedrock-converse/text-then-tool-use.bin",
}

pytestmark = pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None,
                                reason="node and npm are not installed")


def _install(peer: str, node_install) -> None:
    """`npm ci` the peer's pinned package.json and lockfile into .peers/<peer>/ unless the
    lockfile installed there is already the pinned one."""
    source, env = PEERS / peer, ROOT / ".peers" / peer
    lock = env / "package-lock.json"
    if (env / "node_modules").is_dir() and lock.exists() and filecmp.cmp(
            lock, source / "package-lock.json", shallow=False):
        return
    env.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(source / name, env / name)
    # the lockfile pins each package and its hash: npm's cache needs no revalidation
    node_install(env, "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline")


def _served(wire: str) -> Served:
    """The wire's recorded stream, with its whole twin for a non-streamed request."""
    body = (ROOT / "corpora" / STREAMS[wire]).read_bytes()
    chunks, error = decode(body)
    assert error is None, error
    buffer = LLMStreamBuffer()
    buffer.add_all(chunks)
    return Served(wire=wire, status=200, content_type=content_type(wire), pieces=(body,),
                  whole=buffer.response())


def test_every_node_peer_is_described_and_pinned():
    assert len(NODE_PEERS) >= 3
    for peer in NODE_PEERS:
        described = json.loads((PEERS / peer / "peer.json").read_text())
        assert described["name"] == peer and described["language"] == "node"
        assert set(described["wires"]) <= set(STREAMS)
        pinned = json.loads((PEERS / peer / "package.json").read_text())["dependencies"]
        assert described["library"] in pinned
        assert all(version[0].isdigit() for version in pinned.values()), pinned


@pytest.mark.parametrize("peer", NODE_PEERS)
def test_the_harness_starts_runs_each_wire_and_stops(peer, node_install):
    _install(peer, node_install)
    described = json.loads((PEERS / peer / "peer.json").read_text())
    installed = json.loads((ROOT / ".peers" / peer / "node_modules" / described["library"]
                            / "package.json").read_text())["version"]
    pinned = json.loads((PEERS / peer / "package.json").read_text())["dependencies"]
    assert installed == pinned[described["library"]], f"{peer}: not the pinned {described['library']}"
    with ProviderServer() as server, harness_client(
            f"node {shlex.quote(str(PEERS / peer / described['harness']))}",
            timeout=60) as client:
        implementation = client.implementation
        assert implementation["name"] == peer
        assert implementation["version"].startswith(installed)
        assert implementation["wires"] == described["wires"]
        assert client.non_streaming <= set(described["wires"])
        for wire in described["wires"]:
            served = _served(wire)
            url = server.add(served)
            truth = reference_client(url, wire)
            assert truth["error"] is None and truth["calls"]
            outcomes = [client(url, wire)]
            if wire in client.non_streaming:
                only_whole = dataclasses.replace(served, pieces=(b"",))
                outcomes.append(client(server.add(only_whole), wire, stream=False))
            for outcome in outcomes:
                assert outcome["error"] is None, outcome["error"]
                assert outcome["calls"] == truth["calls"]
                assert outcome["text"] == truth["text"]

"""The findings the matrix publishes about the official SDKs still hold, in CI.

openai and anthropic are the project's test dependencies, so CI can replay their saved
counterexamples through their harnesses without installing anything: each finding under
peers/findings/openai and peers/findings/anthropic must fail again, with the same outcome,
when a fresh harness process reads the same bytes cut at the same places. A finding that
stops failing means the SDK changed (or the harness did): regenerate the page with
`python peers/run.py --only NAME`.
"""
from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path

import pytest

PEERS = Path(__file__).resolve().parents[2] / "peers"
sys.path.insert(0, str(PEERS))
from matrix import catalog, findings  # noqa: E402

SDK_PEERS = ("openai", "anthropic")


def _entries() -> list:
    entries = []
    for name in SDK_PEERS:
        folder = PEERS / "findings" / name
        streams = sorted(p for p in folder.rglob("*") if p.is_file() and "__snapshots__" not in p.parts
                         and (p.suffix == findings.RAW or p.with_name(p.stem + ".meta.json").exists()))
        entries += [pytest.param(name, stream, id=f"{name}/{stream.name}") for stream in streams]
    return entries


@pytest.mark.parametrize(("name", "stream"), _entries())
def test_the_sdk_fails_its_saved_counterexample_again(name, stream, monkeypatch):
    peer = catalog.load_peer(PEERS / name)
    if version(peer.library) != peer.pinned():
        pytest.skip(f"{peer.library} {version(peer.library)} is installed; the matrix speaks of "
                    f"{peer.pinned()} (peers/{name}/requirements.txt)")
    clause, evidence = findings.evidence_of_entry(stream)
    monkeypatch.chdir(catalog.REPO)  # a peer's command runs from the repository root
    command = peer.command(python=Path(sys.executable))
    assert findings.confirm(command, clause, evidence, timeout=60.0), (
        f"{stream}: {peer.library} {peer.pinned()} no longer fails {clause} on this stream")


def test_there_are_sdk_findings_to_replay():
    assert len(_entries()) >= 2


@pytest.mark.parametrize("name", SDK_PEERS)
def test_the_test_extra_installs_the_sdk_versions_the_matrix_speaks_of(name):
    """Else CI would skip the replays above whenever the SDK publishes a release."""
    import tomllib

    peer = catalog.load_peer(PEERS / name)
    pyproject = tomllib.loads((PEERS.parent / "pyproject.toml").read_text("utf-8"))
    assert f"{peer.library}=={peer.pinned()}" in pyproject["project"]["optional-dependencies"]["test"]

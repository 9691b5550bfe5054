"""Run the bug causes' standalone repros: each exits 1 while its bug is there. A repro that
exits 0 while its cause says ✗ means the bug is gone (or the repro is wrong): the cause is
stale. CI runs the repros whose library it has installed at the version the matrix ran."""
from __future__ import annotations

import subprocess
from importlib.metadata import PackageNotFoundError, version as installed_version
from pathlib import Path

from .catalog import PEERS, REPO, load_peer
from .judging import Cause, Matrix

TIMEOUT = 120.0


def _version_of(matrix: Matrix, cause: Cause) -> str | None:
    return next((f.cell.data.get("version") for f in matrix.failures if f.cause is cause), None)


def installed(cause: Cause, version: str | None) -> bool:
    """Whether this environment has the cause's library at the version the matrix ran (a
    Python one: a Node repro needs its peer's node_modules, which CI does not install)."""
    if not cause.repro.endswith(".py") or version is None:
        return False
    try:
        return installed_version(load_peer(PEERS / cause.peer).library) == version
    except PackageNotFoundError:
        return False


def run_bug_repros(matrix: Matrix, repo: Path = REPO, *, python: str,
                   only_installed: bool = True) -> list[tuple[Cause, int, str]]:
    """(cause, exit status, output) of every bug cause's repro that can run here."""
    ran = []
    for causes in matrix.causes.values():
        for cause in causes:
            if cause.verdict != "bug" or not cause.repro or \
                    not any(f.cause is cause for f in matrix.failures):
                continue
            if only_installed and not installed(cause, _version_of(matrix, cause)):
                continue
            done = subprocess.run([python, str(repo / cause.repro)], capture_output=True,
                                  text=True, timeout=TIMEOUT, cwd=repo)
            ran.append((cause, done.returncode, done.stdout + done.stderr))
    return ran


def repro_problems(ran: list[tuple[Cause, int, str]]) -> list[str]:
    """A repro must exit 1 while its cause says ✗."""
    return [f"the repro of {cause.peer}'s cause {cause.id!r} ({cause.repro}) exits {code} "
            "while its cause says ✗: the bug is gone or the repro is wrong"
            for cause, code, _ in ran if code != 1]

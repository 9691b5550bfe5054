"""The peers: what `peers/<name>/peer.json` declares, where each one's own environment
lives under `.peers/<name>/`, how to install it, and the command that starts its harness."""
from __future__ import annotations

import filecmp
import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from mcs_conformance.wires import SERVER_PROFILES

REPO = Path(__file__).resolve().parents[2]
PEERS = REPO / "peers"
ENVS = REPO / ".peers"
WIRES = ("openai-chat", "openai-responses", "anthropic-messages", "ollama-chat", "gemini",
         "bedrock-converse")
REFERENCE = "mcs-reference"
_KEYS = ("name", "language", "library", "homepage", "wires", "harness")


def modes_of(wire: str) -> tuple[str, ...]:
    """The runs of one wire: the provider's own shape (`none`), then each server profile."""
    return ("none", *(name for name, profile in SERVER_PROFILES.items() if profile.wire == wire))


class PeerError(ValueError):
    """A peer folder that cannot be used; the message names the file and what to fix."""


@dataclass(frozen=True)
class Peer:
    """One peer as its `peer.json` declares it."""

    name: str
    language: str
    library: str
    homepage: str
    wires: tuple[str, ...]
    harness: str
    folder: Path
    libraries: dict = field(default_factory=dict)  # wire -> the package that speaks it

    def library_on(self, wire: str) -> str:
        """The package that speaks `wire` (a framework's integration per provider)."""
        return self.libraries.get(wire, self.library)

    @property
    def env(self) -> Path:
        return ENVS / self.name

    @property
    def in_project(self) -> bool:
        """A Python peer without requirements.txt runs in the runner's own environment (the
        reference: it is the project itself)."""
        return self.language == "python" and not (self.folder / "requirements.txt").exists()

    @property
    def python(self) -> Path:
        return Path(sys.executable) if self.in_project else self.env / "bin" / "python"

    def command(self, python: Path | None = None) -> str:
        """The harness command line, run from the repository root (a Python peer's under
        `python` when given, as a test runs an SDK peer in the project's environment)."""
        harness = (self.folder / self.harness).relative_to(REPO).as_posix()
        if self.language == "node":
            modules = (self.env / "node_modules").relative_to(REPO).as_posix()
            return f"env NODE_PATH={shlex.quote(modules)} node {shlex.quote(harness)}"
        if python is None:
            python = self.python if self.in_project else self.python.relative_to(REPO)
        shared = PEERS.relative_to(REPO).as_posix()  # _protocol.py, as NODE_PATH for Node
        return f"env PYTHONPATH={shlex.quote(shared)} {shlex.quote(str(python))} {shlex.quote(harness)}"

    def pinned(self, library: str | None = None) -> str:
        """The version the peer pins for its library, or for `library` (what a run will
        install)."""
        library = library or self.library
        if self.in_project:
            from importlib.metadata import version

            return version(library)
        if self.language == "node":
            manifest = json.loads((self.folder / "package.json").read_text("utf-8"))
            return str(manifest.get("dependencies", {}).get(library, "unknown"))
        requirements = self.folder / "requirements.txt"
        for line in requirements.read_text("utf-8").splitlines() if requirements.exists() else ():
            name, _, pin = line.partition("==")
            if name.split("[")[0].strip() == library:
                return pin.strip()
        return "unknown"

    def installed(self) -> bool:
        if self.in_project:
            return True
        if self.language == "node":
            return (self.env / "node_modules").is_dir() and all(
                (self.env / name).exists() and filecmp.cmp(self.env / name, self.folder / name,
                                                           shallow=False)
                for name in ("package.json", "package-lock.json"))
        return self.python.exists() and (self.env / ".requirements.txt").exists() and \
            (self.env / ".requirements.txt").read_text() == (self.folder / "requirements.txt").read_text()


def load_peer(folder: Path) -> Peer:
    path = folder / "peer.json"
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise PeerError(f"{path}: cannot read it as JSON ({exc})") from None
    missing = [key for key in _KEYS if key not in data]
    if missing:
        raise PeerError(f"{path}: missing {', '.join(missing)}; see peers/README.md")
    unknown = [wire for wire in data["wires"] if wire not in WIRES]
    if unknown or not data["wires"]:
        raise PeerError(f"{path}: wires must be some of {', '.join(WIRES)}, got {data['wires']}")
    if data["name"] != folder.name:
        raise PeerError(f"{path}: name {data['name']!r} differs from its folder {folder.name!r}")
    if data["language"] not in ("python", "node"):
        raise PeerError(f"{path}: language must be python or node, got {data['language']!r}")
    if not (folder / data["harness"]).is_file():
        raise PeerError(f"{path}: harness {data['harness']!r} is not a file in {folder}")
    return Peer(data["name"], data["language"], data["library"], data["homepage"],
                tuple(data["wires"]), data["harness"], folder, data.get("libraries", {}))


def load_peers(root: Path = PEERS) -> list[Peer]:
    """Every peer under `root`, the reference first, then by name."""
    found = [load_peer(folder) for folder in sorted(root.iterdir())
             if (folder / "peer.json").is_file()]
    return sorted(found, key=lambda peer: (peer.name != REFERENCE, peer.name))


def install(peer: Peer, log: Path) -> str | None:
    """Make the peer's environment unless it is current; None when done, else why not."""
    if peer.installed():
        return None
    log.parent.mkdir(parents=True, exist_ok=True)
    if peer.language == "node":
        peer.env.mkdir(parents=True, exist_ok=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(peer.folder / name, peer.env / name)
        steps = [["npm", "ci", "--no-audit", "--no-fund"]]
    else:
        steps = [[sys.executable, "-m", "venv", str(peer.env)],
                 [str(peer.python), "-m", "pip", "install", "-q", "-r",
                  str(peer.folder / "requirements.txt")]]
    with log.open("w") as out:
        for step in steps:
            code = subprocess.call(step, cwd=peer.env if peer.language == "node" else REPO,
                                   stdout=out, stderr=subprocess.STDOUT,
                                   env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
            if code != 0:
                return f"`{' '.join(step[:3])} ...` exited {code} (log: {log})"
    if peer.language == "python":
        shutil.copyfile(peer.folder / "requirements.txt", peer.env / ".requirements.txt")
    return None

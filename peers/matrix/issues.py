"""A ready-to-paste upstream issue text for every bug cause, beside its repro:
`peers/causes/<peer>/<cause>.issue.md`, written from the cause, its repro and what the saved
observations show, so that it never says other than the page does."""
from __future__ import annotations

from pathlib import Path

from .catalog import PEERS, REPO, load_peer
from .judging import Cause, Failure, Matrix


def issue_path(cause: Cause, repo: Path = REPO) -> Path:
    return repo / (cause.repro.rsplit(".repro.", 1)[0] + ".issue.md")


def _library(cause: Cause, failure: Failure) -> tuple[str, str]:
    """The package the failing wire goes through and its version: the cell's library, or
    for a framework with one integration per provider, that wire's package as pinned."""
    library, version = failure.cell.data.get("library", cause.peer), failure.cell.data.get("version")
    folder = PEERS / failure.cell.peer
    if (folder / "peer.json").is_file():
        peer = load_peer(folder)
        if peer.library_on(failure.cell.wire) != library:
            library = peer.library_on(failure.cell.wire)
            version = peer.pinned(library)
    return library, version


def _install(cause: Cause, failure: Failure) -> str:
    library, version = _library(cause, failure)
    if cause.repro.endswith(".mjs"):
        return f"npm install {library}@{version}\nnode {Path(cause.repro).name}"
    return f"pip install {library}=={version}\npython {Path(cause.repro).name}"


def issue_text(matrix: Matrix, cause: Cause, repo: Path = REPO) -> str:
    """The issue: title, versions, what happens, what was expected, the repro."""
    failures = [f for f in matrix.failures if f.cause is cause]
    first = failures[0]
    library, version = _library(cause, first)
    language = "javascript" if cause.repro.endswith(".mjs") else "python"
    repro = (repo / cause.repro).read_text("utf-8").rstrip("\n")
    expected = first.judgment.reason
    return "\n".join([
        f"# {library} {version}: {cause.title}", "",
        f"**Versions:** {library} {version} ({first.cell.data.get('language')}).", "",
        "**What happens.** " + cause.text, "",
        f"**What was expected, and how we know.** {expected}", "",
        f"**Where.** {cause.code}." + (f" The library's own promise: {cause.promise}."
                                       if cause.promise else ""), "",
        "**Repro** (serves the recorded bytes from a local HTTP server; exits 1 while the bug "
        "is there, 0 once fixed):", "", f"```sh\n{_install(cause, first)}\n```", "",
        f"```{language}\n{repro}\n```", "",
        "Found by the peer matrix of mcs-conformance (docs/peers.md).", ""])


def write_issues(matrix: Matrix, repo: Path = REPO) -> list[Path]:
    """Write every bug cause's issue text; the paths written."""
    written = []
    for causes in matrix.causes.values():
        for cause in causes:
            if cause.verdict != "bug" or not any(f.cause is cause for f in matrix.failures):
                continue
            if not cause.repro or not (repo / cause.repro).is_file():
                continue
            path = issue_path(cause, repo)
            path.write_text(issue_text(matrix, cause, repo), "utf-8")
            written.append(path)
    return written

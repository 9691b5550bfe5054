"""Snapshot corpora: recorded HTTP bodies replayed by `pytest --mcs-corpus=DIR`.

The format: any folder tree of raw bodies as recorded, `NAME.sse` (Server-Sent Events),
`NAME.jsonl` / `NAME.ndjson` (one JSON value per line) or `NAME.bin` (Bedrock's binary event
stream), each with an optional sidecar
`NAME.meta.json` (schema `schemas/corpus-meta.json`). Outcomes are snapshotted in
`DIR/__snapshots__/<folder>/NAME.json`. The wire is detected through the chain, so a bare folder
of captures works; the folder names are only for people.

This module also holds the plugin's corpus hooks: it finds the streams once, points pytest at
the packaged test module (one item per stream), and at the end fails the run on snapshots that
belong to no stream (syrupy cannot see them: they live in the corpus, not beside a test file).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pytest

from mcs_reference.text import TextStrategy
from mcs_conformance.base import import_object, schema, TargetError
from mcs_conformance.targets import load_strategy, missing_members

__all__ = [
    "CORPUS_KEY", "CorpusError", "CorpusRun", "Meta", "Stream", "configure", "find_streams",
    "header", "load_meta", "make_module", "session_finish", "terminal_summary",
    "unused_snapshots",
]

# Stream files by suffix, with the format a recorder saw (replays detect it from the body).
FORMATS = {".sse": "sse", ".jsonl": "ndjson", ".ndjson": "ndjson", ".bin": "eventstream"}
META_SUFFIX = ".meta.json"
SNAPSHOTS = "__snapshots__"
META_SCHEMA = "corpus-meta.json"
_META_FIELDS = ("source", "shows", "wire", "strategy", "codec")
_SKIPPED_DIRS = (SNAPSHOTS, "__pycache__", "node_modules")


class CorpusError(Exception):
    """Raised when a corpus folder or a sidecar cannot be used; the message names the file."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class Stream:
    """One recorded body in a corpus."""

    root: Path
    path: Path

    @property
    def id(self) -> str:
        """The path inside the corpus, with `/` (the pytest id and the snapshot's `stream`)."""
        return self.path.relative_to(self.root).as_posix()

    @property
    def meta_path(self) -> Path:
        return self.path.with_name(self.path.stem + META_SUFFIX)

    @property
    def snapshot_path(self) -> Path:
        relative = self.path.relative_to(self.root)
        return self.root / SNAPSHOTS / relative.parent / (relative.stem + ".json")


def _walk(root: Path) -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        found += [Path(folder) / name for name in files if not name.startswith(".")]
    return sorted(found)


def find_streams(root: Path) -> list[Stream]:
    """Every recorded body under `root`, sorted; raises `CorpusError` for an ambiguous corpus."""
    files = _walk(root)
    streams = [Stream(root, path) for path in files if path.suffix in FORMATS]
    by_snapshot: dict[Path, Stream] = {}
    for stream in streams:
        other = by_snapshot.setdefault(stream.snapshot_path, stream)
        if other is not stream:
            raise CorpusError(
                other.path, f"it and {stream.path.name} would share one snapshot; rename one of "
                "them (a stream is named by its path without the extension)"
            )
    stems = {stream.path.with_suffix("") for stream in streams}
    for path in files:
        name = path.name[: -len(META_SUFFIX)]
        if path.name.endswith(META_SUFFIX) and path.with_name(name or "_") not in stems:
            raise CorpusError(
                path, f"sidecar of no stream (expected {name}.sse, .jsonl, .ndjson or .bin beside it); "
                "rename or remove it"
            )
    return streams


# -- sidecars -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Meta:
    """A stream's sidecar, validated; `front` makes the strategies it puts before the chain."""

    path: Path
    source: str | None = None
    shows: str | None = None
    wire: str | None = None
    strategy: str | None = None
    codec: str | None = None
    extra: dict = field(default_factory=dict)

    def front(self) -> list[Callable[[], Any]]:
        """Factories of the strategies this sidecar puts in front of the chain (maybe none)."""
        if self.strategy is None and self.codec is None:
            return []
        try:
            return [self._factory()]
        except TargetError as exc:
            raise CorpusError(self.path, str(exc)) from None

    def _factory(self) -> Callable[[], Any]:
        if self.codec is None:
            return load_strategy(self.strategy).make  # type: ignore[arg-type]
        codec = _codec(self.codec)
        if self.strategy is None:
            build: Any = TextStrategy
            spec = f"mcs_reference:TextStrategy({self.codec})"
        else:
            build = import_object(self.strategy)
            spec = f"{self.strategy}({self.codec})"
        try:
            made = build(codec)
        except Exception as exc:
            raise TargetError(
                f"{spec}: calling it with the codec raised {type(exc).__name__}: {exc}") from None
        missing = missing_members(made)
        if missing:
            raise TargetError(f"{spec}: not an extraction strategy (missing {', '.join(missing)})")
        return lambda: build(codec)


def _codec(spec: str) -> Any:
    codec = import_object(spec)
    if isinstance(codec, type) or (not hasattr(codec, "decode") and callable(codec)):
        try:
            codec = codec()
        except Exception as exc:
            raise TargetError(f"{spec}: calling it raised {type(exc).__name__}: {exc}") from None
    if not hasattr(codec, "decode"):
        raise TargetError(f"{spec}: not a text codec (it has no decode)")
    return codec


def load_meta(stream: Stream) -> Meta | None:
    """The stream's sidecar, or None; raises `CorpusError` naming the file when it is invalid."""
    path = stream.meta_path
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorpusError(path, f"not JSON ({exc})") from None
    problems = schema.errors(data, META_SCHEMA)
    if isinstance(data, dict):
        unknown = [key for key in data if key not in _META_FIELDS and not key.startswith("x-")]
        problems = [p for p in problems if "does not match any of the regexes" not in p]
        problems += [f"unknown field {key!r} (known: {', '.join(_META_FIELDS)}; fields of "
                     "your own start with x-)" for key in unknown]
    if problems:
        raise CorpusError(
            path, f"invalid corpus metadata ({'; '.join(problems)}); "
            f"see the schema mcs_conformance/schemas/{META_SCHEMA}"
        )
    known = {key: data[key] for key in _META_FIELDS if key in data}
    extra = {key: value for key, value in data.items() if key not in known}
    return Meta(path=path, extra=extra, **known)


# -- snapshots that belong to no stream ----------------------------------------------------------
def is_outcome_file(path: Path) -> bool:
    """Is this a snapshot the runner wrote (a JSON object naming its stream)?"""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return isinstance(data, dict) and isinstance(data.get("stream"), str) and "message" in data


def unused_snapshots(root: Path, streams: list[Stream]) -> list[Path]:
    """Outcome snapshots under `root/__snapshots__` whose stream is gone or renamed.

    Only files the runner wrote are considered, so a corpus kept inside a test folder never
    loses the snapshots of ordinary tests.
    """
    folder = root / SNAPSHOTS
    if not folder.is_dir():
        return []
    expected = {stream.snapshot_path for stream in streams}
    return [
        Path(dirpath) / name
        for dirpath, _, names in sorted(os.walk(folder))
        for name in sorted(names)
        if name.endswith(".json") and Path(dirpath) / name not in expected
        and is_outcome_file(Path(dirpath) / name)
    ]


# -- the plugin's corpus hooks -----------------------------------------------------------------
@dataclass
class CorpusRun:
    """What a corpus run found, kept in `config.stash` for the test module and the hooks."""

    root: Path
    streams: list[Stream]
    fronts: tuple = ()  # --mcs-strategy factories, in front of every stream's chain
    targets: tuple[str, ...] = ()
    unused: list[Path] = field(default_factory=list)
    deleted: list[Path] = field(default_factory=list)


CORPUS_KEY = pytest.StashKey[CorpusRun]()
TEST_MODULE = Path(__file__).with_name("_corpus_tests.py")


def configure(config: pytest.Config, settings: Any) -> None:
    """Find the streams and collect the packaged test module (only it, unless paths were typed)."""
    root = Path(config.invocation_params.dir, settings.corpus).resolve()
    try:
        streams = find_streams(root)
    except CorpusError as exc:
        raise pytest.UsageError(f"--mcs-corpus: {exc}") from None
    if not streams:
        raise pytest.UsageError(
            f"--mcs-corpus={settings.corpus}: no recorded streams (.sse, .jsonl, .ndjson or .bin files) "
            "in that folder; `mcs-conformance record BODY --corpus DIR` adds one"
        )
    config.stash[CORPUS_KEY] = CorpusRun(
        root=root, streams=streams,
        fronts=tuple(loaded.make for loaded in settings.strategies),
        targets=tuple(loaded.target for loaded in settings.strategies),
    )
    module = str(TEST_MODULE)
    if module in config.args:
        return
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        config.args.append(module)
    else:  # `pytest --mcs-corpus=DIR` alone runs the corpus, not the project's tests
        config.args[:] = [module]


def make_module(module_path: Path, parent: Any) -> Any:
    """The packaged test module, with the corpus as its node id (`corpora::test_stream[...]`)."""
    run = parent.config.stash.get(CORPUS_KEY, None)
    if run is None or module_path != TEST_MODULE:
        return None
    try:
        shown = run.root.relative_to(parent.config.rootpath).as_posix()
    except ValueError:
        shown = run.root.as_posix()
    return pytest.Module.from_parent(parent, path=module_path, nodeid=shown or ".")


def header(config: pytest.Config) -> list[str]:
    """The report header's line: which corpus replays, through which chain."""
    run = config.stash.get(CORPUS_KEY, None)
    if run is None:
        return []
    chain = "the default chain"
    if run.targets:
        chain = f"{', '.join(run.targets)} in front of the default chain"
    return [f"mcs-conformance: replaying corpus {run.root} ({len(run.streams)} streams) through {chain}"]


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def session_finish(session: pytest.Session) -> None:
    """Fail the run on unused outcome snapshots; `--snapshot-update` deletes them instead."""
    config = session.config
    run = config.stash.get(CORPUS_KEY, None)
    if run is None or _is_worker(config) or getattr(config.option, "disable_unused_snapshots", False):
        return
    unused = unused_snapshots(run.root, run.streams)
    if not unused:
        return
    option = config.option
    if getattr(option, "update_snapshots", False) and not getattr(option, "no_cleanup", False):
        for path in unused:
            path.unlink()
            _prune(path.parent, run.root / SNAPSHOTS)
        run.deleted = unused
        return
    run.unused = unused
    if not getattr(option, "warn_unused_snapshots", False) and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _prune(folder: Path, top: Path) -> None:
    """Remove folders left empty under `top` (not `top` itself)."""
    while folder != top and top in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


def terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """Say which unused snapshots failed the run (or were deleted by --snapshot-update)."""
    run = config.stash.get(CORPUS_KEY, None)
    if run is None or not (run.unused or run.deleted):
        return
    write = terminalreporter.write_line
    if run.deleted:
        terminalreporter.section("mcs-conformance corpus", sep="-")
        write(f"deleted {len(run.deleted)} unused corpus snapshot(s):")
        for path in run.deleted:
            write(f"  {path}")
        return
    warn_only = getattr(config.option, "warn_unused_snapshots", False)
    terminalreporter.section("mcs-conformance corpus", sep="-", red=not warn_only)
    write(f"{len(run.unused)} unused corpus snapshot(s), belonging to no stream in {run.root}:")
    for path in run.unused:
        write(f"  {path}")
    write("delete them with --snapshot-update (or restore their streams)")

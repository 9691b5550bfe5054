"""The corpus runner's tests: one per recorded stream, collected only with `--mcs-corpus=DIR`.

Each test replays its stream, compares the outcome with the syrupy JSON snapshot kept in the
corpus (`DIR/__snapshots__/<folder>/<name>.json`), then checks that re-chunked replays give
the same outcome. The plugin adds this module to the run; its name keeps pytest from
collecting it anywhere else.
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import pytest
from syrupy.data import SnapshotCollections
from syrupy.extensions.json import JSONSnapshotExtension

from mcs_reference.chain import default_chain, ExtractionChain
from mcs_conformance.corpora._corpus import CORPUS_KEY, CorpusError, CorpusRun, load_meta, Stream
from mcs_conformance.corpora._replay import replay, wire_labels


class CorpusSnapshot(JSONSnapshotExtension):
    """A JSON snapshot stored in the corpus, named after its stream rather than the test.

    Discovery is turned off: syrupy relates snapshot files to test files, which these are
    not; the corpus hooks find unused snapshots instead.
    """

    @staticmethod
    def _stream(test_location: Any) -> Stream | None:
        """The item's stream; None for other items, which syrupy also shows this extension."""
        callspec = getattr(test_location.item, "callspec", None)
        return callspec.params.get("mcs_stream") if callspec is not None else None

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        stream = cls._stream(test_location)
        if stream is None:
            return super().dirname(test_location=test_location)
        return str(stream.snapshot_path.parent)

    @classmethod
    def get_file_basename(cls, *, test_location: Any, index: Any) -> str:
        stream = cls._stream(test_location)
        if stream is None:
            return super().get_file_basename(test_location=test_location, index=index)
        return stream.snapshot_path.stem

    @classmethod
    def matches_test_location(cls, *, test_location: Any, snapshot_location: str) -> bool:
        stream = cls._stream(test_location)
        return stream is not None and snapshot_location == str(stream.snapshot_path)

    def discover_snapshots(self, *, test_location: Any,
                           ignore_extensions: Any = None) -> SnapshotCollections:
        return SnapshotCollections()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "mcs_stream" in metafunc.fixturenames:
        run = metafunc.config.stash.get(CORPUS_KEY, None)
        streams = run.streams if run is not None else []
        metafunc.parametrize("mcs_stream", streams, ids=[stream.id for stream in streams])


def _shown(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.invocation_params.dir))
    except ValueError:
        return str(path)


def _diff(path: Path, new: str, limit: int = 80) -> list[str]:
    try:
        old = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return [f"(the snapshot cannot be read: {exc})"]
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), "snapshot", "outcome",
                                      lineterm="", n=2))
    return lines if len(lines) <= limit else lines[:limit] + [f"... ({len(lines) - limit} more lines)"]


def test_stream(mcs_stream: Stream, snapshot: Any, request: pytest.FixtureRequest) -> None:
    config = request.config
    run: CorpusRun = config.stash[CORPUS_KEY]
    try:
        meta = load_meta(mcs_stream)
        fronts = list(run.fronts) + (meta.front() if meta is not None else [])
    except CorpusError as exc:
        problem = f"corpus metadata error: {_shown(exc.path, config)}: {exc.reason}"
    else:
        problem = None
    if problem is not None:
        pytest.fail(problem, pytrace=False)


    def make_chain() -> ExtractionChain:
        return ExtractionChain([make() for make in fronts] + list(default_chain()))

    result, mismatches = replay(mcs_stream.id, mcs_stream.path.read_bytes(), make_chain)
    problems: list[str] = []
    if meta is not None and meta.wire is not None:
        labels = wire_labels(result, make_chain)
        if meta.wire not in labels:
            read = " or ".join(sorted(labels)) or "no wire (no chunk)"
            problems.append(f"{_shown(meta.path, config)} says wire {meta.wire!r}, "
                            f"but the stream was read as {read}")
    if not snapshot.use_extension(CorpusSnapshot) == result:
        where = _shown(mcs_stream.snapshot_path, config)
        if mcs_stream.snapshot_path.exists():
            problems.append(f"the outcome differs from its snapshot {where} "
                            "(accept the change with --snapshot-update):")
            problems += _diff(mcs_stream.snapshot_path, CorpusSnapshot().serialize(result))
        else:
            problems.append(f"no snapshot {where}: create it with --snapshot-update")
    for mismatch in mismatches:
        problems += mismatch.lines()
    if problems:
        head = f"corpus stream {_shown(mcs_stream.path, config)} (wire {result.get('wire')})"
        pytest.fail("\n".join([head, *problems]), pytrace=False)

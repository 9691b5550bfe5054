"""What the running clause has done so far (examples run, examples failed), wherever it runs.

In `certify`'s own process the clause runner's counters are read directly (`HereCounts`).
Under `--jobs` the clauses run in pytest-xdist workers, and xdist carries no event of a
plugin's own: this module is then also loaded into each worker (`-p`), where it keeps the
counts of the worker's running clause in a small file of a folder the controller names
(`FOLDER_KEY` in the worker's input), and the controller reads them back (`WorkerCounts`).
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from mcs_conformance.clauses import CLAUSES, examples_failed, examples_run

__all__ = ["FOLDER_KEY", "HereCounts", "WorkerCounts", "clause_of"]

FOLDER_KEY = "mcs_progress"  # the worker input naming the folder of the workers' count files
EVERY = 0.25  # seconds between two looks at a worker's counts

Counts = tuple[int, int]  # examples run, examples failed


def clause_of(nodeid: str) -> str | None:
    """The clause id of a clause item's node id (`mcs[pkg:Obj]::reassembly.done`)."""
    clause = nodeid.rpartition("::")[2]
    return clause if clause in CLAUSES else None


class HereCounts:
    """The counts of the clause running in this process, since it started."""

    def __init__(self) -> None:
        self.current: tuple[str | None, int, int] = (None, 0, 0)  # swapped whole: read by a thread

    def started(self, clause: str) -> None:
        self.current = (clause, examples_run(), examples_failed())

    def counts(self, clause: str) -> Counts | None:
        running, examples, failed = self.current
        if running != clause:
            return None
        return examples_run() - examples, examples_failed() - failed


class WorkerCounts:
    """The counts the workers keep in `folder`, one file a worker."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def started(self, clause: str) -> None:
        """Nothing to do: the worker running `clause` counts from its start."""

    def counts(self, clause: str) -> Counts | None:
        for path in self.folder.glob("*.json"):
            try:
                running, examples, failed = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):  # being replaced, or not written yet
                continue
            if running == clause:
                return examples, failed
        return None


class _Relay:
    """In a worker: writes the running clause's counts to `path` whenever they move."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.here = HereCounts()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="mcs-counts", daemon=True)
        self.thread.start()

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        clause = clause_of(nodeid)
        if clause is not None:
            self.here.started(clause)

    def pytest_unconfigure(self) -> None:
        self.stop.set()
        self.thread.join()

    def _loop(self) -> None:
        written = None
        while not self.stop.wait(EVERY):
            clause = self.here.current[0]
            counts = self.here.counts(clause) if clause is not None else None
            if counts is None or [clause, *counts] == written:
                continue
            written = [clause, *counts]
            fresh = self.path.with_name(self.path.name + ".new")
            try:  # replaced whole: the controller never reads half a file
                fresh.write_text(json.dumps(written), "utf-8")
                os.replace(fresh, self.path)
            except OSError:  # progress only: the clause goes on
                pass


def pytest_configure(config: pytest.Config) -> None:
    """In a worker of a `certify --jobs` run, start keeping the counts; elsewhere, nothing."""
    folder = getattr(config, "workerinput", {}).get(FOLDER_KEY)
    if folder is not None:
        path = Path(folder) / f"{config.workerinput['workerid']}.json"
        config.pluginmanager.register(_Relay(path), "mcs-certify-counts")

"""`mcs-conformance certify`: run the clause catalogue on one strategy and build its `Report`.

The run is an ordinary pytest session driven by the kit's own plugin (so certify and
`pytest --mcs-strategy` can never disagree); a small collector turns the test reports,
which carry each clause's verdict in `user_properties`, into report lines.
"""
from __future__ import annotations

import argparse
import gc
import importlib.util
import io
import json
import platform
import sys
import tempfile
import time
from contextlib import redirect_stdout
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path
from typing import Any, TextIO

import hypothesis
import pytest

from . import schema
from .clauses import CLAUSES
from .render import badge, junit_xml, summary_markdown
from .report import VERDICTS, ClauseResult, Header, Report
from .targets import TargetError, load_client, load_harness, load_strategy, load_wire
from .database import example_database
from .settings import quirks_label, target_option
from .shards import parse_shard
from .wires import wire_for_strategy
from .wires.quirks import parse_quirks


class UsageProblem(ValueError):
    """Raised for anything the user must fix before a certification can run (exit status 2)."""


@dataclass(frozen=True)
class Request:
    target: str
    wire: str | None = None
    profile: str = "ci"
    seed: int = 0
    baseline: Path | None = None
    jobs: int | None = None
    clauses: tuple[str, ...] = ()  # narrow the run to these clause ids (all when empty)
    quirks: str = "all"  # none, all or quirk names separated by commas (docs/quirks.md)
    kind: str = "strategy"  # what `target` names: strategy (pkg:Obj), client (pkg:fn), harness (CMD)
    shard: str | None = None  # "I/N": run shard I of N of the selected clauses
    database: str | None = None  # Hypothesis' example database: a folder, or pkg.module:OBJ


def read_baseline(path: Path) -> tuple[str, ...]:
    """The clause ids a baseline file accepts as failing; unknown ids are a usage problem."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise UsageProblem(f"--baseline {path}: cannot read it ({exc.strerror})") from None
    except ValueError as exc:
        raise UsageProblem(f"--baseline {path}: not JSON ({exc})") from None
    problems = schema.errors(data, "baseline.json")
    if problems:
        raise UsageProblem(f"--baseline {path}: {problems[0]}; expected {{\"expected_failures\": [clause ids]}}")
    unknown = [c for c in data["expected_failures"] if c not in CLAUSES]
    if unknown:
        raise UsageProblem(f"--baseline {path}: unknown clause id(s) {', '.join(unknown)}")
    return tuple(data["expected_failures"])


def check_request(request: Request) -> tuple[Any, Any]:
    """Load the target and its wire now, so a bad one is one line and exit 2, not a test run."""
    unknown = [c for c in request.clauses if c not in CLAUSES]
    if unknown:
        raise UsageProblem(f"--clause {unknown[0]}: no such clause; see `mcs-conformance clauses`")
    if request.seed < 0:
        raise UsageProblem(f"--seed {request.seed}: expected a non-negative integer")
    try:
        parse_quirks(request.quirks)
    except ValueError as exc:
        raise UsageProblem(f"--quirks {request.quirks}: {exc}") from None
    if request.shard is not None:
        try:
            parse_shard(request.shard)
        except ValueError as exc:
            raise UsageProblem(f"--shard {request.shard}: {exc}") from None
    if request.database is not None:
        try:
            example_database(request.database, f"--database {request.database}")
        except argparse.ArgumentTypeError as exc:
            raise UsageProblem(str(exc)) from None
    if request.jobs and importlib.util.find_spec("xdist") is None:
        raise UsageProblem("--jobs needs pytest-xdist: pip install pytest-xdist")
    if request.kind != "strategy":
        return _check_client(request)
    if request.clauses and all(CLAUSES[c].kind == "client" for c in request.clauses):
        raise UsageProblem(f"--clause {request.clauses[0]}: a client clause; it does not apply "
                           f"to the strategy {request.target} (certify a client with --client)")
    try:
        loaded = load_strategy(request.target)
        wire = load_wire(request.wire) if request.wire else wire_for_strategy(loaded.strategy)
    except TargetError as exc:
        raise UsageProblem(str(exc)) from None
    if wire is None:
        name = getattr(loaded.strategy, "name", "?")
        raise UsageProblem(
            f"{request.target}: no built-in wire for a strategy named {name!r}; pass --wire NAME|pkg:Obj"
        )
    return loaded, wire


def _check_client(request: Request) -> tuple[Any, Any]:
    """Load a client or a harness (which must start and answer), and check its wire and
    clause selection."""
    from .clauses._run import NATIVE_WIRES

    option = f"--{request.kind}"
    if request.wire not in NATIVE_WIRES:
        given = f"--wire {request.wire}" if request.wire else "no --wire"
        raise UsageProblem(f"{option} {request.target}: {given}; a client is certified on one "
                           f"of {', '.join(NATIVE_WIRES)} (pass --wire NAME)")
    if request.clauses and not any(CLAUSES[c].kind == "client" for c in request.clauses):
        raise UsageProblem(f"--clause {request.clauses[0]}: selects no client clause for "
                           f"{option} {request.target}; client clauses are client.* "
                           "(`mcs-conformance clauses`)")
    try:
        loaded = (load_harness if request.kind == "harness" else load_client)(request.target)
    except TargetError as exc:
        raise UsageProblem(str(exc)) from None
    if request.kind == "harness":  # it must start and answer `start` before a run begins
        try:
            client = loaded.open(30.0)
        except Exception as exc:
            raise UsageProblem(f"{option} {request.target}: {exc}") from None
        implementation = getattr(client, "implementation", None)
        client.close()
        return (loaded, implementation if isinstance(implementation, dict) else None), \
            load_wire(request.wire)
    return (loaded, None), load_wire(request.wire)


class _Collector:
    """pytest plugin object: one `ClauseResult` per clause item, with progress on a terminal."""

    def __init__(self, progress: TextIO | None, rerun: str):
        self.results: dict[str, ClauseResult] = {}
        self.progress = progress
        self.rerun = rerun  # the reproduce command when the item could not say (setup errors)
        self.total = 0
        self.usage_error: str | None = None  # a client that returned no outcome

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.total = len(session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if props.get("mcs_usage_error") and self.usage_error is None:
            self.usage_error = props["mcs_usage_error"]
        clause_id = props.get("mcs_clause")
        if clause_id is None or report.when != "call" and report.passed:
            return
        if report.when != "call" and clause_id in self.results:
            return
        verdict = props.get("mcs_verdict") or ("errored" if report.failed else report.outcome)
        reason = props.get("mcs_reason")
        if verdict == "skipped" and reason is None and isinstance(report.longrepr, tuple):
            reason = report.longrepr[2].removeprefix("Skipped: ")
        if verdict == "errored" and reason is None:  # it broke outside the clause's own check
            last = (report.longreprtext.strip().splitlines() or ["no details"])[-1]
            reason = f"the run broke during {report.when}: {last}"
        reproduce = props.get("mcs_reproduce")
        if verdict in ("failed", "errored") and reproduce is None:
            reproduce = f"{self.rerun} --mcs-clause={clause_id}"
        clause = CLAUSES[clause_id]
        self.results[clause_id] = ClauseResult(
            clause=clause_id, level=clause.level, meaning=clause.meaning, verdict=verdict,
            seconds=report.duration, examples=props.get("mcs_examples"), reason=reason, counterexample=props.get("mcs_case"),
            reproduce=reproduce,
        )
        if self.progress is not None:
            counts = {v: sum(r.verdict == v for r in self.results.values()) for v in VERDICTS}
            tally = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
            self.progress.write(f"[{len(self.results)}/{self.total}] {clause_id}: {verdict} ({tally})\n")
            self.progress.flush()


#: pytest's own plugins a certification has no use for (its items take no fixtures, read no
#: files and write their own reports), left out as installed ones are: unraisableexception
#: alone ran two full garbage collections at the end, about 0.03 s.
_UNNEEDED_PLUGINS = [arg for name in (
    "cacheprovider", "unraisableexception", "threadexception", "doctest", "pastebin",
    "stepwise", "setuponly", "setupplan", "junitxml", "legacypath", "tmpdir", "monkeypatch",
    "recwarn", "subtests") for arg in ("-p", f"no:{name}")]


def run(request: Request, *, progress: TextIO | None = None) -> Report:
    """Certify `request.target`; returns the report (writes nothing)."""
    loaded, wire = check_request(request)
    baseline = read_baseline(request.baseline) if request.baseline else None
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    options = [f"--mcs-profile={request.profile}", f"--mcs-seed={request.seed}"]
    quirks = quirks_label(parse_quirks(request.quirks))
    if quirks != "all":
        options.append(f"--mcs-quirks={quirks}")
    if request.wire:
        options.append(f"--mcs-wire={request.wire}")
    if request.database is not None:
        options.append(f"--mcs-database={request.database}")
    kind = "client" if request.kind != "strategy" else "strategy"
    selected = request.clauses or tuple(c.id for c in CLAUSES.values() if c.kind == kind)
    if request.shard is not None:
        shard = parse_shard(request.shard)
        options.append(f"--mcs-shard={shard}")
        selected = shard.select(selected)
    shown = target_option(loaded[0] if request.kind != "strategy" else loaded)
    collector = _Collector(progress, " ".join(["pytest", shown, *options]))
    options.insert(0, f"--mcs-{request.kind}={request.target}")  # argv: no shell quoting
    if progress is not None:
        label = request.target if kind == "strategy" else f"{request.kind} {request.target}"
        share = f" (shard {request.shard})" if request.shard else ""
        progress.write(f"certifying {label} on wire {wire.name}: "
                       f"{len(selected)} clauses{share}, "
                       f"profile {request.profile}, seed {request.seed}, quirks {quirks}\n")
    profile = hypothesis.settings.get_current_profile_name()
    with tempfile.TemporaryDirectory(prefix="mcs-certify-") as empty:
        Path(empty, "pytest.ini").write_text("[pytest]\n", "utf-8")
        # Only the plugins a certification needs: another installed plugin could reorder or
        # reseed the clauses, and loading them all took 0.3 s, as long as two clauses run.
        args = [empty, "-c", str(Path(empty, "pytest.ini")), "--rootdir", empty,
                "--disable-plugin-autoload", "-p", "mcs_conformance.plugin",
                *_UNNEEDED_PLUGINS, "-q", *options]
        args += [f"--mcs-clause={c}" for c in request.clauses]
        if request.jobs:
            args += ["-p", "xdist.plugin", "-n", str(request.jobs)]
        clock = time.perf_counter()
        # What is loaded by now (the kit, Hypothesis, pytest) outlives the run: frozen, the
        # collector stops walking it in each full collection of the run (about 3% of it).
        # A caller that froze objects of its own is left as it was.
        freeze = gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        try:
            with redirect_stdout(io.StringIO()) as output:
                code = pytest.main(args, plugins=[collector])
        finally:  # the plugin loads its profile globally; leave the caller's as it was
            if freeze:
                gc.unfreeze()
            hypothesis.settings.load_profile(profile)
        seconds = time.perf_counter() - clock
    if collector.usage_error is not None:
        raise UsageProblem(collector.usage_error)
    if (code not in (0, 1) or not collector.results) and selected:  # a shard may hold no clause
        raise RuntimeError(f"the certification run ended with pytest exit status {code}:\n{output.getvalue()[-3000:]}")
    accepted = set(baseline or ())
    results = tuple(
        ClauseResult(**{**vars(r), "expected_failure": r.bad and r.clause in accepted})
        for r in (collector.results[c] for c in CLAUSES if c in collector.results)
    )
    if request.kind == "strategy":
        name, implementation = str(getattr(loaded.strategy, "name", "?")), None
    else:
        implementation = loaded[1]
        name = str((implementation or {}).get("name") or request.target)
    header = Header(
        target=request.target, strategy=name, wire=wire.name,
        profile=request.profile, seed=request.seed, started=started,
        version=version("mcs-conformance"), python=platform.python_version(),
        hypothesis=hypothesis.__version__, platform=platform.platform(terse=True), baseline=baseline,
        clauses=tuple(request.clauses) or None, quirks=quirks, target_kind=request.kind,
        implementation=implementation,
        shard=str(shard) if request.shard is not None else None,
    )
    return Report(header, results, seconds)


def write(report: Report, out: Path) -> dict[str, Path]:
    """Write the four report files into `out`; the jsonl is validated line by line first."""
    out.mkdir(parents=True, exist_ok=True)
    lines = report.serialized()
    files = {
        "report.jsonl": "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines),
        "summary.md": summary_markdown(report),
        "junit.xml": junit_xml(report),
        "badge.json": json.dumps(badge(report), indent=2) + "\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = out / name
        # A lone surrogate in a counterexample becomes a `\\udXXX` escape: valid JSON, valid UTF-8.
        paths[name].write_bytes(text.encode("utf-8", "backslashreplace"))
    return paths


def progress_stream() -> TextIO | None:
    """Progress goes to a terminal only; CI logs stay quiet."""
    return sys.stderr if sys.stderr.isatty() else None

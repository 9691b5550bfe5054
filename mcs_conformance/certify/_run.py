"""`mcs-conformance certify`: run the clause catalogue on one strategy and build its `Report`.

The run is an ordinary pytest session driven by the kit's own plugin (so certify and
`pytest --mcs-strategy` can never disagree); a small collector turns the test reports,
which carry each clause's verdict in `user_properties`, into report lines.
"""
from __future__ import annotations

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
from typing import TextIO

import hypothesis
import pytest

from mcs_conformance.base import TargetError, schema
from mcs_conformance.certify._counts import FOLDER_KEY, HereCounts, WorkerCounts, clause_of
from mcs_conformance.certify._render import badge, junit_xml, summary_markdown
from mcs_conformance.certify._report import ClauseResult, Header, Report
from mcs_conformance.certify._talk import Talk
from mcs_conformance.clauses import CLAUSES
from mcs_conformance.plugin import (SETTINGS_KEY, McsSettings, OptionError, build_settings,
                                    command_spelling)

__all__ = ["Request", "UsageProblem", "progress_stream", "read_baseline", "run", "settings_for",
           "write"]


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
    strict: bool = False  # a client's strictness and fidelity failures refuse it too
    server: str | None = None  # a server profile: its quirks drawn often (docs/quirks.md)
    format: str | None = None  # the model-output format a parser is certified on


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


def settings_for(request: Request) -> McsSettings:
    """The run's settings, built once through the plugin's own option checks: a bad target,
    wire or option is one line and exit 2, not a test run. The target is loaded here, once."""
    targets = {"strategy": (), "client": (), "harness": (), "parser": ()}
    targets[request.kind] = (request.target,)
    try:
        settings = build_settings(
            command_spelling, strategies=targets["strategy"], clients=targets["client"],
            harnesses=targets["harness"], wire_spec=request.wire, profile=request.profile,
            seed_value=str(request.seed), clauses=request.clauses, quirks_value=request.quirks,
            shard_value=request.shard, database_value=request.database,
            strict=request.strict, server_value=request.server,
            parser_specs=targets["parser"], format_value=request.format)
    except (OptionError, TargetError) as exc:
        raise UsageProblem(str(exc)) from None
    if request.jobs and importlib.util.find_spec("xdist") is None:
        raise UsageProblem("--jobs needs pytest-xdist: pip install pytest-xdist")
    return settings


class _Collector:
    """pytest plugin object: one `ClauseResult` per clause item, told to `talk` as it comes."""

    def __init__(self, settings: McsSettings, talk: Talk | None, rerun: str,
                 counts_folder: Path | None):
        self.settings = settings
        self.results: dict[str, ClauseResult] = {}
        self.talk = talk
        self.rerun = rerun  # the reproduce command when the item could not say (setup errors)
        self.counts_folder = counts_folder  # where --jobs workers keep their counts
        self.usage_error: str | None = None  # a client that returned no outcome
        self.start_error: str | None = None  # a harness that could not be started
        self.implementation: dict | None = None  # what a harness said it runs

    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config: pytest.Config) -> None:
        """Hand the plugin the settings built here, before it configures: the target is
        loaded once."""
        config.stash[SETTINGS_KEY] = self.settings

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node) -> None:  # pytest-xdist: where workers keep counts
        if self.counts_folder is not None:
            node.workerinput[FOLDER_KEY] = str(self.counts_folder)

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        clause = clause_of(nodeid)
        if self.talk is not None and clause is not None:
            self.talk.started(clause)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        clause = clause_of(nodeid)
        if self.talk is not None and clause is not None:
            self.talk.finished(clause)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        if props.get("mcs_usage_error") and self.usage_error is None:
            self.usage_error = props["mcs_usage_error"]
        if props.get("mcs_start_error") and self.start_error is None:
            self.start_error = props["mcs_start_error"]
        if props.get("mcs_implementation") and self.implementation is None:
            self.implementation = props["mcs_implementation"]
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
            reproduce=reproduce, severity=props.get("mcs_severity"),
            more_failures=props.get("mcs_more_failures"),
        )
        if self.talk is not None:
            self.talk.ended(self.results[clause_id])


#: pytest's own plugins a certification has no use for (its items take no fixtures, read no
#: files and write their own reports), left out as installed ones are: unraisableexception
#: alone ran two full garbage collections at the end, about 0.03 s.
_UNNEEDED_PLUGINS = [arg for name in (
    "cacheprovider", "unraisableexception", "threadexception", "doctest", "pastebin",
    "stepwise", "setuponly", "setupplan", "junitxml", "legacypath", "tmpdir", "monkeypatch",
    "recwarn", "subtests") for arg in ("-p", f"no:{name}")]


def run(request: Request, *, progress: TextIO | None = None) -> Report:
    """Certify `request.target`; returns the report (writes no file). Given a `progress`
    stream, says there how far it is as it goes: live on a terminal, a line a clause in a log."""
    settings = settings_for(request)
    loaded = settings.targets[0]
    parsing = request.kind == "parser"
    wire_name = request.format if parsing else (settings.wire or settings.strategy_wire(loaded)).name
    baseline = read_baseline(request.baseline) if request.baseline else None
    started = datetime.now(timezone.utc).isoformat(timespec="seconds")
    options = [f"--mcs-profile={request.profile}", f"--mcs-seed={request.seed}"]
    quirks = settings.quirks_label
    if settings.server is not None:
        options.append(f"--mcs-server={settings.server.name}")
    elif quirks != "all":
        options.append(f"--mcs-quirks={quirks}")
    if request.wire:
        options.append(f"--mcs-wire={request.wire}")
    if request.database is not None:
        options.append(f"--mcs-database={request.database}")
    if request.strict:
        options.append("--mcs-strict")
    kind = request.kind if request.kind in ("strategy", "parser") else "client"
    selected = request.clauses or tuple(c.id for c in CLAUSES.values() if c.kind == kind)
    if settings.shard is not None:
        options.append(f"--mcs-shard={settings.shard}")
        selected = settings.shard.select(selected)
    rerun = " ".join(["pytest", loaded.option, *options])
    options.insert(0, f"--mcs-{request.kind}={request.target}")  # argv: no shell quoting
    if parsing:
        options.insert(1, f"--mcs-format={request.format}")
    profile = hypothesis.settings.get_current_profile_name()
    with tempfile.TemporaryDirectory(prefix="mcs-certify-") as empty:
        Path(empty, "pytest.ini").write_text("[pytest]\n", "utf-8")
        # Only the plugins a certification needs: another installed plugin could reorder or
        # reseed the clauses, and loading them all took 0.3 s, as long as two clauses run.
        args = [empty, "-c", str(Path(empty, "pytest.ini")), "--rootdir", empty,
                "--disable-plugin-autoload", "-p", "mcs_conformance.plugin",
                *_UNNEEDED_PLUGINS, "-q"]
        counts_folder = None  # under --jobs and talking: where the workers keep their counts
        if request.jobs:  # each worker is a process of its own: it reads the options again
            args += [*options, *(f"--mcs-clause={c}" for c in request.clauses),
                     "-p", "xdist.plugin", "-n", str(request.jobs)]
            if progress is not None:
                counts_folder = Path(empty, ".counts")  # a dot: pytest collects nothing there
                counts_folder.mkdir()
                args += ["-p", "mcs_conformance.certify._counts"]
        talk = None
        if progress is not None:
            source = HereCounts() if counts_folder is None else WorkerCounts(counts_folder)
            talk = Talk(progress, total=len(selected), source=source)
            talk.say(_announcement(request, settings, len(selected), wire_name))
        collector = _Collector(settings, talk, rerun, counts_folder)
        clock = time.perf_counter()
        # What is loaded by now (the kit, Hypothesis, pytest) outlives the run: frozen, the
        # collector stops walking it in each full collection of the run (about 3% of it).
        # A caller that froze objects of its own is left as it was.
        freeze = gc.get_freeze_count() == 0
        if freeze:
            gc.freeze()
        try:
            if talk is not None:
                talk.open()
            with redirect_stdout(io.StringIO()) as output:
                code = pytest.main(args, plugins=[collector])
        finally:  # the plugin loads its profile globally; leave the caller's as it was
            if talk is not None:
                talk.close()
            if freeze:
                gc.unfreeze()
            hypothesis.settings.load_profile(profile)
        seconds = time.perf_counter() - clock
    if collector.start_error is not None:  # a harness must start and answer `start`
        raise UsageProblem(f"--{request.kind} {request.target}: {collector.start_error}")
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
    elif parsing:
        name, implementation = str(getattr(loaded.parser, "name", request.target)), None
    else:
        implementation = collector.implementation
        name = str((implementation or {}).get("name") or request.target)
    header = Header(
        target=request.target, strategy=name, wire=wire_name,
        profile=request.profile, seed=request.seed, started=started,
        version=version("mcs-conformance"), python=platform.python_version(),
        hypothesis=hypothesis.__version__, platform=platform.platform(terse=True), baseline=baseline,
        clauses=tuple(request.clauses) or None, quirks=quirks, target_kind=request.kind,
        implementation=implementation,
        shard=str(settings.shard) if settings.shard is not None else None,
        strict=request.strict,
        server=settings.server.name if settings.server is not None else None,
    )
    return Report(header, results, seconds)


def _announcement(request: Request, settings: McsSettings, clauses: int, on: str) -> str:
    """The line a run starts with: what is certified, on what, and what a rerun needs."""
    parsing = request.kind == "parser"
    label = request.target if request.kind == "strategy" else f"{request.kind} {request.target}"
    share = f" (shard {request.shard})" if request.shard else ""
    return (f"certifying {label} on {'format' if parsing else 'wire'} {on}: "
            f"{clauses} clauses{share}, profile {request.profile}, seed {request.seed}"
            f"{'' if parsing else f', quirks {settings.quirks_label}'}"
            f"{f', server {settings.server.name}' if settings.server else ''}")


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


def progress_stream() -> TextIO:
    """Where the command's progress goes: standard error (standard output keeps the verdict),
    live on a terminal, one plain line a clause in a log."""
    return sys.stderr

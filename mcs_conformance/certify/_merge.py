"""Merge the report folders of `certify --shard I/N` runs into the report of one whole run.

Merging is only sound when every shard certified the same thing the same way, so anything
that could change a verdict must agree (target, wire, profile, seed, quirks, versions,
baseline, narrowing) and the shards must be exactly 1..N of one split, each holding the
clauses the split gives it. A missing shard is always refused: a report without some
clauses is not a certification, and a CI job that died must not pass unnoticed.
"""
from __future__ import annotations

from dataclasses import replace
from importlib.metadata import version
from pathlib import Path

from mcs_conformance.clauses import CLAUSES
from mcs_conformance.certify._report import Report, ReportError
from mcs_conformance.clauses import parse_shard

# Header fields every shard must share, with the words a refusal uses for them.
__all__ = ["MergeRefused", "merge", "read_shard"]

MUST_AGREE = {
    "target": "targets", "strategy": "strategies", "wire": "wires", "profile": "profiles",
    "seed": "seeds", "quirks": "quirks", "version": "kit versions",
    "hypothesis": "Hypothesis versions", "python": "Python versions", "baseline": "baselines",
    "clauses": "clause narrowings (--clause)", "target_kind": "kinds of target",
    "server": "server profiles (--server)",
}


class MergeRefused(ValueError):
    """The shards cannot make one report; the message names the folders and the mismatch."""


def read_shard(folder: Path) -> Report:
    """The report in `folder` (its report.jsonl), which must come from a sharded run."""
    path = folder / "report.jsonl"
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise MergeRefused(f"{folder}: cannot read report.jsonl ({exc.strerror}); "
                           "pass the --out folders of the certify --shard runs") from None
    try:
        report = Report.from_jsonl(text)
    except ReportError as exc:
        raise MergeRefused(f"{path}: {exc}") from None
    if report.header.shard is None:
        raise MergeRefused(f"{folder}: a whole run, not a shard (certify --shard I/N makes shards)")
    return report


def _catalogue(target_kind: str) -> list[str]:
    """The clause ids a run of this kind of target certifies when not narrowed."""
    kind = "strategy" if target_kind == "strategy" else "client"
    return [c.id for c in CLAUSES.values() if c.kind == kind]


def merge(shards: list[tuple[Path, Report]]) -> Report:
    """One report from the shards' (folder, report) pairs, as a run in one piece gives."""
    if not shards:
        raise MergeRefused("no shards to merge")
    (first_folder, first), *_ = shards
    for folder, report in shards:
        for field, words in MUST_AGREE.items():
            ours, theirs = getattr(first.header, field), getattr(report.header, field)
            if ours != theirs:
                raise MergeRefused(f"shards of different {words}: {first_folder} has {_shown(ours)}, "
                                   f"{folder} has {_shown(theirs)}")
    installed = version("mcs-conformance")
    if first.header.version != installed:
        raise MergeRefused(f"the shards were made by mcs-conformance {first.header.version}; this is "
                           f"{installed}: merge with the version that certified")
    count = parse_shard(first.header.shard).count
    by_index: dict[int, Path] = {}
    for folder, report in shards:
        shard = parse_shard(report.header.shard)
        if shard.count != count:
            raise MergeRefused(f"shards of different splits: {first_folder} is shard {first.header.shard}, "
                               f"{folder} is shard {shard}")
        if shard.index in by_index:
            raise MergeRefused(f"shard {shard} given twice: {by_index[shard.index]} and {folder}")
        by_index[shard.index] = folder
        expected = shard.select(first.header.clauses or _catalogue(first.header.target_kind))
        held = tuple(sorted(r.clause for r in report.results))
        if held != expected:
            raise MergeRefused(f"{folder}: shard {shard} should hold {_shown(expected)} but holds "
                               f"{_shown(held)}; certify it again")
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise MergeRefused(f"shard {', '.join(missing)} missing: merge needs every shard's folder "
                           "(a shard whose job failed must still upload its report)")
    reports = [report for _, report in shards]
    results = {r.clause: r for report in reports for r in report.results}
    platforms = dict.fromkeys(report.header.platform for report in reports)
    header = replace(first.header, shard=None,
                     started=min(report.header.started for report in reports),
                     platform="; ".join(p for p in platforms if p))
    ordered = tuple(results[c] for c in CLAUSES if c in results)
    return Report(header, ordered, sum(report.seconds for report in reports))


def _shown(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, tuple):
        return ", ".join(value) or "no clauses"
    return str(value)

"""Render a `Report` for people and CI: summary.md, junit.xml, a shields.io badge endpoint."""
from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from .report import Report

MARKS = {"passed": "✅ passed", "failed": "❌ failed", "errored": "💥 errored", "skipped": "➖ skipped"}


def badge(report: Report) -> dict:
    """A shields.io endpoint: https://img.shields.io/endpoint?url=<badge.json>."""
    word = "certified" if report.certified else "refused"
    return {"schemaVersion": 1, "label": "mcs-conformance",
            "message": f"{word} {report.score}", "color": "brightgreen" if report.certified else "red"}


def summary_markdown(report: Report) -> str:
    """Markdown fit for a CI step summary: the verdict, the table, every failure in full."""
    h = report.header
    verdict = "**certified**" if report.certified else "**refused**"
    lines = [
        f"# mcs-conformance: `{h.target}` {verdict} ({report.score})", "",
        f"Strategy `{h.strategy}` on wire `{h.wire}`, profile `{h.profile}`, seed `{h.seed}`, "
        f"mcs-conformance {h.version}, Hypothesis {h.hypothesis}, Python {h.python}.", "",
    ]
    if report.unexpected:
        lines += ["Refused: unexpected failures: " + ", ".join(f"`{c}`" for c in report.unexpected), ""]
    if report.stale_baseline:
        lines += ["Refused: stale baseline, these listed clauses now pass (remove them): "
                  + ", ".join(f"`{c}`" for c in report.stale_baseline), ""]
    lines += ["| clause | level | verdict | meaning |", "| --- | --- | --- | --- |"]
    for r in report.results:
        mark = MARKS[r.verdict] + (" (expected)" if r.expected_failure else "")
        lines.append(f"| `{r.clause}` | {r.level} | {mark} | {r.meaning} |")
    for r in report.results:
        if not r.bad:
            continue
        lines += ["", f"## `{r.clause}` {r.verdict}", "", r.reason or ""]
        if r.counterexample is not None:
            shown = json.dumps(r.counterexample, indent=2, ensure_ascii=False)
            lines += ["", "Shrunk counterexample:", "", "```json", shown, "```"]
        if r.reproduce:
            lines += ["", "Reproduce:", "", "```sh", r.reproduce, "```"]
    return "\n".join(lines) + "\n"


def junit_xml(report: Report) -> str:
    """JUnit XML: one testcase per clause, so any CI shows the verdicts natively."""
    suite = ET.Element("testsuite", {
        "name": f"mcs-conformance {report.header.target}",
        "tests": str(len(report.results)),
        "failures": str(report.count("failed")),
        "errors": str(report.count("errored")),
        "skipped": str(report.count("skipped")),
        "time": f"{report.seconds:.3f}",
    })
    for r in report.results:
        case = ET.SubElement(suite, "testcase", {
            "classname": report.header.target, "name": r.clause, "time": f"{r.seconds:.3f}"})
        detail = "\n".join(filter(None, [
            r.reason,
            json.dumps(r.counterexample, ensure_ascii=False) if r.counterexample is not None else None,
            f"reproduce: {r.reproduce}" if r.reproduce else None,
        ]))
        if r.verdict in ("failed", "errored"):
            tag = "failure" if r.verdict == "failed" else "error"
            note = " (expected by the baseline)" if r.expected_failure else ""
            ET.SubElement(case, tag, {"message": (r.reason or r.verdict) + note}).text = detail
        elif r.verdict == "skipped":
            ET.SubElement(case, "skipped", {"message": r.reason or ""})
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"

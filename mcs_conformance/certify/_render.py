"""Render a `Report` for people and CI: summary.md, junit.xml, a shields.io badge endpoint."""
from __future__ import annotations

import json
import re
from xml.etree import ElementTree as ET

from mcs_conformance.certify._report import Report

__all__ = ["badge", "junit_xml", "summary_markdown"]

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MARKS = {"passed": "✅ passed", "failed": "❌ failed", "noted": "⚠️ noted", "errored": "💥 errored",
         "skipped": "➖ skipped"}


def badge(report: Report) -> dict:
    """A shields.io endpoint: https://img.shields.io/endpoint?url=<badge.json>."""
    word = "certified" if report.certified else "refused"
    if not report.certified:
        color = "red"
    else:  # certified with failures its baseline accepts: not quite green
        color = "yellow" if any(r.expected_failure for r in report.results) else "brightgreen"
    return {"schemaVersion": 1, "label": "mcs-conformance", "message": f"{word} {report.score}",
            "color": color}


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")


def _fenced(language: str, text: str) -> list[str]:
    """A code block whose fence is longer than any backtick run in `text`."""
    fence = "```"
    while fence in text:
        fence += "`"
    return [fence + language, text, fence]


def summary_markdown(report: Report) -> str:
    """Markdown fit for a CI step summary: the verdict, the table, every failure in full."""
    h = report.header
    verdict = "**certified**" if report.certified else "**refused**"
    lines = [
        f"# mcs-conformance: {h.target_kind} `{h.target}` {verdict} ({report.score})", "",
        f"{h.target_kind.capitalize()} `{h.strategy}` on "
        + (f"format `{h.wire}`" if h.target_kind == "parser" else f"wire `{h.wire}`")
        + f", profile `{h.profile}`, seed `{h.seed}`, "
        + ("" if h.target_kind == "parser" else f"quirks `{h.quirks}`, ")
        + (f"server profile `{h.server}`, " if h.server else "")
        + ("strict, " if h.strict else "") +
        f"mcs-conformance {h.version}, Hypothesis {h.hypothesis}, Python {h.python}.", "",
    ]
    if h.clauses:
        lines += ["Narrowed to " + ", ".join(f"`{c}`" for c in h.clauses)
                  + ": not a certification of the whole catalogue.", ""]
    if h.shard:
        lines += [f"Shard {h.shard}: part of a certification; `mcs-conformance merge` joins the "
                  "shards' folders into the whole report.", ""]
    if report.unexpected:
        lines += ["Refused: unexpected failures: " + ", ".join(f"`{c}`" for c in report.unexpected), ""]
    if report.stale_baseline:
        lines += ["Refused: stale baseline, these listed clauses now pass (remove them): "
                  + ", ".join(f"`{c}`" for c in report.stale_baseline), ""]
    lines += ["| clause | level | verdict | examples | meaning |", "| --- | --- | --- | ---: | --- |"]
    for r in report.results:
        mark = MARKS[r.verdict] + (f" ({r.severity})" if r.severity else "") + (
            " (expected)" if r.expected_failure else "")
        examples = "" if r.examples is None else str(r.examples)
        lines.append(f"| `{r.clause}` | {r.level} | {mark} | {examples} | {_cell(r.meaning)} |")
    for r in report.results:
        if not r.bad and r.verdict != "noted":
            continue
        note = " (expected by the baseline)" if r.expected_failure else ""
        severity = f", {r.severity}" if r.severity else ""
        lines += ["", f"## `{r.clause}` {r.verdict}{severity}{note}", "", r.reason or ""]
        if r.counterexample is not None:
            quirks = r.counterexample.get("quirks") if isinstance(r.counterexample, dict) else None
            if quirks is not None:
                lines += ["", "Quirks in the counterexample: " + (", ".join(
                    f"`{q}`" for q in quirks) or "none (the provider's own shape)") + "."]
            shown = json.dumps(r.counterexample, indent=2, ensure_ascii=False)
            lines += ["", "Shrunk counterexample:", "", *_fenced("json", shown)]
        for number, other in enumerate(r.more_failures or (), 2):
            shown = json.dumps(other["counterexample"], indent=2, ensure_ascii=False)
            lines += ["", f"Failure {number} ({other['severity']}), found searching without the "
                      f"quirks of the counterexamples before: {other['reason']}", "",
                      *_fenced("json", shown)]
        if r.reproduce:
            lines += ["", "Reproduce:", "", *_fenced("sh", r.reproduce)]
    return "\n".join(lines) + "\n"


def junit_xml(report: Report) -> str:
    """JUnit XML: one testcase per clause, so any CI shows the verdicts natively.

    A failure the baseline accepts is reported as skipped (as pytest reports an xfail), so
    a CI that fails on JUnit failures agrees with the exit status.
    """
    def tally(verdict: str) -> int:
        return sum(1 for r in report.results if r.verdict == verdict and not r.expected_failure)

    accepted = sum(1 for r in report.results if r.expected_failure)
    suite = ET.Element("testsuite", {
        "name": f"mcs-conformance {report.header.target}"
                + (f" shard {report.header.shard}" if report.header.shard else ""),
        "tests": str(len(report.results)),
        "failures": str(tally("failed")),
        "errors": str(tally("errored")),
        "skipped": str(report.count("skipped") + accepted),
        "time": f"{report.seconds:.3f}",
    })
    for r in report.results:
        case = ET.SubElement(suite, "testcase", {
            "classname": report.header.target, "name": r.clause, "time": f"{r.seconds:.3f}"})
        detail = _xml_safe("\n".join(filter(None, [
            r.reason,
            json.dumps(r.counterexample, ensure_ascii=False) if r.counterexample is not None else None,
            f"reproduce: {r.reproduce}" if r.reproduce else None,
        ])))
        if r.expected_failure:
            message = _xml_safe(f"expected failure (baseline): {r.reason or r.verdict}")
            ET.SubElement(case, "skipped", {"message": message}).text = detail
        elif r.bad:
            tag = "failure" if r.verdict == "failed" else "error"
            ET.SubElement(case, tag, {"message": _xml_safe(r.reason or r.verdict)}).text = detail
        elif r.verdict == "skipped":
            ET.SubElement(case, "skipped", {"message": _xml_safe(r.reason or "")})
        elif r.verdict == "noted":  # passes: the note goes to the test's output
            ET.SubElement(case, "system-out").text = _xml_safe(f"note ({r.severity}): {detail}")
    ET.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suite, encoding="unicode") + "\n"


def _xml_safe(text: str) -> str:
    """`text` with the characters XML 1.0 cannot hold (control characters, lone surrogates)
    written as escapes, so a strategy's odd exception message cannot break the file."""
    return _NOT_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)

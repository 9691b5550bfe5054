"""docs/engines.md, rendered from the saved cells and the notes: every verdict, severity
and cause on it is derived (`judged`), so a page left behind by a changed rule, a new
observation or a changed note differs from what `render` gives (tests/engines checks)."""
from __future__ import annotations

from pathlib import Path

from mcs_reference import format_names

from enginematrix.judged import Failure, Reading, verdict
from enginematrix.observed import ENGINES, OBSERVATIONS, ROOT

PAGE = ROOT / "docs" / "engines.md"
HEAD = (Path(__file__).resolve().parents[1] / "page_head.md").read_text("utf-8")
MARKS = {"bug": "✗", "contract": "⚠"}
SPEED_TEXT = ("How the cost per delta grows when one call's arguments grow from 1 000 to 10 000 "
              "tokens, streamed one token a delta (best of two runs, in the same process; the "
              "microseconds per delta at each size in brackets). A parser that re-parses the "
              "text so far on every delta costs ten times as much per delta at 10 000 tokens: "
              "×10 is quadratic, ×1 linear. Timed on a shared 2-core machine: the ratio is the "
              "figure, not the microseconds. `python peers/engines/run.py --speed` measures it.")


def _link(failure: Failure) -> str:
    path = (OBSERVATIONS / failure.engine / f"{failure.format}.json").relative_to(ROOT)
    return f"[{failure.where}](../{path})"


def _cell_failures(reading: Reading, cell: dict) -> list[Failure]:
    return [f for f in reading.failures
            if (f.engine, f.format) == (cell["engine"], cell["format"])]


def _mark(cell: dict | None, reading: Reading) -> str:
    """✓, or the cell's causes: ✗ bugs, ⚠ documented choices, ? observations unread."""
    if cell is None:
        return "—"
    if cell["problem"] is not None:
        return "hung" if cell["problem"].startswith("hung") else "error"
    failures = _cell_failures(reading, cell)
    counts: dict[str, set] = {"✗": set(), "⚠": set(), "?": set()}
    for failure in failures:
        for note in reading.notes_of(failure):
            counts[MARKS[note["verdict"]]].add(id(note))
        if not reading.notes_of(failure):
            counts["?"].add(failure.observation)
    return " ".join(f"{mark} {len(keys)}" for mark, keys in counts.items() if keys) or "✓"


def _verdict_rows(cells: list[dict], reading: Reading) -> list[str]:
    """One row per cell, failing clause and cause: the verdict, severities, observations."""
    rows = []
    for cell in cells:
        failures = _cell_failures(reading, cell)
        for clause in cell["clauses"]:
            said = verdict(cell, clause, failures)
            if said == "passed":
                continue
            mine = [f for f in failures if f.clause == clause]
            groups: dict[str, list[Failure]] = {}
            for failure in mine:
                notes = reading.notes_of(failure)
                cause = "; ".join(f"{MARKS[n['verdict']]} {n['title']}" for n in notes) \
                    or "? not yet read"
                groups.setdefault(cause, []).append(failure)
            if not mine:
                reason = cell["clauses"][clause].get("reason") or ""
                groups[reason] = []
            for cause, group in groups.items():
                severities = ", ".join(sorted({f.severity for f in group})) or "—"
                seen = ", ".join(f"#{f.observation}" for f in group) or "—"
                rows.append(f"| {cell['engine']} | `{cell['format']}` | `{clause}` | {said} | "
                            f"{severities} | {seen} | {cause} |")
    return rows


def _speed_cell(cell: dict | None) -> str:
    costs = (cell or {}).get("speed")
    if not costs:
        return "—"
    return f"×{costs[1] / costs[0]:.1f} ({_micro(costs[0])} → {_micro(costs[1])} µs)"


def _micro(value: float) -> str:
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def _table(engines: list[str], formats: list[str], show) -> list[str]:
    return (["| engine | " + " | ".join(f"`{f}`" for f in formats) + " |",
             "| --- |" + " --- |" * len(formats)]
            + [f"| {engine} | " + " | ".join(show(engine, f) for f in formats) + " |"
               for engine in engines])


def _shown_on(note: dict, reading: Reading) -> str:
    failures = reading.explained_by(note)
    if not failures:
        return "not hit by this run's saved observations (its repro shows it)"
    by_clause: dict[str, list[Failure]] = {}
    for failure in failures:
        by_clause.setdefault(failure.clause, []).append(failure)
    return "; ".join(f"`{clause}` ({', '.join(sorted({f.severity for f in group}))}) on "
                     + ", ".join(_link(f) for f in group)
                     for clause, group in by_clause.items())


def _upstream(note: dict) -> str:
    threads = note.get("upstream") or []
    if not threads:
        return "not reported upstream as far as we found"
    return "; ".join(f"{t['url']} ({t['state']}: {t['about']})" for t in threads)


def _cause(note: dict, reading: Reading) -> list[str]:
    formats = ", ".join(f"`{f}`" for f in note["formats"])
    lines = [f"### {note['engine']} {formats}: {note['title']}", "",
             f"- Shows on: {_shown_on(note, reading)}."]
    if note["verdict"] == "bug":
        lines += [f"- Decided by: {note['function']}.",
                  f"- Deltas: {note['deltas']}",
                  "- Standalone repro: " + ", ".join(
                      f"[`{Path(r).parent.name}/{Path(r).name}`](../{r})" for r in note["repros"])
                  + ".",
                  f"- Upstream: {_upstream(note)} (searched: {note['searched']})."]
    return lines + ["", note["text"], ""]


def render(cells: list[dict], reading: Reading) -> str:
    """The whole page."""
    formats = format_names()
    cells = sorted(cells, key=lambda c: (list(ENGINES).index(c["engine"]),
                                         formats.index(c["format"])))
    engines = list(dict.fromkeys(c["engine"] for c in cells))
    by_key = {(c["engine"], c["format"]): c for c in cells}
    lines = [HEAD, *_table(engines, formats, lambda e, f: _mark(by_key.get((e, f)), reading))]
    lines += ["", "## Verdicts", "",
              "Every clause that does not pass, by cell, as the current clauses judge the saved "
              "observations (`#n`: the cell's n-th, in "
              "`peers/engines/observations/<engine>/<format>.json`) and the cause each is "
              "assigned to.", "",
              "| engine | format | clause | verdict | severity | observations | cause |",
              "| --- | --- | --- | --- | --- | --- | --- |", *_verdict_rows(cells, reading)]
    lines += ["", "## Speed", "", SPEED_TEXT, "",
              *_table(engines, formats, lambda e, f: _speed_cell(by_key.get((e, f))))]
    notes = sorted(reading.notes, key=lambda n: list(ENGINES).index(n["engine"]))
    bugs = [n for n in notes if n["verdict"] == "bug"]
    lines += ["", "## Findings, by cause", "",
              "Each was read against the engine's installed source; each has a standalone "
              "repro that needs only the engine and exits 1 while the bug is there.", ""]
    for note in bugs:
        lines += _cause(note, reading)
    others = [n for n in notes if n["verdict"] != "bug"]
    if others:
        lines += ["## Failures that are not the engine's bug", ""]
        for note in others:
            lines += _cause(note, reading)
    unread = reading.unread()
    if unread:
        lines += ["## Not yet read by hand", "",
                  "What the kit found and nobody has yet read against the source: leads, "
                  "not findings.", ""]
        lines += [f"- {_link(f)} `{f.clause}` ({f.severity}): {f.reason}" for f in unread]
        lines.append("")
    broken = [c for c in cells if c["problem"] is not None]
    if broken:
        lines += ["## Cells that did not finish", ""]
        lines += [f"- {c['engine']} `{c['format']}`: {c['problem']}" for c in broken]
        lines.append("")
    seconds = sum(c["seconds"] for c in cells)
    lines += ["## This run", "",
              f"{len(cells)} cells, profile {', '.join(sorted({c['profile'] for c in cells}))}, "
              f"seed {', '.join(sorted({str(c['seed']) for c in cells}))}: "
              f"{seconds:,.0f} s of certifying on this shared 2-core machine, one cell at a "
              f"time. Each cell's command, versions and time are in its observations file."]
    return "\n".join(lines).rstrip() + "\n"

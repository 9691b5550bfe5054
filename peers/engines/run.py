"""Certify each engine's tool parsers on every catalogue format it has a parser for.

    python peers/engines/run.py [--only ENGINE] [--format NAME] [--profile ci]
    python peers/engines/run.py --speed [--only ENGINE]   # the speed column only
    python peers/engines/run.py --page                    # re-render docs/engines.md

Each engine runs in its own environment under `.peers/<engine>` (peers/engines/<engine>/
INSTALL.md says how to make it); the reference parser runs in the project's `.venv`. A cell
is one `mcs-conformance certify --parser ... --format ...`: its report is written under
peers/engines/reports/<engine>/<format>/ (git-ignored: the rows keep what the page needs),
each failure's text, split and tools under
peers/engines/findings/, the rows in peers/engines/results/<engine>.json. The page joins
them with the hand-written notes of peers/engines/notes/<engine>.json, one per cause.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from mcs_reference import format_names

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
FINDINGS = HERE / "findings"
NOTES = HERE / "notes"  # one file an engine: <engine>.json, a list of causes
PAGE = ROOT / "docs" / "engines.md"
BAD = ("failed", "errored")
ENGINES = {  # engine -> (python, factory)
    "mcs-reference": (ROOT / ".venv/bin/python", "mcs_conformance.engines.reference:parser"),
    "vllm": (ROOT / ".peers/vllm/bin/python", "mcs_conformance.engines.vllm:parser"),
    "sglang": (ROOT / ".peers/sglang/bin/python", "mcs_conformance.engines.sglang:parser"),
    "openai-harmony": (ROOT / ".peers/harmony/bin/python",
                       "mcs_conformance.engines.harmony:parser"),
}


def _python_json(python: Path, code: str) -> object:
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "?")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _formats(python: Path, factory: str) -> list[str]:
    """The formats the factory has a parser for."""
    module, _, name = factory.partition(":")
    return _python_json(python, f"import json, {module} as m\n"
                                f"print(json.dumps(list(m.{name}.formats)))")


def _certify(engine: str, python: Path, factory: str, format: str, profile: str) -> dict:
    out = HERE / "reports" / engine / format
    command = [str(python), "-m", "mcs_conformance.cli", "certify", "--parser", factory,
               "--format", format, "--profile", profile, "--seed", "0", "--out", str(out)]
    clock = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = round(time.perf_counter() - clock, 1)
    report = out / "report.jsonl"
    lines = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    header = next((line for line in lines if line.get("kind") == "header"), {})
    clauses = [line for line in lines if line.get("kind") == "clause"]
    return {"engine": engine, "format": format, "parser": header.get("strategy"),
            "profile": profile, "seconds": seconds,
            "problem": None if clauses else (done.stderr.strip().splitlines() or ["?"])[-1],
            "clauses": [{"clause": c["clause"], "verdict": c["verdict"],
                         "severity": c.get("severity"), "reason": c.get("reason"),
                         "case": c.get("counterexample")} for c in clauses]}


def _save_findings(row: dict) -> None:
    """Each failure's model output, split and tools, replayable with `replay.py` (the
    cell's cases saved before go: a clause that passes now has none)."""
    for stale in (FINDINGS / row["engine"] / row["format"]).glob("*.json"):
        stale.unlink()
    for clause in row["clauses"]:
        if clause["verdict"] in BAD and clause.get("case"):
            path = FINDINGS / row["engine"] / row["format"] / f"{clause['clause']}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            saved = {"engine": row["engine"], "parser": row["parser"], "clause": clause["clause"],
                     "severity": clause["severity"], "reason": clause["reason"],
                     **clause["case"]}
            path.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
            clause["saved"] = str(path.relative_to(ROOT))


# -- the speed column ------------------------------------------------------------------------
SIZES = (1_000, 10_000)  # tokens of arguments
_SPEED = """
import json, time
from mcs_reference import ExtractedCall, format_codec
from mcs_conformance.wires import tokenize, tools_for
import {module} as engine
codec = format_codec({format!r})
parser = engine.{name}({format!r})
costs = []
for size in {sizes!r}:
    call = ExtractedCall("write_file", {{"path": "a.txt", "text": "word " * {size_expr}}})
    text = codec.encode([call])
    deltas = [[token] for token in tokenize(text, codec.special_tokens)]
    best = None
    for _ in range(2):
        clock = time.perf_counter()
        parser.stream(deltas, tools_for([call]))
        spent = time.perf_counter() - clock
        best = spent if best is None else min(best, spent)
    costs.append(best / len(deltas) * 1e6)
print(json.dumps(costs))
"""


def _speed(python: Path, factory: str, format: str) -> list[float]:
    """Microseconds per delta at each of SIZES tokens of arguments (one token a delta)."""
    module, _, name = factory.partition(":")
    code = _SPEED.format(module=module, name=name, format=format, sizes=SIZES,
                         size_expr="size")  # each "word " adds one token, " word"
    return _python_json(python, code)


# -- the page --------------------------------------------------------------------------------
def _rows() -> list[dict]:
    rows = []
    for engine in ENGINES:
        path = RESULTS / f"{engine}.json"
        rows += json.loads(path.read_text()) if path.exists() else []
    return rows


def _notes() -> list[dict]:
    notes = []
    for engine in ENGINES:
        path = NOTES / f"{engine}.json"
        notes += json.loads(path.read_text("utf-8")) if path.exists() else []
    return notes


def _note_of(notes: list[dict], engine: str, format: str, clause: str) -> dict | None:
    return next((n for n in notes if n["engine"] == engine and n["format"] == format
                 and clause in n["clauses"]), None)


def _mark(row: dict | None, notes: list[dict]) -> str:
    """A cell: ✓, or its failing clauses counted by what the notes say of them: ✗ the
    engine's bug, ⚠ not the engine's bug (a contract judgment), ? not yet read."""
    if row is None:
        return "—"
    if not row["clauses"]:
        return "error"
    counts = {"✗": 0, "⚠": 0, "?": 0}
    for clause in row["clauses"]:
        if clause["verdict"] in BAD:
            said = [n["verdict"] for n in notes if n["engine"] == row["engine"]
                    and n["format"] == row["format"] and clause["clause"] in n["clauses"]]
            counts["✗" if "bug" in said else "⚠" if said else "?"] += 1
    return " ".join(f"{mark} {count}" for mark, count in counts.items() if count) or "✓"


def _clauses_of(note: dict, cell: dict) -> str:
    """The note's clauses, each said failing in this run or not (its repro shows it still)."""
    row = cell.get((note["engine"], note["format"]), {})
    failing = {c["clause"] for c in row.get("clauses", ()) if c["verdict"] in BAD}
    return ", ".join(f"`{c}`" + ("" if c in failing else " (not hit by this run)")
                     for c in note["clauses"])


def _speed_cell(row: dict | None) -> str:
    costs = (row or {}).get("speed")
    if not costs:
        return "—"
    return f"×{costs[1] / costs[0]:.1f} ({_micro(costs[0])} → {_micro(costs[1])} µs)"


def _micro(value: float) -> str:
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def render(rows: list[dict], notes: list[dict]) -> str:
    """docs/engines.md: the matrix, the speed column, the findings by cause, the rest."""
    formats = format_names()
    rows = sorted(rows, key=lambda r: (list(ENGINES).index(r["engine"]),
                                       formats.index(r["format"])))
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    cell = {(r["engine"], r["format"]): r for r in rows}
    lines = [PAGE_HEAD, "| engine | " + " | ".join(f"`{f}`" for f in formats) + " |",
             "| --- |" + " --- |" * len(formats)]
    for engine in engines:
        marks = [_mark(cell.get((engine, format)), notes) for format in formats]
        lines.append(f"| {engine} | " + " | ".join(marks) + " |")
    lines += ["", "## Speed", "", SPEED_TEXT, "",
              "| engine | " + " | ".join(f"`{f}`" for f in formats) + " |",
              "| --- |" + " --- |" * len(formats)]
    lines += [f"| {engine} | " + " | ".join(_speed_cell(cell.get((engine, f)))
                                            for f in formats) + " |" for engine in engines]
    lines += ["", "## Findings, by cause", "",
              "Each was read against the engine's installed source; each has a standalone "
              "repro that needs only the engine.", ""]
    for note in notes:
        if note.get("verdict") != "bug":
            continue
        lines += [f"### {note['engine']} `{note['format']}`: {note['title']} ({note['severity']})",
                  "", f"- Clauses: {_clauses_of(note, cell)}; parser "
                  f"{cell.get((note['engine'], note['format']), {}).get('parser')}.",
                  f"- Standalone repro: [`{note['repro']}`](../{note['repro']})."
                  if note.get("repro") else "- Standalone repro: none yet.",
                  f"- Upstream: {note['upstream']}." if note.get("upstream") else
                  f"- Upstream: not reported upstream as far as we found (searched: "
                  f"{note.get('searched', '?')}).", "", note["text"], ""]
    kit_side = [n for n in notes if n.get("verdict") != "bug"]
    if kit_side:
        lines += ["## Failures that are not the engine's bug", ""]
        lines += [f"- {n['engine']} `{n['format']}` ({', '.join(n['clauses'])}): {n['text']}"
                  for n in kit_side]
        lines.append("")
    unread = [(r, c) for r in rows for c in r["clauses"] if c["verdict"] in BAD
              and _note_of(notes, r["engine"], r["format"], c["clause"]) is None]
    if unread:
        lines += ["## Not yet read by hand", "",
                  "What the kit found and nobody has yet read against the source: leads, "
                  "not findings.", ""]
        for row, clause in unread:
            saved = f" ([saved](../{clause['saved']}))" if clause.get("saved") else ""
            lines.append(f"- {row['engine']} `{row['format']}` `{clause['clause']}` "
                         f"({clause['severity'] or clause['verdict']}): {clause['reason']}{saved}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


PAGE_HEAD = (HERE / "page_head.md").read_text("utf-8")
SPEED_TEXT = ("How the cost per delta grows when one call's arguments grow from 1 000 to 10 000 "
              "tokens, streamed one token a delta (best of two runs, in the same process; the "
              "microseconds per delta at each size in brackets). A parser that re-parses the "
              "text so far on every delta costs ten times as much per delta at 10 000 tokens: "
              "×10 is quadratic, ×1 linear. Timed on a shared 2-core machine: the ratio is the "
              "figure, not the microseconds. `python peers/engines/run.py --speed` measures it.")


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--only", action="append", choices=sorted(ENGINES))
    options.add_argument("--format", action="append")
    options.add_argument("--profile", default="ci")
    options.add_argument("--speed", action="store_true", help="only measure the speed column")
    options.add_argument("--page", action="store_true", help="only re-render docs/engines.md")
    args = options.parse_args()
    for engine in [] if args.page else args.only or ENGINES:
        python, factory = ENGINES[engine]
        if not python.exists():
            print(f"{engine}: no environment at {python.parent.parent}; see "
                  f"peers/engines/{engine}/INSTALL.md", file=sys.stderr)
            continue
        path = RESULTS / f"{engine}.json"
        rows = json.loads(path.read_text()) if path.exists() else []
        for format in _formats(python, factory):
            if args.format and format not in args.format:
                continue
            old = next((r for r in rows if r["format"] == format), None)
            if args.speed:
                if old is None:
                    continue
                row = {**old, "speed": _speed(python, factory, format)}
                print(f"{engine} {format}: {_speed_cell(row)}", flush=True)
            else:
                row = _certify(engine, python, factory, format, args.profile)
                row["speed"] = (old or {}).get("speed")
                _save_findings(row)
                bad = [c["clause"] for c in row["clauses"] if c["verdict"] in BAD]
                print(f"{engine} {format}: {len(row['clauses']) - len(bad)}/"
                      f"{len(row['clauses'])} in {row['seconds']} s {' '.join(bad)}"
                      f"{row['problem'] or ''}", flush=True)
            rows = [r for r in rows if r["format"] != format] + [row]
            RESULTS.mkdir(exist_ok=True)
            path.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    PAGE.write_text(render(_rows(), _notes()), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Certify each engine's tool parsers on every catalogue format it has a parser for.

    python peers/engines/run.py [--only ENGINE] [--format NAME] [--profile dev]

Each engine runs in its own environment under `.peers/<engine>` (its INSTALL.md beside
this file says how to make it); the reference parser runs in the project's `.venv`. Each
cell is one `mcs-conformance certify --parser ... --format ...`; its report is kept under
peers/engines/reports/<engine>/<format>/ and its failures, with their saved text and
split, go to peers/engines/results.json, from which docs/engines.md is rendered.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results.json"
FINDINGS = HERE / "findings"
PAGE = ROOT / "docs" / "engines.md"
MARK = {"passed": "✓", "noted": "⚠", "failed": "✗", "errored": "✗", "skipped": "n/a"}
ENGINES = {  # engine -> (python, factory)
    "mcs-reference": (ROOT / ".venv/bin/python", "mcs_conformance.engines.reference:parser"),
    "vllm": (ROOT / ".peers/vllm/bin/python", "mcs_conformance.engines.vllm:parser"),
    "sglang": (ROOT / ".peers/sglang/bin/python", "mcs_conformance.engines.sglang:parser"),
    "openai-harmony": (ROOT / ".peers/harmony/bin/python", "mcs_conformance.engines.harmony:parser"),
}


def _formats(python: Path, factory: str) -> tuple[list[str], str]:
    """The formats the factory has a parser for, and the engine's version line."""
    code = ("import importlib, json\n"
            f"m, _, o = {factory!r}.partition(':')\n"
            "f = getattr(importlib.import_module(m), o)\n"
            "print(json.dumps(list(f.formats)))\n")
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout), ""


def _certify(engine: str, python: Path, factory: str, format: str, profile: str) -> dict:
    out = HERE / "reports" / engine / format
    command = [str(python), "-m", "mcs_conformance.cli", "certify", "--parser", factory,
               "--format", format, "--profile", profile, "--seed", "0", "--out", str(out)]
    clock = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    seconds = round(time.perf_counter() - clock, 1)
    lines = [json.loads(line) for line in (out / "report.jsonl").read_text().splitlines()] \
        if (out / "report.jsonl").exists() else []
    header = next((line for line in lines if line.get("kind") == "header"), {})
    clauses = [line for line in lines if line.get("kind") == "clause"]
    return {"engine": engine, "format": format, "parser": header.get("strategy"),
            "profile": profile, "seconds": seconds, "exit": done.returncode,
            "problem": None if clauses else (done.stderr.strip().splitlines() or ["?"])[-1],
            "clauses": [{"clause": c["clause"], "verdict": c["verdict"],
                         "severity": c.get("severity"), "reason": c.get("reason"),
                         "case": c.get("counterexample")} for c in clauses]}


def _save_findings(row: dict) -> None:
    """Each failure's model output, split and tools, replayable with `replay.py`."""
    for clause in row["clauses"]:
        if clause["verdict"] in ("failed", "errored") and clause.get("case"):
            path = FINDINGS / row["engine"] / row["format"] / f"{clause['clause']}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            saved = {"engine": row["engine"], "parser": row["parser"], "clause": clause["clause"],
                     "severity": clause["severity"], "reason": clause["reason"],
                     **clause["case"]}
            path.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
            clause["saved"] = str(path.relative_to(ROOT))


def render(rows: list[dict]) -> str:
    """docs/engines.md's matrix and findings, from the rows."""
    formats = list(dict.fromkeys(r["format"] for r in rows if r["engine"] == "mcs-reference"))
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    cell = {(r["engine"], r["format"]): r for r in rows}
    lines = [PAGE_HEAD, "| engine | " + " | ".join(f"`{f}`" for f in formats) + " |",
             "| --- |" + " --- |" * len(formats)]
    for engine in engines:
        marks = []
        for format in formats:
            row = cell.get((engine, format))
            if row is None:
                marks.append("—")
                continue
            bad = [c for c in row["clauses"] if c["verdict"] in ("failed", "errored")]
            marks.append(f"✗ {len(bad)}" if bad else ("✓" if row["clauses"] else "error"))
        lines.append(f"| {engine} | " + " | ".join(marks) + " |")
    lines += ["", "## Findings", ""]
    for row in rows:
        for clause in row["clauses"]:
            if clause["verdict"] not in ("failed", "errored"):
                continue
            lines += [f"### {row['engine']} `{row['format']}`: `{clause['clause']}` "
                      f"({clause['severity'] or clause['verdict']})", "",
                      f"- Parser: {row['parser']}; profile `{row['profile']}`, seed 0.",
                      f"- {clause['reason']}"]
            if clause.get("saved"):
                lines.append(f"- Saved text, split and tools: [`{clause['saved']}`](../{clause['saved']}); "
                             f"replay: `python peers/engines/replay.py {clause['saved']}` in the "
                             "engine's environment.")
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


PAGE_HEAD = (Path(__file__).with_name("page_head.md").read_text("utf-8")
             if Path(__file__).with_name("page_head.md").exists() else "# Engines\n")


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--only", action="append", choices=sorted(ENGINES))
    options.add_argument("--format", action="append")
    options.add_argument("--profile", default="dev")
    options.add_argument("--page", action="store_true", help="only re-render docs/engines.md")
    args = options.parse_args()
    rows = json.loads(RESULTS.read_text()) if RESULTS.exists() else []
    if args.page:
        PAGE.write_text(render(rows), "utf-8")
        return 0
    for engine in args.only or ENGINES:
        python, factory = ENGINES[engine]
        if not python.exists():
            print(f"{engine}: no environment at {python.parent.parent}; see "
                  f"peers/engines/{engine}/INSTALL.md", file=sys.stderr)
            continue
        formats, _ = _formats(python, factory)
        for format in formats:
            if args.format and format not in args.format:
                continue
            row = _certify(engine, python, factory, format, args.profile)
            bad = [c["clause"] for c in row["clauses"] if c["verdict"] in ("failed", "errored")]
            print(f"{engine} {format}: {len(row['clauses']) - len(bad)}/{len(row['clauses'])}"
                  f" {row['seconds']} s {' '.join(bad)}{row['problem'] or ''}", flush=True)
            _save_findings(row)
            rows = [r for r in rows if (r["engine"], r["format"]) != (engine, format)] + [row]
            RESULTS.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    PAGE.write_text(render(rows), "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

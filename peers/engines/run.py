"""Run the engines matrix: each engine's tool parsers on every catalogue format it has one for.

    python peers/engines/run.py [--only ENGINE] [--format NAME] [--force]  # observe, then judge
    python peers/engines/run.py --judge       # judge the saved observations, render the page
    python peers/engines/run.py --speed [--only ENGINE]   # the speed column
    python peers/engines/run.py --repros [--only ENGINE]  # each ✗ cause's repro, where installed
    python peers/engines/run.py --sizes REPRO             # the smallest delta size showing it

Each engine runs in its own environment under `.peers/<engine>` (peers/engines/<engine>/
INSTALL.md), the reference parser in the project's `.venv`. A cell is one engine on one format:
what `mcs-conformance certify --parser FACTORY --format NAME` runs, in a process of its own
with a time limit, its observations saved in peers/engines/observations/ as soon as it ends.
A cell already observed with the same engine, kit, profile and seed is skipped (`--force`
runs it again): an interrupted run resumes where it stopped. The verdicts, causes and the
page are then derived from every saved cell and the notes of peers/engines/notes/; `--judge`
does only that, and needs no engine.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from enginematrix import judged, observed, page, repros  # noqa: E402

SIZES = (1_000, 10_000)  # tokens of arguments, for the speed column
_SPEED = """
import json, time
from mcs_reference import ExtractedCall, format_codec
from mcs_conformance.wires import tokenize, tools_for
import {module} as engine
codec = format_codec({format!r})
parser = engine.{name}({format!r})
costs = []
for size in {sizes!r}:
    call = ExtractedCall("write_file", {{"path": "a.txt", "text": "word " * size}})
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


def speed(engine: str, format: str) -> list[float]:
    """Microseconds per delta at each of SIZES tokens of arguments (one token a delta)."""
    module, _, name = observed.ENGINES[engine].factory.partition(":")
    return observed.python_json(observed.ENGINES[engine].python, "-c",
                                _SPEED.format(module=module, name=name, format=format,
                                              sizes=SIZES), timeout=3600)


def judge() -> int:
    """Derive everything from the saved cells and notes, write the page; 1 when the notes
    break a rule."""
    cells = observed.load_cells()
    reading = judged.read(cells, judged.load_notes())
    page.PAGE.write_text(page.render(cells, reading), "utf-8")
    broken = judged.problems(reading, cells, observed.ROOT)
    for problem in broken:
        print(f"notes: {problem}", file=sys.stderr)
    unread = reading.unread()
    print(f"{len(cells)} cells, {len(reading.failures)} failures, {len(unread)} not yet read; "
          f"wrote {page.PAGE.relative_to(observed.ROOT)}")
    return 1 if broken else 0


def _installed(engines: list[str]) -> list[str]:
    ready = []
    for engine in engines:
        python = observed.ENGINES[engine].python
        if python.exists():
            ready.append(engine)
        else:
            print(f"{engine}: no environment at {python.parent.parent}; see "
                  f"peers/engines/{engine}/INSTALL.md", file=sys.stderr)
    return ready


def observe(args: argparse.Namespace) -> None:
    """Run the cells that are missing or old; print each one's time, then the total."""
    kit = observed.kit_key()
    started = time.perf_counter()
    ran = skipped = 0
    for engine in _installed(args.only or list(observed.ENGINES)):
        identity = {"environment": observed.environment(engine), "kit": kit,
                    "profile": args.profile, "seed": args.seed}
        old = {}
        for format in observed.formats(engine):
            path = observed.cell_path(engine, format)
            if args.format and format not in args.format:
                continue
            old[format] = json.loads(path.read_text("utf-8")) if path.exists() else None
            if observed.is_current(old[format], identity) and not args.force:
                del old[format]
                skipped += 1
        for cell in observed.observe(engine, list(old), identity, args.timeout):
            before = old[cell["format"]] or {}
            same = before.get("environment") == identity["environment"]
            cell["speed"] = before.get("speed") if same else None
            observed.write_json(observed.cell_path(engine, cell["format"]), cell)
            ran += 1
            print(f"{engine} {cell['format']}: {len(cell['observations'])} observations in "
                  f"{cell['seconds']} s{' ' + cell['problem'] if cell['problem'] else ''}",
                  flush=True)
    print(f"{ran} cells run, {skipped} already observed at this engine and kit, in "
          f"{time.perf_counter() - started:.0f} s")


def measure_speed(args: argparse.Namespace) -> None:
    for engine in _installed(args.only or list(observed.ENGINES)):
        for format in observed.formats(engine):
            path = observed.cell_path(engine, format)
            if (args.format and format not in args.format) or not path.exists():
                continue
            cell = json.loads(path.read_text("utf-8"))
            try:
                cell["speed"] = speed(engine, format)
            except (RuntimeError, subprocess.TimeoutExpired) as exc:  # the other cells go on
                print(f"{engine} {format}: no speed ({str(exc).splitlines()[0][:120]})",
                      file=sys.stderr)
                continue
            observed.write_json(path, cell)
            print(f"{engine} {format}: {page._speed_cell(cell)}", flush=True)


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--only", action="append", choices=sorted(observed.ENGINES))
    options.add_argument("--format", action="append")
    options.add_argument("--profile", default="ci")
    options.add_argument("--seed", type=int, default=0)
    options.add_argument("--force", action="store_true", help="run cells already observed")
    options.add_argument("--timeout", type=float, default=900, help="seconds a cell may take")
    what = options.add_mutually_exclusive_group()
    what.add_argument("--judge", "--page", action="store_true",
                      help="only judge the saved observations and render docs/engines.md")
    what.add_argument("--speed", action="store_true", help="only measure the speed column")
    what.add_argument("--repros", action="store_true",
                      help="run each ✗ note's repro where its engine is installed")
    what.add_argument("--sizes", metavar="REPRO",
                      help="the smallest tokens per delta with which REPRO shows its bug")
    args = options.parse_args()
    if args.repros:
        return repros.report(judged.load_notes(), args.only)
    if args.sizes:
        return repros.report_sizes(Path(args.sizes))
    if args.speed:
        measure_speed(args)
    elif not args.judge:
        observe(args)
    return judge()


if __name__ == "__main__":
    raise SystemExit(main())

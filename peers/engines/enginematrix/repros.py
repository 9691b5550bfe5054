"""The ✗ causes' standalone repros, run where their engine is installed.

A repro lives at peers/engines/findings/<engine>/<format>/<name>.repro.py; it imports only
the engine and exits 1 while the bug is there. It is run here as a user would run it: its
engine's python, from a scratch folder, without this checkout on the path.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from enginematrix.observed import ENGINES, ROOT, python_json

SIZES_SCRIPT = Path(__file__).resolve().parent / "sizes.py"
Runner = Callable[[Path, Path], int]


def where(repro: str) -> tuple[str, str]:
    """(engine, format) of a repro, from its path."""
    engine, format = Path(repro).relative_to("peers/engines/findings").parts[:2]
    return engine, format


def run(python: Path, repro: Path) -> int:
    """The repro's exit status, run alone."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory(prefix="mcs-repro-") as scratch:
        return subprocess.run([str(python), str(repro)], cwd=scratch, env=env,
                              capture_output=True, timeout=600).returncode


def repro_problems(notes: list[dict], run: Runner = run,
                   only: list[str] | None = None) -> tuple[list[str], list[str]]:
    """(problems, not run): a ✗ note's repro that does not exit 1; the repros whose engine is
    not installed here."""
    problems, skipped = [], []
    for note in notes:
        if note["verdict"] != "bug" or (only and note["engine"] not in only):
            continue
        for repro in note["repros"]:
            python = ENGINES[where(repro)[0]].python
            if not python.exists():
                skipped.append(repro)
                continue
            code = run(python, ROOT / repro)
            if code != 1:
                problems.append(f"{repro} exits {code} while its note {note['title']!r} "
                                f"says ✗ (1 while the bug is there)")
    return problems, skipped


def report(notes: list[dict], only: list[str] | None) -> int:
    problems, skipped = repro_problems(notes, only=only)
    ran = sum(len(n["repros"]) for n in notes if n["verdict"] == "bug"
              and (not only or n["engine"] in only)) - len(skipped)
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{ran} repros run, {len(problems)} not exiting 1, {len(skipped)} without their "
          f"engine here")
    return 1 if problems else 0


def sizes(repro: Path) -> dict:
    """The tokens of the repro's model output, and the `--stream-interval` sizes that show it."""
    engine, format = where(str(repro.resolve().relative_to(ROOT)))
    style = "vllm" if engine == "vllm" else "sglang"
    return python_json(ENGINES[engine].python, str(SIZES_SCRIPT), str(repro), format, style,
                       timeout=3600)


def report_sizes(repro: Path) -> int:
    found = sizes(repro)
    print(json.dumps(found))
    return 0

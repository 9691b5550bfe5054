"""The cells of one engine, run in the engine's own environment, one after another.

    python peers/engines/enginematrix/worker.py FACTORY PROFILE SEED OUTDIR FORMAT...

For each FORMAT: prints `start FORMAT`, certifies the parser `FACTORY` makes for it (what
`mcs-conformance certify --parser FACTORY --format FORMAT --profile PROFILE --seed SEED`
runs), one clause at a time, writes OUTDIR/FORMAT.json with what it observed, and prints
`done FORMAT`. The engine is imported once for all its cells (vLLM takes half a minute);
the caller watches the lines, and stops and restarts a worker whose cell hangs. Kept of
each clause: the case it reported failing (shrunk) and the first `SAMPLE` cases it judged;
no verdict is kept: the matrix derives them again.
"""
from __future__ import annotations

import json
import sys
import time
import traceback
from pathlib import Path

from mcs_conformance.certify import Request, run
from mcs_conformance.clauses import CLAUSES, recording_parser_observations

SAMPLE = 4  # the first cases each clause judged, kept besides the failing one
CELL_MARK = "== cell"
CASE = ("cases", "format", "text", "content", "calls", "tools", "deltas")


def _case_key(observation: dict) -> str:
    """What tells cases apart (the parser's outputs may differ by a random call id)."""
    return json.dumps([observation[k] for k in CASE], sort_keys=True)


def cell(factory: str, format: str, profile: str, seed: int) -> dict:
    """What the parser did on the cases of each parser clause."""
    observed: dict = {"parser": None, "clauses": {}, "observations": []}
    index: dict[str, dict] = {}
    for clause in [c for c in CLAUSES if c.startswith("parser.")]:
        clock = time.perf_counter()
        with recording_parser_observations() as seen:
            report = run(Request(target=factory, kind="parser", format=format,
                                 profile=profile, seed=seed, clauses=(clause,)))
        [result] = report.results
        observed["parser"] = report.header.strategy
        observed["clauses"][clause] = {
            "ran": result.verdict in ("passed", "failed"), "examples": result.examples,
            "seconds": round(time.perf_counter() - clock, 1),
            **({"verdict": result.verdict, "reason": result.reason}
               if result.verdict not in ("passed", "failed") else {})}
        reported = result.counterexample if result.verdict == "failed" else None
        mine = [observation for judged_by, observation in seen if judged_by == clause]
        kept = ([(reported, True)] if reported else []) + [(o, False) for o in mine[:SAMPLE]]
        for observation, is_reported in kept:
            saved = index.get(_case_key(observation))
            if saved is None:
                saved = index[_case_key(observation)] = {"judged_by": [], "reported_by": [],
                                                         **observation}
                observed["observations"].append(saved)
            if clause not in saved["judged_by"]:
                saved["judged_by"].append(clause)
            if is_reported:
                saved["reported_by"].append(clause)
    return observed


def main(factory: str, profile: str, seed: str, out: str, *formats: str) -> int:
    for format in formats:
        print("start", format, flush=True)
        print(CELL_MARK, format, file=sys.stderr, flush=True)  # where the cell's errors begin
        try:
            made = {**cell(factory, format, profile, int(seed)), "problem": None}
        except Exception as exc:  # the cell breaks, not the worker: the next cell runs
            traceback.print_exc()
            made = {"problem": f"{type(exc).__name__}: {exc}".splitlines()[0]}
        Path(out, f"{format}.json").write_text(json.dumps(made), "ascii")
        print("done", format, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))

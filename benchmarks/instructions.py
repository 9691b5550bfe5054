"""Instructions per chunk, counted by valgrind: the floor figure without the machine's noise.

    python benchmarks/instructions.py                # every wire
    python benchmarks/instructions.py gemini ...     # some wires
    python benchmarks/instructions.py --ours gemini  # json.loads + add only (half the time)

On a shared machine timings move by several percent from run to run; the number of
instructions a run executes barely moves, so this is the figure to decide a change by. For
each wire it counts (under `valgrind --tool=cachegrind`) a process that feeds the first
LONG chunks of the benchmark's stream and one that feeds the first SHORT, both with the same
stream built; the difference over LONG - SHORT is the cost of one chunk, start-up and the
stream's building cancelled out. It does so for json.loads alone and for json.loads + add,
and prints both and their ratio. Instructions are not time (json.loads's C runs more of
them per cycle than the interpreter does), so the ratio here is not the timed one; it moves
the same way. Needs valgrind; takes about half a minute per wire.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import streams  # noqa: E402
from feeding import feed, loads_only  # noqa: E402

LONG, SHORT = 2000, 200


def count(wire: str, side: str, chunks: int) -> int:
    """Instructions of one process that feeds the first `chunks` chunks of `wire`."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cachegrind.out"
        done = subprocess.run(
            ["setarch", "-R", "valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
             sys.executable, __file__, "--child", wire, side, str(chunks)],
            env=env, capture_output=True, text=True, check=True)
        found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if found is None:
            raise SystemExit(f"no instruction count from valgrind:\n{done.stderr}")
        return int(found.group(1).replace(",", ""))


def per_chunk(wire: str, side: str) -> float:
    return (count(wire, side, LONG) - count(wire, side, SHORT)) / (LONG - SHORT)


def child(wire: str, side: str, chunks: int) -> None:
    """Build the stream of LONG chunks, warm up on another copy, then run `side` once."""
    texts = streams.WIRES[wire](LONG)[:chunks]
    feed(streams.WIRES[wire](20))  # imports and first-use caches, outside the difference
    if side == "floor":
        loads_only(texts)
    else:
        feed(texts)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--child"]:
        child(argv[1], argv[2], int(argv[3]))
        return 0
    sides = ("ours",) if argv[:1] == ["--ours"] else ("floor", "ours")
    wires = [wire for wire in argv if wire != "--ours"] or list(streams.WIRES)
    jobs = [(wire, side) for wire in wires for side in sides]
    with ThreadPoolExecutor(2) as pool:
        counts = dict(zip(jobs, pool.map(lambda job: per_chunk(*job), jobs)))
    if sides == ("ours",):
        for wire in wires:
            print(f"| {wire} | json.loads + add: {counts[wire, 'ours']:,.0f} instructions/chunk |")
        return 0
    print("| wire | json.loads, instructions/chunk | json.loads + add | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for wire in wires:
        floor, ours = counts[wire, "floor"], counts[wire, "ours"]
        print(f"| {wire} | {floor:,.0f} | {ours:,.0f} | {ours / floor:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

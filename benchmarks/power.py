"""The kit's power, measured: how many seeds catch each deliberately broken strategy and client.

    python benchmarks/power.py                 # seeds 1..20 at the dev profile
    python benchmarks/power.py --seeds 5 --only lost_last_fragment
    python benchmarks/power.py --json out.json # also write the figures

Each broken strategy in tests/broken/ is certified against the clause that names its bug
(`CAUGHT_BY`), once per seed, at the profile users run first (`dev`); each broken client in
tests/broken_clients/ likewise through the kit's local server. A generator change that
trades power for speed must keep every row at 20/20 (docs/performance.md). The shrunk
counterexample's size (its chunks or body pieces) is printed too: a change that stops
shrinking shows there. Exit 1 when a row misses a seed.
"""
from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"


def _names(folder: str) -> list[str]:
    return sorted(p.stem for p in (TESTS / folder).glob("*.py") if not p.stem.startswith("_"))


def _size(counterexample: object) -> int:
    """Chunks (strategies), shapes resolved (resolve.reorder-invariant) or body pieces
    (clients) of a shrunk counterexample; 0 if unknown."""
    if isinstance(counterexample, dict):
        for key in ("chunks", "shapes", "pieces"):
            if isinstance(counterexample.get(key), list):
                return len(counterexample[key])
    return 0


def measure(job: tuple[str, str, int, str]) -> tuple[str, int, bool, int]:
    """Certify one broken target against its clause on one seed: (name, seed, caught, size)."""
    folder, name, seed, profile = job
    sys.path.insert(0, str(TESTS))
    from mcs_conformance.certify import Request, run

    module = importlib.import_module(f"{folder}.{name}")
    if folder == "broken":
        request = Request(target=f"broken.{name}:{module.STRATEGY}", profile=profile, seed=seed,
                          clauses=(module.CAUGHT_BY,))
    else:
        request = Request(target=f"broken_clients.{name}:client", wire=module.WIRE,
                          profile=profile, seed=seed, clauses=(module.CAUGHT_BY,), kind="client")
    result = next(r for r in run(request).results if r.clause == module.CAUGHT_BY)
    caught = result.bad  # a failure or an error the strategy raised
    return name, seed, caught, _size(result.counterexample) if caught else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="seeds 1..N (default 20)")
    parser.add_argument("--profile", default="dev")
    parser.add_argument("--only", action="append", default=[], help="one broken module's name")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    jobs = [(folder, name, seed, args.profile)
            for folder in ("broken", "broken_clients") for name in _names(folder)
            if not args.only or name in args.only for seed in range(1, args.seeds + 1)]
    caught: dict[str, list[int]] = {}
    sizes: dict[str, list[int]] = {}
    with ProcessPoolExecutor(args.jobs) as pool:
        for name, seed, hit, size in pool.map(measure, jobs):
            caught.setdefault(name, [])
            sizes.setdefault(name, [])
            if hit:
                caught[name].append(seed)
                sizes[name].append(size)
    print("| broken target | seeds caught | median shrunk size |")
    print("| --- | ---: | ---: |")
    for name in caught:
        median = statistics.median(sizes[name]) if sizes[name] else 0
        print(f"| {name} | {len(caught[name])}/{args.seeds} | {median:g} |")
    if args.json:
        args.json.write_text(json.dumps({"seeds": args.seeds, "profile": args.profile,
                                         "caught": caught, "sizes": sizes}, indent=1))
    return 0 if all(len(seeds) == args.seeds for seeds in caught.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

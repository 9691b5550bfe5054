"""Certifying a client over HTTP against certifying the equivalent strategy in-process.

    python benchmarks/clients.py              # every native wire at ci; exit 1 above 2x
    python benchmarks/clients.py --wire openai-chat --profile dev

For each wire: the time `mcs-conformance certify` takes on the reference client
(`mcs_conformance.clients.reference_client:reference_client`, raw HTTP against the local
provider server) over the time it takes on the reference strategy of that wire, in the same
run. The target is at most 2x: a client case costs one local round trip.
"""
from __future__ import annotations

import argparse
import sys
import time

from mcs_conformance.certify import Request, run
from mcs_conformance.wires import NATIVE_WIRES, reference_strategy

CLIENT = "mcs_conformance.clients.reference_client:reference_client"
TARGET = 2.0


def certify_seconds(request: Request) -> tuple[float, str]:
    """Wall time of one certification, and its verdict and score."""
    start = time.perf_counter()
    report = run(request)
    seconds = time.perf_counter() - start
    return seconds, f"{'certified' if report.certified else 'refused'} {report.score}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wire", action="append", choices=NATIVE_WIRES)
    parser.add_argument("--profile", default="ci", choices=("dev", "ci", "thorough"))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    worst = 0.0
    print(f"{'wire':20} {'client':>20} {'strategy':>20} {'ratio':>6}")
    for wire in args.wire or NATIVE_WIRES:
        client, client_verdict = certify_seconds(Request(
            target=CLIENT, wire=wire, profile=args.profile, seed=args.seed, kind="client"))
        strategy, strategy_verdict = certify_seconds(Request(
            target=f"mcs_reference:{type(reference_strategy(wire)).__name__}", profile=args.profile, seed=args.seed))
        ratio = client / strategy
        worst = max(worst, ratio)
        print(f"{wire:20} {client:7.1f} s {client_verdict:>10} {strategy:7.1f} s "
              f"{strategy_verdict:>10} {ratio:5.2f}x")
    print(f"worst ratio {worst:.2f}x (target: at most {TARGET:g}x)")
    return 0 if worst <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())

"""`mcs-conformance serve --wire W`: the local provider server alone, for debugging a client.

Draws a few cases of every kind a client clause serves (streams, provider errors, cut
bodies, HTTP errors), reproducibly from `--seed`, and prints each case's base URL, so a
harness author can point curl or their client at it. Runs until interrupted.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from hypothesis import HealthCheck, Phase, given, seed as fixed_seed, settings
from hypothesis import strategies as st

from mcs_conformance.wires import NATIVE_WIRES, parse_quirks
from mcs_conformance.clients._cases import (cut_streams, error_streams, http_errors, streams,
                                            truncated_streams)
from mcs_conformance.clients._served import Served
from mcs_conformance.clients._server import ProviderServer

__all__ = ["draw_served", "serve", "serve_command"]


def _kinds(wire: str, quirks: frozenset | None) -> st.SearchStrategy[tuple[str, Served]]:
    return st.one_of(
        st.tuples(st.just("stream"), streams(wire, quirks)),
        st.tuples(st.just("stream with calls"), streams(wire, quirks, min_calls=1)),
        st.tuples(st.just("provider error"), error_streams(wire, quirks)),
        st.tuples(st.just("connection dropped before the end"), truncated_streams(wire, quirks)),
        st.tuples(st.just("body ended between two events before the end signal"),
                  cut_streams(wire, quirks, inside=False)),
        st.tuples(st.just("body ended inside an event"), cut_streams(wire, quirks, inside=True)),
        st.tuples(st.just("HTTP error"), http_errors(wire).map(lambda drawn: drawn[0])),
    )


def draw_served(wire: str, seed: int, count: int, quirks: frozenset | None = None) -> list:
    """`count` labelled cases of `wire`, the same ones for the same seed."""
    drawn: list[tuple[str, Served]] = []

    @fixed_seed(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(_kinds(wire, quirks))
    def collect(value: tuple[str, Served]) -> None:
        if len(drawn) < count:
            drawn.append(value)

    collect()
    return drawn


def _describe(label: str, served: Served) -> str:
    calls = len(served.case.calls) if served.case is not None else 0
    quirks = ", ".join(sorted(served.quirks)) or "none"
    return (f"{label}, HTTP {served.status}, {calls} call(s), {len(served.pieces)} piece(s), "
            f"quirks: {quirks}")


def serve(wire: str, *, seed: int, port: int = 0, count: int = 10,
          quirks: frozenset | None = None, out: TextIO | None = None,
          stop: threading.Event | None = None) -> int:
    """Serve `count` cases until interrupted (or until `stop` is set); each case's base URL
    is printed to `out` (standard output by default)."""
    out = out or sys.stdout
    cases = draw_served(wire, seed, count, quirks)
    with ProviderServer(port) as server:
        if port and server.port != port:
            out.write(f"port {port} is in use; serving on {server.port} instead\n")
        out.write(f"mcs-conformance: serving {len(cases)} {wire} cases (seed {seed}) on "
                  f"{server.url}; POST to any path below a case's URL; Ctrl-C stops\n")
        for label, served in cases:
            url = server.add(served)
            out.write(f"{url}  {_describe(label, served)}\n")
        out.flush()
        try:
            (stop or threading.Event()).wait()
        except KeyboardInterrupt:
            pass
    return 0


def serve_command(args: Any) -> int:
    """The `serve` subcommand; bad input is one line and exit 2."""
    if args.wire not in NATIVE_WIRES:
        print(f"mcs-conformance serve: error: --wire {args.wire}: the server speaks "
              f"{', '.join(NATIVE_WIRES)}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535 or args.count < 1:
        print("mcs-conformance serve: error: --port takes 0-65535 and --count at least 1",
              file=sys.stderr)
        return 2
    try:
        quirks = parse_quirks(args.quirks)
    except ValueError as exc:
        print(f"mcs-conformance serve: error: --quirks {args.quirks}: {exc}", file=sys.stderr)
        return 2
    return serve(args.wire, seed=args.seed, port=args.port, count=args.count, quirks=quirks)

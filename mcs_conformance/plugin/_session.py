"""Turn resolved settings into the run: each target's wire, then one item per clause.

Strategies run the strategy clauses in-process; clients and harnesses run the client clauses
over HTTP, against one local provider server shared by the whole session (`SESSION_SERVER`).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from .clauses import CLAUSES
from .items import ClauseItem
from .settings import McsSettings
from .wires import BUILT_IN, Wire, wire_for_strategy


def _with_quirks(wire: Any, quirks: frozenset | None) -> Any:
    """`wire` whose cases draw only `quirks` (built-in wires; None leaves every quirk)."""
    if quirks is None or not isinstance(wire, Wire) or wire.name not in BUILT_IN:
        return wire
    cases = wire.cases
    return replace(wire, cases=lambda **options: cases(**{"quirks": quirks, **options}))


def wires_for(settings: McsSettings) -> list[Any]:
    """The wire of every strategy, in order; a strategy the kit has no wire for is a usage error."""
    wires = []
    for loaded in settings.strategies:
        wire = settings.wire or wire_for_strategy(loaded.strategy)
        if wire is None:
            name = getattr(loaded.strategy, "name", "?")
            raise pytest.UsageError(
                f"--mcs-strategy={loaded.target}: no built-in wire for a strategy named {name!r}; "
                "pass --mcs-wire=NAME or --mcs-wire=pkg:Obj"
            )
        wires.append(_with_quirks(wire, settings.quirks))
    return wires


def client_wire(settings: McsSettings) -> str:
    """The wire the clients are certified on: `--mcs-wire`, a native built-in wire."""
    from .clauses._run import NATIVE_WIRES

    name = getattr(settings.wire, "name", None)
    if name not in NATIVE_WIRES or settings.wire_spec not in NATIVE_WIRES:
        option = settings.wire_spec or "(none given)"
        raise pytest.UsageError(
            f"--mcs-wire={option}: a client is certified on a wire the local server speaks; "
            f"pass --mcs-wire with one of {', '.join(NATIVE_WIRES)}")
    return name


def check_selection(settings: McsSettings) -> None:
    """`--mcs-clause` must leave every kind of target at least one clause (no "0/0")."""
    if not settings.clauses:
        return
    kinds = {CLAUSES[c].kind for c in settings.clauses}
    if settings.strategies and "strategy" not in kinds:
        raise pytest.UsageError(
            f"--mcs-clause={settings.clauses[0]}: a client clause; it does not apply to the "
            f"strategy {settings.strategies[0].target} (certify a client with --mcs-client)")
    if settings.clients and "client" not in kinds:
        raise pytest.UsageError(
            f"--mcs-clause={settings.clauses[0]}: selects no client clause for "
            f"{settings.clients[0].target}; client clauses are client.* "
            "(`mcs-conformance clauses`)")


def _share(settings: McsSettings, chosen: list, kind: str) -> list:
    """The clauses of `kind` among `chosen`, narrowed to `--mcs-shard`'s share of them."""
    clauses = [c for c in chosen if c.kind == kind]
    if settings.shard is None:
        return clauses
    share = settings.shard.select(c.id for c in clauses)
    return [c for c in clauses if c.id in share]


def clause_items(session: pytest.Session, settings: McsSettings,
                 servers: Any = None) -> list[ClauseItem]:
    """Every (target, clause) pair of the target's kind, in catalogue order; `--mcs-clause`
    narrows the clauses, then `--mcs-shard` takes its share of each kind's clauses. Client
    runners share `servers` (a `clients.runner.SessionServer`)."""
    chosen = [c for c in CLAUSES.values() if not settings.clauses or c.id in settings.clauses]
    items = []
    for loaded, wire in zip(settings.strategies, wires_for(settings)):
        for clause in _share(settings, chosen, "strategy"):
            items.append(ClauseItem.from_parent(
                session, name=f"mcs[{loaded.target}]::{clause.id}",
                clause=clause, loaded=loaded, wire=wire, settings=settings,
            ))
    if settings.clients:
        from .clients.runner import ClientRunner

        wire_name = client_wire(settings)
        for loaded in settings.clients:
            runner = ClientRunner(loaded, wire_name, quirks=settings.quirks,
                                  timeout=settings.timeout, servers=servers)
            for clause in _share(settings, chosen, "client"):
                items.append(ClauseItem.from_parent(
                    session, name=f"mcs[{loaded.target}]::{clause.id}", clause=clause,
                    loaded=loaded, wire=settings.wire, settings=settings, runner=runner,
                ))
    return items

"""Turn resolved settings into the run: each strategy's wire, then one item per clause."""
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


def clause_items(session: pytest.Session, settings: McsSettings) -> list[ClauseItem]:
    """Every (strategy, clause) pair, in catalogue order; `--mcs-clause` narrows the clauses,
    then `--mcs-shard` takes its share of them."""
    chosen = [c for c in CLAUSES.values() if not settings.clauses or c.id in settings.clauses]
    if settings.shard is not None:
        share = settings.shard.select(c.id for c in chosen)
        chosen = [c for c in chosen if c.id in share]
    items = []
    for loaded, wire in zip(settings.strategies, wires_for(settings)):
        for clause in chosen:
            items.append(ClauseItem.from_parent(
                session, name=f"mcs[{loaded.target}]::{clause.id}",
                clause=clause, loaded=loaded, wire=wire, settings=settings,
            ))
    return items

"""Turn resolved settings into the run: one item per (target, clause), in catalogue order.

Strategies run the strategy clauses in-process; clients and harnesses run the client clauses
over HTTP, against one local provider server shared by the whole session; engines' tool
parsers run the parser clauses in-process.
"""
from __future__ import annotations

from typing import Any

import pytest

from mcs_conformance.clauses import (AnySubject, Clause, CLAUSES, ClientSubject, ParserSubject,
                                     Subject)
from mcs_conformance.clients import ClientRunner, SessionServer
from mcs_conformance.plugin._items import ClauseItem
from mcs_conformance.plugin._options import McsSettings
from mcs_conformance.targets import ParserTarget, StrategyTarget, Target

__all__ = ["TargetNode", "clause_items", "target_nodes"]


def _share(settings: McsSettings, chosen: list[Clause], kind: str) -> list[Clause]:
    """The clauses of `kind` among `chosen`, narrowed to `--mcs-shard`'s share of them."""
    clauses = [c for c in chosen if c.kind == kind]
    if settings.shard is None:
        return clauses
    share = settings.shard.select(c.id for c in clauses)
    return [c for c in clauses if c.id in share]


class TargetNode(pytest.Collector):
    """One target's clauses, collected as pytest collects tests (`mcs[pkg:Obj]::clause.id`)."""

    def __init__(self, *, loaded: Target, settings: McsSettings,
                 servers: SessionServer | None = None, **kw: Any):
        super().__init__(**kw)
        self.loaded = loaded
        self.mcs = settings
        self.servers = servers

    def collect(self) -> list[ClauseItem]:
        return clause_items(self, self.mcs, self.loaded, self.servers)

    def reportinfo(self) -> tuple[str, int | None, str]:
        return self.name, None, self.loaded.target


def target_nodes(session: pytest.Session, settings: McsSettings,
                 servers: SessionServer | None) -> list[TargetNode]:
    """A node a target, strategies first; client runners share `servers`."""
    return [TargetNode.from_parent(session, name=f"mcs[{loaded.target}]",
                                   nodeid=f"mcs[{loaded.target}]", loaded=loaded,
                                   settings=settings, servers=servers)
            for loaded in settings.targets]


def clause_items(parent: pytest.Collector, settings: McsSettings, loaded: Target,
                 servers: SessionServer | None = None) -> list[ClauseItem]:
    """The target's (target, clause) items of its kind, in catalogue order; `--mcs-clause`
    narrows the clauses, then `--mcs-shard` takes its share of each kind's clauses."""
    chosen = [c for c in CLAUSES.values() if not settings.clauses or c.id in settings.clauses]
    if isinstance(loaded, StrategyTarget):
        subject: AnySubject = Subject(strategy=loaded.strategy, target=loaded.target,
                                      wire=settings.strategy_wire(loaded), make=loaded.make)
    elif isinstance(loaded, ParserTarget):
        subject = ParserSubject(parser=loaded.parser, target=loaded.target,
                                format=loaded.format, codec=loaded.codec)
    else:
        runner = ClientRunner(loaded, settings.wire.name, quirks=settings.quirks,
                              timeout=settings.timeout, servers=servers)
        subject = ClientSubject(client=runner, target=loaded.target, wire=settings.wire)
    return [ClauseItem.from_parent(parent, name=clause.id, clause=clause, loaded=loaded,
                                   subject=subject, settings=settings)
            for clause in _share(settings, chosen, subject.kind)]

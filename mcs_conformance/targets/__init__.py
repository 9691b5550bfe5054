"""Targets: what is certified, loaded once from what the user typed.

A target is one of three kinds, each a type of its own that carries what its clauses need:
a `StrategyTarget` (an extraction strategy, run in-process), a `ClientTarget` (a Python
callable that makes one streaming request) and a `HarnessTarget` (a command speaking the
harness protocol, for a client in any language). Loading one raises `TargetError`, one line
that says what to do, for every way it can go wrong. Wires named on the command line load
here too.

May import: `mcs_conformance.base`, `mcs_conformance.wires`.
"""
from __future__ import annotations

from mcs_conformance.base import TargetError
from mcs_conformance.targets._kinds import ClientTarget, HarnessTarget, StrategyTarget, Target
from mcs_conformance.targets._load import (BUNDLED_STRATEGIES, STRATEGY_MEMBERS, load_client,
                                           load_harness, load_strategy, load_wire,
                                           missing_members)

__all__ = ["BUNDLED_STRATEGIES", "ClientTarget", "HarnessTarget", "STRATEGY_MEMBERS",
           "StrategyTarget", "Target", "TargetError", "load_client", "load_harness",
           "load_strategy", "load_wire", "missing_members"]

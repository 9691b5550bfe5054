"""Targets: what is certified, loaded once from what the user typed.

A target is one of four kinds, each a type of its own that carries what its clauses need:
a `StrategyTarget` (an extraction strategy, run in-process), a `ClientTarget` (a Python
callable that makes one streaming request), a `HarnessTarget` (a command speaking the
harness protocol, for a client in any language) and a `ParserTarget` (an inference engine's
tool parser for one catalogue format, driven in-process). Loading one raises `TargetError`, one line
that says what to do, for every way it can go wrong. Wires named on the command line load
here too.

May import: `mcs_reference`, `mcs_conformance.base`, `mcs_conformance.wires`.
"""
from __future__ import annotations

from mcs_conformance.base import TargetError
from mcs_conformance.targets._kinds import (ClientTarget, HarnessTarget, ParserTarget,
                                            StrategyTarget, Target)
from mcs_conformance.targets._load import (BUNDLED_STRATEGIES, FORMAT_NAMES, load_client, load_harness,
                                           load_parser, load_strategy, load_wire,
                                           missing_members, PARSER_MEMBERS, STRATEGY_MEMBERS)

__all__ = ["BUNDLED_STRATEGIES", "ClientTarget", "FORMAT_NAMES", "HarnessTarget", "PARSER_MEMBERS",
           "ParserTarget", "STRATEGY_MEMBERS", "StrategyTarget", "Target", "TargetError",
           "load_client", "load_harness", "load_parser", "load_strategy", "load_wire",
           "missing_members"]

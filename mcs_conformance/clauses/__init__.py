"""Clauses: every property the kit checks, with a stable id the reports cite.

Owns the clause registry and catalogue, the subjects a clause judges (an extraction
strategy, or a client through its runner), running a property under Hypothesis the same way
for every clause, comparing results, the time limit on a run, and which clauses a shard runs.
Importing this package registers every clause, in catalogue order: strategy clauses
(reassembly, resolve, extract, history, codec, robust), then client clauses, then the
clauses of an engine's tool parser, each a pure judgment of a saved observation.

May import: `mcs_reference`, `mcs_conformance.base`, `mcs_conformance.wires`,
`mcs_conformance.targets`, `mcs_conformance.clients`.
"""
from __future__ import annotations

from mcs_conformance.clauses._catalogue import catalogue_markdown
from mcs_conformance.clauses._client_rules import (BUG_SEVERITIES, EVIDENCE, Judgment,
                                                   judge_observation, NO_END_EVENT)
from mcs_conformance.clauses._compare import calls_difference, first_difference
from mcs_conformance.clauses._limits import ClauseTimeout, time_limit, timeout_behind
from mcs_conformance.clauses._registry import (AnySubject, applicable, Clause, clause,
                                               ClauseFailure, ClauseNotApplicable, CLAUSES,
                                               ClientSubject, KINDS, LEVELS, NOTE_SEVERITIES,
                                               ParserSubject, SEVERITIES, Subject)
from mcs_conformance.clauses._runner import examples_failed, examples_run, load_kit_modules
from mcs_conformance.clauses._shards import parse_shard, Shard
from mcs_conformance.clauses import (_reassembly, _resolve, _extract, _history, _codec,  # noqa: F401
                                     _robust, _client, _parser)  # registers every clause, in order
from mcs_conformance.clauses._parser import (judge_parser_observation, parser_clauses_judging,
                                             parser_observation, ParserFailure,
                                             recording_parser_observations)
from mcs_conformance.clauses._parser import message_calls as parser_message_calls
from mcs_conformance.clauses._parser import reassembled as reassembled_parser_stream

__all__ = [
    "CLAUSES", "KINDS", "LEVELS", "NOTE_SEVERITIES", "SEVERITIES", "AnySubject", "Clause", "ClauseFailure", "ClauseNotApplicable",
    "ClientSubject", "ParserSubject", "Subject", "applicable", "clause", "catalogue_markdown",
    "calls_difference", "first_difference",
    # judging a saved client observation again (the peer matrix)
    "BUG_SEVERITIES", "EVIDENCE", "Judgment", "NO_END_EVENT", "judge_observation",
    "ClauseTimeout", "time_limit", "timeout_behind",
    "examples_failed", "examples_run", "load_kit_modules", "parser_message_calls",
    "reassembled_parser_stream",
    "ParserFailure", "judge_parser_observation", "parser_clauses_judging", "parser_observation",
    "recording_parser_observations",
    "Shard", "parse_shard",
]

"""Wires: the Hypothesis generators of native messages and their streams, one per format.

Owns the wire registry, each built-in wire, the real-server quirks they draw with the
evidence of each (and the server profiles that draw one server's quirks often), the request
each drawn case needs (the features a client declares and the shapes each elicits, what a
client is told, the check of its HTTP request), the provider errors they can
end in, how a wire's chunks are framed as an HTTP body, and the hand-made shapes (text
rewritten into a message, calls written as text, prose that writes none,
malformed calls) that the clauses and the client cases build on, and the model outputs
of the format catalogue (in the spellings real models write, or mutated), cut into token
deltas, that engine tool parsers are fed. Wires are generators, never
"strategies": extraction strategies are the format experts under test.

May import: `mcs_reference`, `mcs_conformance.base`.
"""
from __future__ import annotations

from mcs_conformance.wires._base import Case, draw_pieces, pieces, Wire
from mcs_conformance.wires._content import one_of_these, positions, prose
from mcs_conformance.wires._framing import BODY_QUIRKS_OF, content_type, frame_body, json_text
from mcs_conformance.wires._handmade import (BRACES, plain_prose, quiet_prose, REWRITABLE,
                                             simple_arguments, simple_calls, TAGS, with_text,
                                             WORDS)
from mcs_conformance.wires._malformed import (bad_call, BAD_TEXTS, cut_by_max_tokens,
                                              malformed_message)
from mcs_conformance.wires._mutations import MutatedOutput, MUTATIONS, mutated_outputs
from mcs_conformance.wires._provider_errors import (ERROR_FORMS, error_message, error_objects,
                                                    http_error_body, HTTP_STATUSES)
from mcs_conformance.wires._profiles import (body_quirk_sets, parse_server, SERVER_PROFILES,
                                             ServerProfile)
from mcs_conformance.wires._provenance import Evidence
from mcs_conformance.wires._quirks import (allowed_quirks, BODY, OftenQuirks, parse_quirks,
                                           Quirk, quirk_names, QUIRKS, without_quirks)
from mcs_conformance.wires._features import (ALWAYS_ASKED, asks, Feature, FEATURES, granted,
                                             MAX_TOKENS, QUIRK_FEATURES)
from mcs_conformance.wires._request_check import request_mismatch
from mcs_conformance.wires._requests import (case_features, case_request, drawable_quirks,
                                             CODE_EXECUTION_CALLER, features_of,
                                             PROGRAMMATIC_BETA, Requestable, shape_options,
                                             tool_definition)
from mcs_conformance.wires._spellings import (spelled, spelling_choices, Spelling, SPELLINGS,
                                              spellings_of)
from mcs_conformance.wires._tokens import token_deltas, tokenize
from mcs_conformance.wires.formats import (FormatCase, format_cases, malformed_cases,
                                           prose_cases, tools_for)
from mcs_conformance.wires._registry import (BUILT_IN, case_of, chunkings, get_wire, NATIVE_WIRES,
                                             reference_strategy, wire_for_strategy, wire_names)

__all__ = [
    # the registry and what a wire is
    "BUILT_IN", "NATIVE_WIRES", "Case", "Wire", "case_of", "chunkings", "get_wire", "reference_strategy",
    "wire_for_strategy", "wire_names",
    # cutting text, drawing content
    "draw_pieces", "one_of_these", "pieces", "positions", "prose",
    # real-server quirks with their evidence, and provider errors
    "BODY", "ERROR_FORMS", "Evidence", "HTTP_STATUSES", "QUIRKS", "Quirk", "allowed_quirks",
    "error_message", "error_objects", "http_error_body", "parse_quirks", "quirk_names",
    # server profiles: one real server's quirks, each drawn often
    "SERVER_PROFILES", "OftenQuirks", "ServerProfile", "body_quirk_sets", "parse_server",
    "without_quirks",
    # the request a case needs: features a client declares, what it is told, the check
    "ALWAYS_ASKED", "CODE_EXECUTION_CALLER", "FEATURES", "Feature", "MAX_TOKENS",
    "PROGRAMMATIC_BETA", "QUIRK_FEATURES",
    "Requestable", "asks", "case_features", "case_request", "drawable_quirks", "features_of",
    "granted", "request_mismatch", "shape_options", "tool_definition",
    # a wire's chunks as an HTTP body
    "BODY_QUIRKS_OF", "content_type", "frame_body", "json_text",
    # model outputs in a catalogue format, cut into token deltas (engine tool parsers)
    "FormatCase", "format_cases", "malformed_cases", "prose_cases", "token_deltas", "tokenize",
    "tools_for",
    # the spellings real models write for a format, beside its template's own
    "SPELLINGS", "Spelling", "spelled", "spelling_choices", "spellings_of",
    # model outputs mutated (a delimiter deleted, a number overflowing, ...), by kind
    "MUTATIONS", "MutatedOutput", "mutated_outputs",
    # hand-made shapes
    "BAD_TEXTS", "BRACES", "REWRITABLE", "TAGS", "WORDS", "bad_call", "cut_by_max_tokens",
    "malformed_message", "plain_prose", "quiet_prose", "simple_arguments", "simple_calls",
    "with_text",
]

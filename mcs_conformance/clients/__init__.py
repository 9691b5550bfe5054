"""Clients: certify any client black-box over real HTTP on 127.0.0.1.

A client is `fn(base_url, wire) -> outcome` (schemas/outcome.json), or a harness process
speaking the harness protocol for a client in any language. This subsystem owns the local
provider server and what it serves (`Served`), the generators of served cases (streams, cut
bodies, provider and HTTP errors, prose, malformed calls), the harness protocol, the outcome
a client returns, the runner that puts a case through one client, `mcs-conformance serve`,
and the reference client (`mcs_conformance.clients.reference_client`, a target users name).

May import: `mcs_reference`, `mcs_conformance.base`, `mcs_conformance.wires`,
`mcs_conformance.targets`.
"""
from __future__ import annotations

from mcs_conformance.clients._cases import (cut_points, cut_streams, error_streams, http_errors,
                                            malformed_streams, prose_streams, streams,
                                            truncated_streams)
from mcs_conformance.clients._harness import (PROTOCOL_VERSION, HarnessCaseError, HarnessClient,
                                              HarnessError, HarnessStartError, harness_client)
from mcs_conformance.clients._outcome import (OutcomeError, check_outcome, error_outcome,
                                              outcome_call, truth_calls)
from mcs_conformance.clients._runner import ClientRunner, SessionServer
from mcs_conformance.clients._serve import draw_served, serve, serve_command
from mcs_conformance.clients._served import Served, served_error, served_stream, split_at
from mcs_conformance.clients._server import ProviderServer
from mcs_conformance.clients.reference_client import reference_client

__all__ = [
    # running a client
    "ClientRunner", "SessionServer", "reference_client",
    # the harness protocol
    "PROTOCOL_VERSION", "HarnessCaseError", "HarnessClient", "HarnessError", "HarnessStartError",
    "harness_client",
    # outcomes
    "OutcomeError", "check_outcome", "error_outcome", "outcome_call", "truth_calls",
    # the local provider server and what it serves
    "ProviderServer", "Served", "draw_served", "serve", "serve_command", "served_error",
    "served_stream", "split_at",
    # generators of served cases, one per situation a client clause checks
    "cut_points", "cut_streams", "error_streams", "http_errors", "malformed_streams", "prose_streams",
    "streams", "truncated_streams",
]

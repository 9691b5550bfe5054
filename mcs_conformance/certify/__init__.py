"""Certify: run the clause catalogue on one target and publish its report.

Owns `mcs-conformance certify` as a function (`run(Request)`, which builds its settings once
through the plugin's own option checks and runs one pytest session of the kit's plugin), what
it says while it runs (a line a clause, live counts on a terminal, from pytest-xdist workers
too) and at the end (`closing_lines`), the report as data (`Report`, no I/O: read back with
`Report.from_serialized`), its renderings (summary.md, junit.xml, a badge endpoint) and
merging the reports of sharded runs.

May import: every subsystem below it: `base`, `wires`, `targets`, `clients`, `clauses`,
`corpora`, `plugin`.
"""
from __future__ import annotations

from mcs_conformance.certify._merge import MergeRefused, merge, read_shard
from mcs_conformance.certify._render import badge, junit_xml, summary_markdown
from mcs_conformance.certify._report import (VERDICTS, ClauseResult, DuplicateClause,
                                             FooterMismatch, Header, InvalidLine, MissingFooter,
                                             MissingHeader, Report, ReportError)
from mcs_conformance.certify._run import (Request, UsageProblem, progress_stream, read_baseline,
                                          run, settings_for, write)
from mcs_conformance.certify._talk import closing_lines

__all__ = [
    # running a certification
    "Request", "UsageProblem", "progress_stream", "read_baseline", "run", "settings_for", "write",
    "closing_lines",
    # the report
    "VERDICTS", "ClauseResult", "DuplicateClause", "FooterMismatch", "Header", "InvalidLine",
    "MissingFooter", "MissingHeader", "Report", "ReportError",
    # rendering and merging reports
    "MergeRefused", "badge", "junit_xml", "merge", "read_shard", "summary_markdown",
]

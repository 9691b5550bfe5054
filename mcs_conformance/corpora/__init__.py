"""Corpora: recorded HTTP bodies replayed against snapshots, and failures kept as new entries.

Owns the corpus format (`NAME.sse`, `NAME.jsonl` / `.ndjson`, `NAME.bin`, an optional `NAME.meta.json`
sidecar, `__snapshots__/`), replaying a body through a chain into the outcome a snapshot pins
(and re-chunked, to show the outcome does not depend on where the body was cut),
`mcs-conformance record`, saving a failing clause's shrunk stream as an entry
(`--mcs-save-failures`), and the corpus runner the plugin hands `--mcs-corpus` to.

May import: `mcs_reference`, `mcs_conformance.base`, `wires`, `targets`, `clauses`.
"""
from __future__ import annotations

from mcs_conformance.corpora._corpus import (CORPUS_KEY, CorpusError, CorpusRun, Meta, Stream,
                                             configure, find_streams, header, load_meta,
                                             make_module, session_finish, terminal_summary,
                                             unused_snapshots)
from mcs_conformance.corpora._recorder import RecordError, plan, record_command
from mcs_conformance.corpora._recorder import write as write_entry
from mcs_conformance.corpora._regressions import save_failure, summary_line
from mcs_conformance.corpora._replay import decode, outcome, replay, wire_labels

__all__ = [
    # the corpus format
    "CorpusError", "Meta", "Stream", "find_streams", "load_meta", "unused_snapshots",
    # replaying a body
    "decode", "outcome", "replay", "wire_labels",
    # recording a body, saving a failure
    "RecordError", "plan", "record_command", "save_failure", "summary_line", "write_entry",
    # the corpus runner, for the plugin
    "CORPUS_KEY", "CorpusRun", "configure", "header", "make_module", "session_finish",
    "terminal_summary",
]

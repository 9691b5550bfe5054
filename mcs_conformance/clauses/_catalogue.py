"""The clause catalogue as Markdown, generated from the registry so the docs cannot drift."""
from __future__ import annotations

from mcs_conformance.clauses._registry import CLAUSES

__all__ = ["catalogue_markdown"]


def catalogue_markdown() -> str:
    """docs/clauses.md: every clause by family, its level, meaning and typical bug."""
    lines = [
        "# The clause catalogue", "",
        "Generated from the clause registry by `mcs-conformance clauses`; do not edit by hand.",
        "MUST clauses are the contract; SHOULD clauses are strong recommendations.",
        "Strategy clauses certify an extraction strategy in-process (`--mcs-strategy`); client "
        "clauses certify a client or a harness over HTTP (`--mcs-client`, `--mcs-harness`, "
        "see clients.md).", "",
        "| id | level | certifies | meaning |", "| --- | --- | --- | --- |",
    ]
    lines += [f"| `{c.id}` | {c.level} | {c.kind} | {c.meaning} |" for c in CLAUSES.values()]
    for c in CLAUSES.values():
        meaning = c.meaning if c.kind == "strategy" else f"*Client clause.* {c.meaning}"
        lines += ["", f"## `{c.id}` ({c.level})", "", meaning, "",
                  f"**What a failure means.** {c.failure_means}", "",
                  f"**Typical bug behind it.** {c.typical_bug}"]
    return "\n".join(lines) + "\n"

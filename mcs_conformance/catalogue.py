"""The clause catalogue as Markdown, generated from the registry so the docs cannot drift."""
from __future__ import annotations

from .clauses import CLAUSES


def catalogue_markdown() -> str:
    lines = [
        "# The clause catalogue", "",
        "Generated from the clause registry by `mcs-conformance clauses`; do not edit by hand.",
        "MUST clauses are the contract; SHOULD clauses are strong recommendations.", "",
        "| id | level | meaning |", "| --- | --- | --- |",
    ]
    lines += [f"| `{c.id}` | {c.level} | {c.meaning} |" for c in CLAUSES.values()]
    for c in CLAUSES.values():
        lines += ["", f"## `{c.id}` ({c.level})", "", c.meaning, "",
                  f"**What a failure means.** {c.failure_means}", "",
                  f"**Typical bug behind it.** {c.typical_bug}"]
    return "\n".join(lines) + "\n"

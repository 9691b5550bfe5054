"""The clause catalogue as Markdown, generated from the registry so the docs cannot drift."""
from __future__ import annotations

from mcs_conformance.clauses._registry import CLAUSES, NOTE_SEVERITIES, SEVERITIES

SEVERITY_MEANINGS = dict(zip(SEVERITIES, (
    "the client raised an error on a valid stream",
    "a call, its arguments or the text was lost or changed (or a call invented), and success "
    "was reported",
    "a cut, errored or malformed stream was reported as success, and the outcome differs from "
    "what the complete stream gives (a provider error or an HTTP error reported as success "
    "always is)",
    "a cut or errored stream was reported as success, with nothing lost: the same calls and "
    "text as the complete stream, or an Anthropic call cut by `max_tokens` whose stream says "
    "so",
    "the outcome differs only in representation: the native message has `[]` or `\"\"` "
    "where `stream=false` has null or no key (or the other way round), or an HTTP error is "
    "reported without the provider's message",
    "a body that ended cleanly before the wire's end signal (between two events, or inside "
    "one) was reported as success: whether to check the end signal is the client's contract",
)))

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
    lines += ["", "## Severities", "",
              "Every failure of a client clause carries one severity. The first three are bugs: "
              "they refuse a certification. The last three are notes (⚠, verdict `noted`): "
              "reported with their counterexample, they refuse nothing unless `certify "
              "--strict` / `--mcs-strict`. A clause looks through all of its examples for a bug "
              "before it reports a note.", "",
              "A failure also says how it is known (its `evidence`). When the streamed outcome "
              "fails and the client can make its library's non-streaming call (harness "
              "protocol v3, a Python client taking `stream`), the clause asks it the same "
              "case's whole answer: `self`, the library disagrees with itself (its stream "
              "against its own `stream=false` answer, or the same body cut and whole), stays a "
              "bug; `provider`, it agrees with itself and both differ from the provider's "
              "shape, is a note, a contract choice. `wire` means only the wire's contract "
              "says so (a cut stream), `unasked` that no non-streamed answer could be asked. A "
              "failure on a shape no real server is shown to send (a quirk without "
              "provenance, see quirks.md) is a note too.", "",
              "| severity | what happened | counts |", "| --- | --- | --- |",
              *(f"| `{name}` | {what} | {'note' if name in NOTE_SEVERITIES else 'failure'} |"
                for name, what in SEVERITY_MEANINGS.items())]
    for c in CLAUSES.values():
        meaning = c.meaning if c.kind == "strategy" else f"*Client clause.* {c.meaning}"
        lines += ["", f"## `{c.id}` ({c.level})", "", meaning, "",
                  f"**What a failure means.** {c.failure_means}", "",
                  f"**Typical bug behind it.** {c.typical_bug}"]
    return "\n".join(lines) + "\n"

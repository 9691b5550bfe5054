"""`docs/peers.md` from `peers/results.json` and the hand-written `peers/notes.json`.

One matrix per wire (rows: peers with their versions; columns: the client clauses; each
cell: quirks none, then quirks all), a one-line summary per peer, then every finding with
the quirks of its stream, a paragraph on what the library does wrong, the saved stream
and the upstream issue (or the statement that we found none). Notes hold the paragraphs
and links people write after reading the peer's source; a finding without a note shows the
kit's own reason.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from .catalog import REPO, WIRES
from .repros import existing_repro

SYMBOLS = {"passed": "✓", "failed": "✗", "errored": "E", "skipped": "–", "n/a": "n/a"}
UNCONFIRMED = "✗?"
NOT_REPORTED = "not reported upstream as far as we found"
MODES = ("none", "all")

METHOD = """\
Every library below is driven through its public streaming API, called the way its own
documentation shows, by a small harness in `peers/<name>/` that only maps the library's
result into an *outcome* (the calls, the visible text, the native message where the library
exposes one, the error it raised). The harness never patches or repairs the library. Each
harness runs in its own environment under `.peers/` with exactly the pinned version shown,
and speaks the kit's harness protocol{protocol} to `mcs-conformance certify
--harness`, which serves generated streams from the kit's local provider server
(`127.0.0.1`, real HTTP, bodies written in pieces) and judges the outcomes by the
[client clauses](clauses.md).

Each wire is certified twice per library: with `--quirks none`, the provider's own current
stream shape, and with `--quirks all`, every shape real servers send (vLLM, Ollama's
OpenAI endpoint, Azure, Groq, older API versions; see [quirks](quirks.md)). A cell shows
both verdicts, `none` first. `n/a` means the library exposes nothing to judge (no native
message): never a pass.

A failure is listed only when its shrunk counterexample, replayed alone through a fresh
harness process with the same bytes cut at the same places, gives the same failing outcome
again (`✗?` marks a failure that did not repeat). Its stream is kept in
`peers/findings/<peer>/` as a corpus entry: `pytest --mcs-corpus=peers/findings/<peer>`
replays it through the reference, and `python peers/run.py --confirm PATH` replays it
through the peer's harness (an answer the corpus cannot read, such as an HTTP error or a
body cut inside its first event, is kept as a raw `.body` for `--confirm` alone). The first row is the reference, `mcs_reference`, through the
same raw-HTTP path as everyone else. Regenerate everything with `python peers/run.py`.

Each finding also has a standalone repro beside its stream, linked below: a script that
needs nothing but the library. It serves the saved bytes from a local HTTP server as the
kit did, calls the library as the harness does, prints what the clause expects against what
the library gave, and exits 1 while the bug is there, 0 once the library behaves. Install
the pinned version its header names, then `python <name>.repro.py`, or for a Node library
`NODE_PATH=path/to/node_modules node <name>.repro.mjs`.
"""


def _protocol_link() -> str:
    """A link to the protocol's documentation where the repository has one."""
    for relative, link in (("docs/harness-protocol.md", "harness-protocol.md"),
                           ("harnesses/README.md", "../harnesses/README.md")):
        if (REPO / relative).exists():
            return f" ([how it works]({link}))"
    return ""


def short(clause: str) -> str:
    return clause.removeprefix("client.")


def _clauses(rows: list[dict], order: list[str]) -> list[str]:
    seen = {clause for row in rows for clause in row["verdicts"]} or set(order)
    return [c for c in order if c in seen] + sorted(seen - set(order))


def _heading(peer: str, wire: str, clause: str) -> str:
    return f"{peer}: `{clause}` on {wire}"


def _anchor(peer: str, wire: str, clause: str) -> str:
    """The heading's anchor as GitHub makes it (lowercase, punctuation dropped, spaces -)."""
    text = _heading(peer, wire, clause).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _cell(row: dict | None, clause: str) -> str:
    if row is None or row.get("status", "run") != "run":
        return "·"
    verdict = row["verdicts"].get(clause)
    if verdict is None:
        return "·"
    if verdict == "failed" and clause in row.get("unconfirmed", ()):
        return UNCONFIRMED
    symbol = SYMBOLS[verdict]
    if verdict == "failed":
        return f"[{symbol}](#{_anchor(row['peer'], row['wire'], clause)})"
    return symbol


def _speed(row: dict | None) -> str:
    speed = (row or {}).get("speed")
    if not speed:
        return ""
    if speed.get("ratio") is None:
        problem = speed.get("problem") or ""
        return problem if problem.startswith("more than") else "not measured"
    growth = speed.get("growth")
    ratio = speed["ratio"]
    shown = f"×{ratio:.0f}" if ratio >= 10 else f"×{ratio:.2g}"
    return shown + (f", growth {growth:.2g}" if growth is not None else "")


def _by_peer(rows: list[dict]) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        grouped[row["peer"]].append(row)
    return grouped


def matrix(wire: str, rows: list[dict], order: list[str]) -> list[str]:
    """The table of one wire: one line per peer, a cell per clause (none all)."""
    mine = [row for row in rows if row["wire"] == wire]
    if not mine:
        return []
    clauses = _clauses(mine, order)
    with_speed = any(row.get("speed") and row["speed"].get("wire") == wire for row in mine)
    head = ["peer", *(f"`{short(c)}`" for c in clauses)] + (["speed"] if with_speed else [])
    lines = [f"## {wire}", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for peer, peer_rows in _by_peer(mine).items():
        by_mode = {row["quirks"]: row for row in peer_rows}
        first = peer_rows[0]
        label = f"{peer} {first['version']}"
        if first.get("status", "run") != "run":
            label += " (not run)" if first.get("status") == "not run" else " (could not run)"
        cells = [" ".join(_cell(by_mode.get(mode), c) for mode in MODES) for c in clauses]
        timed = next((row for row in peer_rows if (row.get("speed") or {}).get("wire") == wire),
                     None)
        speed = [_speed(timed)] if with_speed else []
        lines.append(f"| {label} | " + " | ".join([*cells, *speed]) + " |")
    return lines + [""]


def summary(peer: str, rows: list[dict], notes: dict) -> str:
    """One line on a peer: its own note, else what it fails where."""
    first = rows[0]
    head = f"- **{peer}** {first['version']} ({first['language']})"
    written = notes.get(peer, {}).get("summary")
    speed = notes.get(peer, {}).get("speed")
    if written:
        return f"{head}: {written}" + (f" Speed: {speed}" if speed else "")
    if all(row.get("status", "run") != "run" for row in rows):
        problem = next((row.get("problem") for row in rows if row.get("problem")), None)
        return f"{head}: not run yet" + (f" ({problem})" if problem else "") + "."
    failing: dict[str, dict] = defaultdict(lambda: defaultdict(set))
    for row in rows:
        for finding in row["findings"]:
            failing[finding["clause"]][row["wire"]].add(row["quirks"])
    wires = sorted({row["wire"] for row in rows if row.get("status", "run") == "run"})
    if not failing:
        return f"{head}: passes every client clause it can be judged on, on {', '.join(wires)}."
    parts = []
    for clause, where in sorted(failing.items()):
        places = "; ".join(f"{wire} quirks {' and '.join(m for m in MODES if m in modes)}"
                           for wire, modes in sorted(where.items()))
        parts.append(f"`{short(clause)}` ({places})")
    return f"{head}: fails {', '.join(parts)}." + (f" Speed: {speed}" if speed else "")


def _note(notes: dict, peer: str, wire: str, clause: str) -> dict:
    found = notes.get(peer, {}).get("findings", {})
    return found.get(f"{clause}@{wire}") or found.get(clause) or {}


def _run_line(row: dict, finding: dict) -> str:
    quirks = ", ".join(f"`{q}`" for q in finding["quirks"]) or "none (the provider's own shape)"
    if finding.get("corpus"):
        stream = f"[`{finding['corpus']}`](../{finding['corpus']})"
        if finding.get("note"):
            stream += f" ({finding['note']})"
        repro = existing_repro(REPO / finding["corpus"])
        if repro is not None:
            shown = repro.relative_to(REPO).as_posix()
            stream += f"; standalone repro [`{repro.name}`](../{shown})"
    else:
        stream = f"not kept: {finding.get('note') or 'no stream'}"
    return (f"- Run with quirks {row['quirks']}: the minimal counterexample holds quirks "
            f"{quirks}; stream {stream}.")


def finding_lines(found: list[tuple[dict, dict]], notes: dict) -> list[str]:
    """One section for a peer's failures of one clause on one wire (both quirks modes)."""
    row, finding = found[0]
    peer, wire, clause = row["peer"], row["wire"], finding["clause"]
    note = _note(notes, peer, wire, clause)
    paragraph = note.get("paragraph") or (
        f"The kit's reason: {finding.get('reason') or 'none given'}.")
    upstream = note.get("upstream")
    return [f"#### {_heading(peer, wire, clause)}", "", f"- Version: {row['version']}.",
            *(_run_line(r, f) for r, f in found),
            f"- Upstream: {f'<{upstream}>' if upstream else NOT_REPORTED}.", "", paragraph, ""]


def render(rows: list[dict], notes: dict, order: list[str]) -> str:
    """The whole page."""
    lines = ["# The peer matrix: streamed tool calls in the libraries people use", "",
             "<!-- Generated by peers/run.py from peers/results.json and peers/notes.json; "
             "do not edit. -->", "", METHOD.format(protocol=_protocol_link())]
    grouped = _by_peer(rows)
    lines += ["## Summary", ""] + [summary(p, r, notes) for p, r in grouped.items()] + [""]
    lines.append("Legend: ✓ passed, ✗ failed (linked to the finding), ✗? failed but did not "
                 "fail again alone, E errored, – skipped, n/a nothing to judge, · not run. "
                 "Each cell: quirks none, then quirks all.")
    if any(row.get("speed") for row in rows):
        lines.append("Speed: seconds to consume one 1 MB tool-argument stream in 10 000 chunks "
                     "from the local server, over the reference's seconds on the same wire; "
                     "growth: per-chunk cost at 10 000 chunks over that at 1 000 (about 1 is "
                     "linear, about 10 is a quadratic accumulator; fixed costs per request pull "
                     "both toward 1). The reference's rows show 1 (it is the base) and its own growth on each "
                     "wire. The machine that measured is shared and busy: read the figures as "
                     "orders of magnitude. Node's JIT "
                     "warms up on the first streams, so a Node growth can read below 1.")
    lines.append("")
    for wire in WIRES:
        lines += matrix(wire, rows, order)
    grouped: dict[tuple, list] = defaultdict(list)
    for row in rows:
        for finding in row["findings"]:
            grouped[(row["peer"], row["wire"], finding["clause"])].append((row, finding))
    if grouped:
        lines += ["## Findings", ""]
        for found in grouped.values():
            lines += finding_lines(found, notes)
    return "\n".join(lines).rstrip() + "\n"


def clause_order() -> list[str]:
    """The client clauses in the kit's catalogue order."""
    from mcs_conformance.clauses import CLAUSES

    return [clause for clause in CLAUSES if clause.startswith("client.")]


def page(rows: list[dict], notes: dict[str, Any]) -> str:
    return render(rows, notes, clause_order())

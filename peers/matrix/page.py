"""`docs/peers.md` from `peers/results.json` and the hand-written `peers/notes.json`.

A one-line summary per peer; per wire, a compatibility grid (rows: peers with their
versions; columns: the provider's own stream shape, then each server profile; a cell: the
worst verdict of that run) and a clause matrix (columns: the client clauses; a cell: the
own shape, then the worst over the servers); then every finding (✗: a bug) and, apart,
every note (⚠: strictness or fidelity), each with the quirks of its stream, a paragraph on
what the library does, the saved stream, its standalone repro and the upstream issue (or
the statement that we found none, with the terms searched). Notes hold the paragraphs and
links people write after reading the peer's source; a finding without one shows the kit's
own reason.
"""
from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from .catalog import REPO, WIRES, modes_of
from .repros import existing_repro

SYMBOLS = {"passed": "✓", "failed": "✗", "noted": "⚠", "errored": "E", "skipped": "–",
           "n/a": "n/a"}
UNCONFIRMED = "✗?"
WORST_FIRST = (UNCONFIRMED, "✗", "E", "⚠", "✓", "n/a", "–", "·")  # a cell shows the worst
NOTE_SEVERITIES = ("strictness", "fidelity")
NOT_REPORTED = "not reported upstream as far as we found"
OWN = "none"  # the mode of the provider's own stream shape

METHOD = """\
Every library below is driven through its public streaming API, called the way its own
documentation shows, by a small harness in `peers/<name>/` that only maps the library's
result into an *outcome* (the calls, the visible text, the native message where the library
exposes one, the error it raised). The harness never patches or repairs the library. Each
harness runs in its own environment under `.peers/` with exactly the pinned version shown,
and speaks the kit's harness protocol{protocol} to `mcs-conformance certify
--harness`, which serves generated streams from the kit's local provider server
(`127.0.0.1`, real HTTP, bodies written in pieces) and judges the outcomes by the
[client clauses](clauses.md). The harness declares which request features its library can
express (`n`, `stream_options.include_usage`, tools, thinking, betas): the kit serves only
streams that the library's request could have elicited, and checks the request it gets.

Each wire is certified with the provider's own current stream shape (`--quirks none`),
on every client clause, and once per **server profile** (`--server NAME`: one real
server's quirks, each drawn often, no other; see [quirks](quirks.md#server-profiles)), on
the clauses a stream's shape decides: `calls`, `text`, `message` and `byte-cuts`. The
compatibility grid answers "will this library work with that server?"; the clause matrix
under it shows which contract fails. `n/a` means the library exposes nothing to judge (no native message):
never a pass.

Every failure carries a [severity](clauses.md#severities). A ✗ is a bug a maintainer can
act on: the library crashed on a valid stream (`crash`), lost or changed a call or the
text while reporting success (`silent-loss`), or reported success for a cut, errored or
malformed stream with an outcome that differs from the complete one (`false-success`). A ⚠
is a note, listed apart: a cut or errored stream reported as success with nothing lost
(`strictness`), or a difference of representation only (`fidelity`). After a failure the
kit searches again without the quirks of its counterexample, so a library failing on two
servers' shapes shows both.

A failure is listed only when its shrunk counterexample, replayed alone through a fresh
harness process with the same bytes cut at the same places, gives the same failing outcome
again (`✗?` marks a failure that did not repeat). Its stream is kept in
`peers/findings/<peer>/` as a corpus entry: `pytest --mcs-corpus=peers/findings/<peer>`
replays it through the reference, and `python peers/run.py --confirm PATH` replays it
through the peer's harness (an answer the corpus cannot read, such as an HTTP error or a
body cut inside its first event, is kept as a raw `.body`, which `--confirm` and its repro
replay). The
first row is the reference, `mcs_reference`, through the same raw-HTTP path as everyone
else. Regenerate everything with `python peers/run.py`; it prints the time of each cell.

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


def _heading(peer: str, wire: str, clause: str, note: bool = False) -> str:
    return f"{peer}: `{clause}` on {wire}" + (" (note)" if note else "")


def _anchor(peer: str, wire: str, clause: str, note: bool = False) -> str:
    """The heading's anchor as GitHub makes it (lowercase, punctuation dropped, spaces -)."""
    text = _heading(peer, wire, clause, note).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _symbol(row: dict | None, clause: str) -> tuple[str, str]:
    """(bare symbol, shown) of one clause in one run: ✗ and ⚠ link to their section."""
    if row is None or row.get("status", "run") != "run":
        return "·", "·"
    verdict = row["verdicts"].get(clause)
    if verdict is None:
        return "·", "·"
    if verdict == "failed" and clause in row.get("unconfirmed", ()):
        return UNCONFIRMED, UNCONFIRMED
    symbol = SYMBOLS[verdict]
    if verdict in ("failed", "noted"):
        anchor = _anchor(row["peer"], row["wire"], clause, note=verdict == "noted")
        return symbol, f"[{symbol}](#{anchor})"
    return symbol, symbol


def _worst(pairs: list[tuple[str, str]]) -> str:
    """The worst of some (bare, shown) symbols, shown; "·" when there are none."""
    return min(pairs, key=lambda pair: WORST_FIRST.index(pair[0]), default=("·", "·"))[1]


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


def _label(peer: str, peer_rows: list[dict]) -> str:
    first = peer_rows[0]
    label = f"{peer} {first['version']}"
    if first.get("status", "run") != "run":
        label += " (not run)" if first.get("status") == "not run" else " (could not run)"
    return label


def _modes(wire: str, rows: list[dict]) -> list[str]:
    """The wire's modes, own shape first, then its server profiles, then any other run."""
    known = list(modes_of(wire))
    return known + sorted({row["quirks"] for row in rows} - set(known))


def grid(wire: str, rows: list[dict], order: list[str]) -> list[str]:
    """Library × server on one wire: each cell the worst verdict of that run."""
    mine = [row for row in rows if row["wire"] == wire]
    if not mine:
        return []
    modes = _modes(wire, mine)
    head = ["library", *("own shape" if mode == OWN else f"`{mode}`" for mode in modes)]
    lines = [f"### {wire}: compatibility by server", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head)]
    for peer, peer_rows in _by_peer(mine).items():
        by_mode = {row["quirks"]: row for row in peer_rows}
        cells = [_worst([_symbol(by_mode.get(mode), c) for c in _clauses(mine, order)])
                 for mode in modes]
        lines.append(f"| {_label(peer, peer_rows)} | " + " | ".join(cells) + " |")
    return lines + [""]


def matrix(wire: str, rows: list[dict], order: list[str]) -> list[str]:
    """The clauses of one wire: one line per peer; a cell per clause: the provider's own
    shape, then the worst over the server profiles."""
    mine = [row for row in rows if row["wire"] == wire]
    if not mine:
        return []
    clauses = _clauses(mine, order)
    with_speed = any(row.get("speed") and row["speed"].get("wire") == wire for row in mine)
    head = ["peer", *(f"`{short(c)}`" for c in clauses)] + (["speed"] if with_speed else [])
    lines = [f"### {wire}: clauses (own shape, then the worst over the servers)", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for peer, peer_rows in _by_peer(mine).items():
        by_mode = {row["quirks"]: row for row in peer_rows}
        servers = [row for row in peer_rows if row["quirks"] != OWN]
        cells = [f"{_symbol(by_mode.get(OWN), c)[1]} "
                 f"{_worst([_symbol(row, c) for row in servers])}" for c in clauses]
        timed = next((row for row in peer_rows if (row.get("speed") or {}).get("wire") == wire),
                     None)
        speed = [_speed(timed)] if with_speed else []
        lines.append(f"| {_label(peer, peer_rows)} | " + " | ".join([*cells, *speed]) + " |")
    return lines + [""]


def _is_note(finding: dict) -> bool:
    return finding.get("severity") in NOTE_SEVERITIES


def _mode_name(mode: str) -> str:
    return "the provider's own shape" if mode == OWN else f"server `{mode}`"


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
    noted: set[str] = set()
    for row in rows:
        for finding in row["findings"]:
            if _is_note(finding):
                noted.add(finding["clause"])
            else:
                failing[finding["clause"]][row["wire"]].add(row["quirks"])
    wires = sorted({row["wire"] for row in rows if row.get("status", "run") == "run"})
    tail = (f" Notes (⚠) on {', '.join(f'`{short(c)}`' for c in sorted(noted))}." if noted
            else "") + (f" Speed: {speed}" if speed else "")
    if not failing:
        return (f"{head}: no bug found in any client clause it can be judged on, on "
                f"{', '.join(wires)}.{tail}")
    parts = []
    for clause, where in sorted(failing.items()):
        places = "; ".join(f"{wire}: {', '.join(_mode_name(m) for m in _modes(wire, rows) if m in modes)}"
                           for wire, modes in sorted(where.items()))
        parts.append(f"`{short(clause)}` ({places})")
    return f"{head}: fails {', '.join(parts)}.{tail}"


def _notes(notes: dict, peer: str, wire: str, clause: str) -> list[dict]:
    """The notes people wrote on a peer's failures of `clause` on `wire`: one, or a list of
    them, one per cause (each naming the `quirks` whose runs it explains)."""
    found = notes.get(peer, {}).get("findings", {})
    value = found.get(f"{clause}@{wire}") or found.get(clause) or []
    return value if isinstance(value, list) else [value]


def _note_for(written: list[dict], finding: dict) -> dict:
    """The note that explains this finding: one whose `quirks` its counterexample holds
    (`[]`: the provider's own shape only), else one that names no quirks; {} for none."""
    held = set(finding["quirks"])
    for note in written:
        wanted = note.get("quirks")
        if wanted is not None and (set(wanted) <= held if wanted else not held):
            return note
    return next((note for note in written if "quirks" not in note), {})


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
    severity = f" ({finding['severity']})" if finding.get("severity") else ""
    return (f"- Against {_mode_name(row['quirks'])}{severity}: the minimal counterexample "
            f"holds quirks {quirks}; stream {stream}.")


def finding_lines(found: list[tuple[dict, dict]], notes: dict) -> list[str]:
    """One section for a peer's failures (or notes) of one clause on one wire: its runs
    grouped by the note that explains them, each group with its upstream and paragraph (the
    kit's reason where nobody wrote one)."""
    row, finding = found[0]
    peer, wire, clause = row["peer"], row["wire"], finding["clause"]
    written = _notes(notes, peer, wire, clause)
    groups: dict[int, list] = defaultdict(list)
    for run, each in found:
        note = _note_for(written, each)
        groups[id(note) if note else -len(groups) - 1].append((run, each, note))
    lines = [f"#### {_heading(peer, wire, clause, _is_note(finding))}", "",
             f"- Version: {row['version']}."]
    for group in groups.values():
        note = group[0][2]
        paragraph = note.get("paragraph") or (
            f"The kit's reason: {group[0][1].get('reason') or 'none given'}.")
        upstream, searched = note.get("upstream"), note.get("searched")
        status = f"<{upstream}>" if upstream else NOT_REPORTED + (
            f" (searched: {searched})" if searched else "")
        lines += [*(_run_line(r, f) for r, f, _ in group), f"- Upstream: {status}.", "",
                  paragraph, ""]
    return lines


def profiles_line(rows: list[dict]) -> str:
    """Which Hypothesis profile of the kit the runs used (examples per clause), by peer."""
    used: dict[tuple, list] = defaultdict(list)
    for peer, peer_rows in _by_peer(rows).items():
        own = {row.get("profile") for row in peer_rows if row["quirks"] == OWN} - {None}
        servers = {row.get("profile") for row in peer_rows if row["quirks"] != OWN} - {None}
        if own or servers:
            used[(tuple(sorted(own)), tuple(sorted(servers)))].append(peer)
    parts = [f"own shape at {'/'.join(f'`{p}`' for p in own) or '·'} and servers at "
             f"{'/'.join(f'`{p}`' for p in servers) or '·'} for {', '.join(peers)}"
             for (own, servers), peers in used.items()]
    return ("The kit's Hypothesis profile of the runs (`ci`: 100 examples a clause, `dev`: "
            "40): " + "; ".join(parts) + ".") if parts else ""


def render(rows: list[dict], notes: dict, order: list[str]) -> str:
    """The whole page."""
    lines = ["# The peer matrix: streamed tool calls in the libraries people use", "",
             "<!-- Generated by peers/run.py from peers/results.json and peers/notes.json; "
             "do not edit. -->", "", METHOD.format(protocol=_protocol_link())]
    grouped = _by_peer(rows)
    lines += ["## Summary", ""] + [summary(p, r, notes) for p, r in grouped.items()] + [""]
    lines.append("Legend: ✓ passed, ✗ a bug (linked to the finding), ⚠ a note only "
                 "(strictness or fidelity, linked), ✗? failed but did not fail again alone, "
                 "E errored, – skipped, n/a nothing to judge, · not run.")
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
    lines += ["## Compatibility grid: library × server", "",
              "Each cell is the worst verdict of the library's run against that server's "
              "streams (its profile's quirks, each drawn often) over the shape clauses; "
              "\"own shape\" is the provider's own current stream, over every client "
              "clause. " + profiles_line(rows), ""]
    for wire in WIRES:
        lines += grid(wire, rows, order)
    lines += ["## Clause matrices", ""]
    for wire in WIRES:
        lines += matrix(wire, rows, order)
    sections: dict[tuple, list] = defaultdict(list)
    for row in rows:
        for finding in row["findings"]:
            key = (row["peer"], row["wire"], finding["clause"], _is_note(finding))
            sections[key].append((row, finding))
    for title, notes_only in (("Findings", False), ("Notes (⚠: strictness and fidelity)", True)):
        chosen = [found for key, found in sections.items() if key[3] == notes_only]
        if chosen:
            lines += [f"## {title}", ""]
            for found in chosen:
                lines += finding_lines(found, notes)
    return "\n".join(lines).rstrip() + "\n"


def clause_order() -> list[str]:
    """The client clauses in the kit's catalogue order."""
    from mcs_conformance.clauses import CLAUSES

    return [clause for clause in CLAUSES if clause.startswith("client.")]


def page(rows: list[dict], notes: dict[str, Any]) -> str:
    return render(rows, notes, clause_order())

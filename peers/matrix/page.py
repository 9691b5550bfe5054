"""`docs/peers.md`, derived from the judged matrix (`judging.Matrix`): nothing on it is
written by hand but the causes' own words.

A summary line per library; per wire, a compatibility grid (library × the provider's own
shape and each server profile: the worst mark over the cell's clauses) and a clause matrix;
then the bugs by cause (✗), the libraries' contracts by cause (⚠), and what nobody has read
yet (?), each failure linked to its saved observation.
"""
from __future__ import annotations

from collections import defaultdict

from mcs_conformance.clauses import CLAUSES

from .catalog import WIRES, modes_of
from .judging import Cause, Failure, Matrix, worst
from .observations import Cell, ROOT, relative

WORST_FIRST = ("✗", "?", "E", "⚠", "✓", "n/a", "–", "·")
STATUS_MARKS = {"errored": "E", "skipped": "–", "n/a": "n/a"}

METHOD = """\
Every library below is driven through its public API, called the way its own documentation
shows, by a small harness in `peers/<name>/` that only maps the library's result into an
*outcome* (the calls, the visible text, the native message where the library exposes one,
the error it raised), and never patches or repairs the library. Each harness runs in its own
environment under `.peers/` with exactly the pinned version shown and speaks the kit's
[harness protocol](harness-protocol.md) (version 3) to `mcs-conformance certify --harness`,
which serves generated answers from the kit's local provider server (`127.0.0.1`, real
HTTP, bodies written in pieces) and judges the outcomes by the [client clauses](clauses.md).
The harness declares the request features its library can express: the kit serves only
shapes that request could elicit, and checks the request it gets.

Each wire is certified with the provider's own current stream shape (`--quirks none`, every
client clause) and once per **server profile** (`--server NAME`: one real server's quirks,
each drawn often; see [quirks](quirks.md#server-profiles), with the provenance of each), on
the clauses a stream's shape decides: `calls`, `text`, `message` and `byte-cuts`.

**What counts as a bug.** A run keeps what it saw as *observations*: the bytes and their
cuts, a clean end or a drop, the request, the truth of the case, and the library's outcomes:
the stream, and when the stream failed, the library's own non-streamed answer of the same
case (`stream=false`, through its documented non-streaming call). Everything on this page is
derived from those saved observations by the current rules (`python peers/run.py --page`,
and a test in CI that fails when the page differs). A failure is a bug (✗) only when a person
has read it against the library's source and written its **cause**, and only when the library
disagrees with itself (its stream against its own `stream=false` answer, or the same body cut
and whole) or breaks a promise of its own docs or types that the cause quotes; never on a
shape no real server is shown to send. A library that agrees with itself and not with the
provider's documented shape, or accepts a cleanly cut stream without promising to notice, is
a ⚠: its contract, said with its reason. A failure nobody has read yet, or one that did not
repeat when replayed alone through a fresh harness, is a `?`: a lead, not a finding.

Each bug has one standalone repro (at most 60 lines, the library's documented call and the
saved bytes, exit 1 while the bug is there) and an upstream issue text ready to paste, beside
its cause in `peers/causes/<peer>/`. The first row is the reference, `mcs_reference`,
through the same raw-HTTP path as everyone else. `python peers/run.py` runs the matrix again
(resumable; one CI job per peer: `.github/workflows/peers.yml`).
"""


def short(clause: str) -> str:
    return clause.removeprefix("client.")


def _clauses() -> list[str]:
    return [clause for clause in CLAUSES if clause.startswith("client.")]


def _mode_name(mode: str) -> str:
    return "own shape" if mode == "none" else f"server `{mode}`"


def _link(mark: str, failures: list[Failure]) -> str:
    """The mark, linked to the cause of its first failure (or to the unread list)."""
    shown = next((f for f in failures if f.mark == mark), None)
    if shown is None:
        return mark
    anchor = shown.cause.anchor if mark in ("✗", "⚠") else "not-yet-read"
    return f"[{mark}](#{anchor})"


def _clause_mark(cell: Cell | None, clause: str, failures: list[Failure]) -> tuple[str, str]:
    """(bare, shown) mark of one clause of one cell."""
    if cell is None or cell.data.get("status") != "run" or clause not in cell.clauses:
        return "·", "·"
    entry = cell.clauses[clause]
    if entry["status"] != "ran":
        return STATUS_MARKS.get(entry["status"], "E"), STATUS_MARKS.get(entry["status"], "E")
    mine = [f for f in failures if f.cell is cell and f.clause == clause]
    if not mine:
        return "✓", "✓"
    mark = min((f.mark for f in mine), key=WORST_FIRST.index)
    return mark, _link(mark, mine)


def _worst(pairs: list[tuple[str, str]]) -> str:
    return min(pairs, key=lambda pair: WORST_FIRST.index(pair[0]), default=("·", "·"))[1]


def _cell_mark(cell: Cell | None, failures: list[Failure]) -> str:
    if cell is not None and cell.data.get("status") == "could not run":
        return "E"
    return _worst([_clause_mark(cell, c, failures) for c in _clauses()])


def _label(cells: list[Cell]) -> str:
    return f"{cells[0].peer} {cells[0].data.get('version', '?')}"


def _peers(matrix: Matrix) -> dict[str, list[Cell]]:
    grouped: dict[str, list[Cell]] = defaultdict(list)
    for cell in matrix.cells:
        grouped[cell.peer].append(cell)
    order = sorted(grouped, key=lambda peer: (peer != "mcs-reference", peer))
    return {peer: grouped[peer] for peer in order}


def grid(wire: str, matrix: Matrix) -> list[str]:
    peers = {p: [c for c in cells if c.wire == wire] for p, cells in _peers(matrix).items()}
    peers = {p: cells for p, cells in peers.items() if cells}
    if not peers:
        return []
    modes = list(modes_of(wire))
    lines = [f"### {wire}: compatibility by server", "",
             "| library | " + " | ".join("own shape" if m == "none" else f"`{m}`" for m in modes) + " |",
             "|---|" + "---|" * len(modes)]
    for cells in peers.values():
        by_mode = {cell.mode: cell for cell in cells}
        lines.append(f"| {_label(cells)} | " + " | ".join(
            _cell_mark(by_mode.get(mode), matrix.failures) for mode in modes) + " |")
    return lines + [""]


def clause_matrix(wire: str, matrix: Matrix) -> list[str]:
    peers = {p: [c for c in cells if c.wire == wire] for p, cells in _peers(matrix).items()}
    peers = {p: cells for p, cells in peers.items() if cells}
    if not peers:
        return []
    clauses = _clauses()
    lines = [f"### {wire}: clauses (own shape, then the worst over the servers)", "",
             "| library | " + " | ".join(f"`{short(c)}`" for c in clauses) + " |",
             "|---|" + "---|" * len(clauses)]
    for cells in peers.values():
        own = next((c for c in cells if c.mode == "none"), None)
        servers = [c for c in cells if c.mode != "none"]
        marks = [f"{_clause_mark(own, c, matrix.failures)[1]} "
                 f"{_worst([_clause_mark(s, c, matrix.failures) for s in servers])}"
                 for c in clauses]
        lines.append(f"| {_label(cells)} | " + " | ".join(marks) + " |")
    return lines + [""]


def _explained(matrix: Matrix, cause: Cause) -> list[Failure]:
    return [f for f in matrix.failures if f.cause is cause]


def _where(failures: list[Failure]) -> str:
    """`clause` on wire (own shape, server a, ...), one part per clause and wire."""
    places: dict[tuple, list] = defaultdict(list)
    for f in failures:
        key = (f.clause, f.cell.wire)
        if f.cell.mode not in places[key]:
            places[key].append(f.cell.mode)
    return "; ".join(f"`{short(clause)}` on {wire} ({', '.join(map(_mode_name, modes))})"
                     for (clause, wire), modes in places.items())


def _saved(failures: list[Failure], limit: int = 3) -> str:
    seen: list[str] = []
    for f in failures:
        path = relative(ROOT / f.cell.peer / "cases" / f"{f.observation.id}.json")
        if path not in seen:
            seen.append(path)
    shown = ", ".join(f"[{p.rsplit('/', 1)[-1].removesuffix('.json')}](../{p})" for p in seen[:limit])
    return shown + (f" and {len(seen) - limit} more" if len(seen) > limit else "")


def _upstream(cause: Cause) -> str:
    if cause.upstream:
        return "; ".join(f"{u['url']} ({u['state']})" for u in cause.upstream)
    return f"not reported upstream as far as we found (searched: {cause.searched})"


def _evidence(failures: list[Failure], cause: Cause) -> str:
    kinds = sorted({f.judgment.evidence for f in failures})
    said = {"self": "the library disagrees with itself (its stream against its own "
                    "stream=false answer, or the same body cut and whole)",
            "provider": "it agrees with its own stream=false answer",
            "wire": "the wire's contract", "unasked": "no stream=false answer to compare"}
    text = "; ".join(said[k] for k in kinds)
    return text + (f"; the library's promise: {cause.promise}" if cause.promise else "")


def bug_lines(matrix: Matrix, cause: Cause) -> list[str]:
    failures = _explained(matrix, cause)
    version = failures[0].cell.data.get("version", "?")
    issue = cause.repro.rsplit(".repro.", 1)[0] + ".issue.md" if cause.repro else ""
    return [f"### {cause.peer}: {cause.title}", "", f'<a id="{cause.anchor}"></a>', "",
            f"- {cause.peer} {version}; severity `{cause.severity}`; evidence: "
            f"{_evidence(failures, cause)}.",
            f"- Shows on: {_where(failures)}.",
            f"- Library code: {cause.code}.",
            f"- Standalone repro: [`{cause.repro}`](../{cause.repro}); issue text: "
            f"[`{issue}`](../{issue}).",
            f"- Upstream: {_upstream(cause)}.",
            f"- Saved observations: {_saved(failures)}.", "", cause.text, ""]


def contract_line(matrix: Matrix, cause: Cause) -> str:
    failures = _explained(matrix, cause)
    return (f'- <a id="{cause.anchor}"></a>**{cause.peer}: {cause.title}** '
            f"(`{cause.severity}`; {_where(failures)}). {cause.text} "
            f"Upstream: {_upstream(cause)}. Saved: {_saved(failures, 1)}.")


def unread_line(failure: Failure) -> str:
    why = "" if failure.confirmed else " (did not repeat when replayed alone)"
    return (f"- {failure.cell.peer} `{short(failure.clause)}` on {failure.cell.wire}, "
            f"{_mode_name(failure.cell.mode)}{why}: {failure.judgment.severity}, evidence "
            f"{failure.judgment.evidence}: {failure.judgment.reason} "
            f"({_saved([failure], 1)})")


def summary_line(peer: str, cells: list[Cell], matrix: Matrix, said: dict) -> str:
    mine = [f for f in matrix.failures if f.cell.peer == peer]
    bugs = [c for c in matrix.causes.get(peer, ()) if c.verdict == "bug" and _explained(matrix, c)]
    contracts = [c for c in matrix.causes.get(peer, ()) if c.verdict != "bug"
                 and _explained(matrix, c)]
    unread = [f for f in mine if f.mark == "?"]
    parts = []
    if bugs:
        parts.append("bugs (✗): " + "; ".join(f"[{c.title}](#{c.anchor})" for c in bugs))
    if contracts:
        parts.append(f"{len(contracts)} contract note(s) (⚠)")
    if unread:
        parts.append(f"{len(unread)} failure(s) not yet read (?)")
    wires = ", ".join(dict.fromkeys(c.wire for c in cells))
    found = "; ".join(parts) or f"no failure on {wires}"
    speed = f" Speed: {said['speed']}" if said.get("speed") else ""
    intro = f"{said['summary']} " if said.get("summary") else ""
    return (f"- **{peer}** {cells[0].data.get('version', '?')} ({cells[0].data.get('language', '?')}): "
            f"{intro}{found}.{speed}")


def render(matrix: Matrix, said: dict[str, dict]) -> str:
    """The whole page."""
    lines = ["# The peer matrix: streamed tool calls in the libraries people use", "",
             "<!-- Generated by peers/run.py from peers/observations/ and peers/causes/; "
             "do not edit. -->", "", METHOD, "## Summary", ""]
    lines += [summary_line(peer, cells, matrix, said.get(peer, {}))
              for peer, cells in _peers(matrix).items()]
    lines += ["", "Legend: ✓ passed, ✗ a bug (linked to its cause), ⚠ the library's contract "
              "(linked), ? a failure not yet read or not repeated alone, E errored or could "
              "not run, – skipped, n/a nothing to judge (no native message; no end event on "
              "the wire), · not run.", "", "## Compatibility grid: library × server", ""]
    for wire in WIRES:
        lines += grid(wire, matrix)
    lines += ["## Clause matrices", ""]
    for wire in WIRES:
        lines += clause_matrix(wire, matrix)
    causes = [cause for causes in matrix.causes.values() for cause in causes
              if _explained(matrix, cause)]
    bugs = [c for c in causes if c.verdict == "bug"]
    if bugs:
        lines += ["## Bugs, by cause (✗)", ""]
        for cause in bugs:
            lines += bug_lines(matrix, cause)
    contracts = [c for c in causes if c.verdict != "bug"]
    if contracts:
        lines += ["## The libraries' contracts, by cause (⚠)", ""]
        lines += [contract_line(matrix, cause) for cause in contracts] + [""]
    unread = [f for f in matrix.failures if f.mark == "?"]
    if unread:
        lines += ["## Not yet read", "", '<a id="not-yet-read"></a>', "",
                  "What the kit found and nobody has yet read against the library's source, "
                  "or what did not repeat alone: leads, not findings.", ""]
        lines += [unread_line(f) for f in unread] + [""]
    return "\n".join(lines).rstrip() + "\n"

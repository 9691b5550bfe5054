"""Certify every peer on every wire it declares, twice (quirks none and all), confirm each
failure alone, keep its stream, write peers/results.json and regenerate docs/peers.md.

    python peers/run.py [--only NAME ...] [--profile P] [--jobs N] [--no-speed]
    python peers/run.py --page            # only re-render docs/peers.md from results.json
    python peers/run.py --speed-only [--only NAME ...]
    python peers/run.py --confirm peers/findings/<peer>/<wire>/<entry>.sse
    python peers/run.py --repros [--only NAME ...]   # rewrite each finding's standalone repro

Run it with the project's environment (`.venv/bin/python peers/run.py`); every peer gets
its own under `.peers/<name>/`, installed here when missing. See docs/peers.md, "Method".
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matrix import catalog, certifying, findings, page, repros, results, speed  # noqa: E402

DOCS_PAGE = catalog.REPO / "docs" / "peers.md"
FINDINGS = catalog.PEERS / "findings"
LOGS = catalog.ENVS / "_logs"


def say(text: str) -> None:
    print(text, flush=True)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="peers/run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this peer (repeatable; they run in this order)")
    parser.add_argument("--wire", action="append", default=[], metavar="WIRE",
                        help="run only this wire's cells (repeatable); the peer's other rows "
                             "and findings stay as they are")
    parser.add_argument("--mode", action="append", default=[], metavar="MODE",
                        help="run only this mode: none (the provider's own shape) or a server "
                             "profile's name (repeatable)")
    parser.add_argument("--profile", default="ci", help="the kit's profile (default: ci)")
    parser.add_argument("--server-profile", metavar="P",
                        help="the kit's profile for the server-profile runs (default: --profile)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default: 0)")
    parser.add_argument("--jobs", type=int, default=2, help="certifications at once (default: 2)")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed column")
    parser.add_argument("--speed-only", action="store_true",
                        help="only measure the speed column of the chosen peers")
    parser.add_argument("--page", action="store_true", help="only re-render docs/peers.md")
    parser.add_argument("--confirm", type=Path, metavar="PATH",
                        help="replay one saved finding through its peer's harness")
    parser.add_argument("--repros", action="store_true",
                        help="only rewrite the standalone repro of every saved finding")
    return parser


def confirm_entry(path: Path) -> int:
    """Replay a saved finding alone; exit 0 when it fails the same clause again."""
    peer = catalog.load_peer(catalog.PEERS / path.resolve().relative_to(FINDINGS).parts[0])
    clause, evidence = findings.evidence_of_entry(path)
    again = findings.confirm(peer.command(), clause, evidence)
    say(f"{path}: {peer.name} {'fails ' + clause + ' again' if again else 'no longer fails ' + clause}")
    return 0 if again else 1


def write_repros(names: list[str]) -> int:
    """Rewrite the repro of every saved finding (of the named peers); 1 if one cannot be."""
    folders = [FINDINGS / name for name in names] if names else [FINDINGS]
    written, problems = [], []
    for folder in folders:
        done, failed = repros.write_all(folder)
        written, problems = written + done, problems + failed
    say(f"wrote {len(written)} repro(s) under {FINDINGS.relative_to(catalog.REPO)}")
    for problem in problems:
        say(f"  no repro: {problem}")
    return 1 if problems else 0


def _profile_of(mode: str, args) -> str:
    """The kit's profile of a run: `--server-profile` for a server profile's, if given."""
    return args.profile if mode == "none" else (args.server_profile or args.profile)


def _cell_rows(peer: catalog.Peer, version: str, cell: certifying.Cell, args) -> dict:
    row = {"peer": peer.name, "version": version, "language": peer.language,
           "library": peer.library, "homepage": peer.homepage, "wire": cell.wire,
           "quirks": cell.quirks, "status": "run" if cell.problem is None else "could not run",
           "problem": cell.problem, "profile": _profile_of(cell.quirks, args), "seed": args.seed,
           "verdicts": cell.verdicts, "findings": [], "unconfirmed": [], "seconds": cell.seconds}
    causes: dict[str, int] = {}
    for clause, reason, evidence, severity in cell.failures:
        if not isinstance(evidence, dict) or "pieces" not in evidence:
            row["unconfirmed"].append(clause)  # nothing to replay: not a finding
            continue
        if not findings.confirm(peer.command(), clause, evidence):
            say(f"  {peer.name} {cell.wire} {cell.quirks}: {clause} did not fail again alone")
            row["unconfirmed"].append(clause)
            continue
        causes[clause] = causes.get(clause, 0) + 1
        corpus, note = findings.save(FINDINGS / peer.name, peer=peer.name, version=version,
                                     clause=clause, quirks_mode=cell.quirks,
                                     evidence=evidence, reason=reason, severity=severity,
                                     cause=causes[clause])
        row["findings"].append({"clause": clause, "quirks": sorted(evidence.get("quirks", [])),
                                "corpus": corpus, "reason": reason, "note": note,
                                "severity": severity})
    return row


def _mode_of(name: str, wire: str) -> str:
    """The mode of a saved finding's file, `<clause>--<wire>--quirks-<mode>[--N].<ext>`."""
    return name.split(f"--{wire}--quirks-", 1)[1].split(".")[0].split("--")[0]


def _placeholder(peer: catalog.Peer, version: str, wire: str, quirks: str, status: str,
                 problem: str | None) -> dict:
    return {"peer": peer.name, "version": version, "language": peer.language,
            "library": peer.library, "homepage": peer.homepage, "wire": wire,
            "quirks": quirks, "status": status, "problem": problem, "verdicts": {},
            "findings": [], "seconds": 0}


def run_peer(peer: catalog.Peer, args, pool: ThreadPoolExecutor, work: Path) -> list:
    """Install, probe, certify in the pool; returns futures of rows (or rows)."""
    problem = catalog.install(peer, LOGS / f"{peer.name}.log") or certifying.start_problem(peer)
    if problem:
        say(f"{peer.name}: cannot run: {problem}")
        return [_placeholder(peer, peer.pinned(), w, q, "could not run", problem)
                for w in peer.wires for q in catalog.modes_of(w)]
    jobs = []
    for wire in peer.wires:
        if args.wire and wire not in args.wire:
            continue
        modes = [mode for mode in catalog.modes_of(wire) if not args.mode or mode in args.mode]
        for stale in (FINDINGS / peer.name / wire).glob(f"*--{wire}--quirks-*"):
            if _mode_of(stale.name, wire) in modes:  # the cells about to run, and only those
                stale.unlink()
        implementation, exposes = certifying.probe(peer, wire)
        version = implementation["version"]
        for quirks in modes:
            out = work / f"{peer.name}-{wire}-{quirks}"

            def job(wire=wire, quirks=quirks, out=out, version=version, exposes=exposes):
                cell = certifying.certify(peer, wire, quirks, profile=_profile_of(quirks, args),
                                          seed=args.seed, out=out, exposes_message=exposes)
                row = _cell_rows(peer, version, cell, args)
                bad = [c for c, v in row["verdicts"].items() if v in ("failed", "errored")]
                say(f"{peer.name} {version} {wire} quirks {quirks}: {cell.seconds:g} s, "
                    f"{'; '.join(bad) or 'nothing failed'}"
                    + (f" (could not run: {cell.problem})" if cell.problem else ""))
                return row

            jobs.append(pool.submit(job))
    return jobs


def snapshot(peer: str) -> None:
    """The reference's snapshots of the peer's saved streams (pytest --mcs-corpus)."""
    folder = FINDINGS / peer
    if not folder.is_dir():
        return
    subprocess.run([sys.executable, "-m", "pytest", f"--mcs-corpus={folder}", "--snapshot-update",
                    "-q", "-p", "no:randomly", "-p", "no:cacheprovider", "-n", "0"],
                   cwd=catalog.REPO, capture_output=True)


def add_speed(rows: list[dict], peers: list[catalog.Peer]) -> None:
    """The speed column: each peer on its first wire, over the reference's time there; the
    reference's own rows carry its timings on each wire (ratio 1 by definition)."""
    reference = next((p for p in catalog.load_peers() if p.name == catalog.REFERENCE), None)
    if reference is None:
        return
    base: dict[str, dict] = {}
    for peer in peers:
        wires = reference.wires if peer.name == reference.name else peer.wires[:1]
        for wire in wires:
            if wire not in base:
                base[wire] = speed.timings(reference, wire)
            entry = speed.own(wire, base[wire]) if peer.name == reference.name \
                else speed.measure(peer, wire, base[wire])
            say(f"{peer.name} speed on {wire}: {entry}")
            for row in rows:
                if row["peer"] == peer.name and (row["wire"] == wire or len(wires) == 1):
                    row["speed"] = entry


def publish(rows: list[dict], peers: list[catalog.Peer]) -> list[dict]:
    """Add "not run" rows for peers without any, sort, write results.json and the page."""
    known = {row["peer"] for row in rows}
    rows = rows + [_placeholder(peer, peer.pinned(), wire, quirks, "not run", None)
                   for peer in peers if peer.name not in known
                   for wire in peer.wires for quirks in catalog.modes_of(wire)]
    order = {peer.name: index for index, peer in enumerate(peers)}
    rows.sort(key=lambda r: (order.get(r["peer"], len(order)), r["wire"], r["quirks"] != "none"))
    results.save(rows)
    DOCS_PAGE.write_text(page.page(rows, results.load_notes()), "utf-8")
    return rows


def run_matrix(chosen: list[catalog.Peer], peers: list[catalog.Peer], rows: list[dict],
               args) -> list[dict]:
    """Certify the chosen peers; results.json and the page are rewritten as each cell ends,
    so an interrupted run keeps what it finished."""
    with tempfile.TemporaryDirectory(prefix="mcs-peers-") as work, \
            ThreadPoolExecutor(max_workers=args.jobs) as pool:
        owner, left = {}, {}
        for peer in chosen:
            for item in run_peer(peer, args, pool, Path(work)):
                if isinstance(item, dict):
                    rows = results.merged(rows, [item])
                else:
                    owner[item] = peer.name
                    left[peer.name] = left.get(peer.name, 0) + 1
        rows = publish(rows, peers)
        for future in as_completed(owner):
            try:
                rows = publish(results.merged(rows, [future.result()]), peers)
            except Exception as exc:  # one cell's failure loses no other cell's row
                say(f"{owner[future]}: a cell could not finish: {type(exc).__name__}: {exc}")
            left[owner[future]] -= 1
            if not left[owner[future]]:
                snapshot(owner[future])
    return rows


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.confirm:
        return confirm_entry(args.confirm)
    peers = catalog.load_peers()
    unknown = set(args.only) - {peer.name for peer in peers}
    if unknown:
        print(f"peers/run.py: error: --only {', '.join(sorted(unknown))}: no such peer in "
              f"{catalog.PEERS}", file=sys.stderr)
        return 2
    if args.repros:
        return write_repros(args.only)
    rows = [row for row in results.load() if row.get("status") != "not run"
            and row["quirks"] in catalog.modes_of(row["wire"])]  # runs of modes gone drop out
    by_name = {peer.name: peer for peer in peers}
    chosen = [by_name[name] for name in dict.fromkeys(args.only)] if args.only else peers
    if not args.page and not args.speed_only:
        clock = time.perf_counter()
        rows = run_matrix(chosen, peers, rows, args)
        cells = [row for row in rows if row["peer"] in {peer.name for peer in chosen}]
        say(f"matrix: {len(cells)} cells in {(time.perf_counter() - clock) / 60:.1f} min "
            f"(cell times summed: {sum(row['seconds'] for row in cells) / 60:.1f} min, "
            f"{args.jobs} at a time)")
    if args.speed_only or (not args.page and not args.no_speed):
        add_speed(rows, [peer for peer in chosen if any(
            row["peer"] == peer.name and row.get("status", "run") == "run" for row in rows)])
    publish(rows, peers)
    say(f"wrote {results.RESULTS.relative_to(catalog.REPO)} and {DOCS_PAGE.relative_to(catalog.REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

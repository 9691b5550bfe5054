"""Run the peer matrix: certify every peer on every wire it declares, keep what each cell saw
as observations, and derive docs/peers.md from them and the causes people wrote.

    python peers/run.py [--only NAME ...] [--wire W] [--mode M] [--profile P] [--jobs N]
    python peers/run.py --page                  # judge the saved observations again; rewrite
                                                # docs/peers.md and the issue texts (no library needed)
    python peers/run.py --check                 # the same, and exit 1 on a broken rule
    python peers/run.py --speed-only [--only NAME ...]
    python peers/run.py --confirm peers/observations/<peer>/cases/<id>.json
    python peers/run.py --only NAME --out DIR   # one CI job: observations under DIR
    python peers/run.py --merge DIR [DIR ...]   # take the jobs' observations in, then --page

A run resumes: a cell saved at the same library version, kit, profile and seed is not run
again (`--force` runs it). A cell that fails or hangs is saved as such and loses no other.
Run it with the project's environment (`.venv/bin/python peers/run.py`); every peer gets its
own under `.peers/<name>/`, installed here when missing. See docs/peers.md.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matrix import catalog, issues, judging, observations, observing, page, speed  # noqa: E402

DOCS_PAGE = catalog.REPO / "docs" / "peers.md"
SPEED = catalog.PEERS / "speed.json"
LOGS = catalog.ENVS / "_logs"


def say(text: str) -> None:
    print(text, flush=True)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="peers/run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME",
                        help="run only this peer (repeatable)")
    parser.add_argument("--wire", action="append", default=[], metavar="WIRE",
                        help="run only this wire's cells (repeatable)")
    parser.add_argument("--mode", action="append", default=[], metavar="MODE",
                        help="run only this mode: none (the provider's own shape) or a server "
                             "profile's name (repeatable)")
    parser.add_argument("--profile", default="ci", help="the kit's profile (default: ci)")
    parser.add_argument("--server-profile", metavar="P",
                        help="the kit's profile for the server-profile runs (default: --profile)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default: 0)")
    parser.add_argument("--jobs", type=int, default=2, help="cells at once (default: 2)")
    parser.add_argument("--force", action="store_true",
                        help="run cells again even when saved at the same version and kit")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="write observations under DIR (a CI job's), not peers/observations")
    parser.add_argument("--no-speed", action="store_true", help="skip the speed column")
    parser.add_argument("--speed-only", action="store_true",
                        help="only measure the speed column of the chosen peers")
    parser.add_argument("--page", action="store_true",
                        help="only judge the saved observations again and rewrite the page")
    parser.add_argument("--check", action="store_true",
                        help="judge the saved observations again; exit 1 on a broken rule or "
                             "a stale page")
    parser.add_argument("--confirm", type=Path, metavar="CASE",
                        help="replay one saved observation through its peer's harness")
    parser.add_argument("--merge", type=Path, nargs="+", metavar="DIR",
                        help="take in observation folders written with --out, then --page")
    return parser


# -- one cell --------------------------------------------------------------------------------
def _profile_of(mode: str, args) -> str:
    return args.profile if mode == "none" else (args.server_profile or args.profile)


def _saved_current(peer: catalog.Peer, wire: str, mode: str, args, root: Path) -> bool:
    """Whether the cell is saved from a run at the same version, kit, profile and seed."""
    path = observations.cell_path(peer.name, wire, mode, root)
    if args.force or not path.exists():
        return False
    data = json.loads(path.read_text("utf-8"))
    return (data.get("status") == "run" and data.get("pinned") == peer.pinned()
            and data.get("kit") == observing.kit_fingerprint()
            and data.get("profile") == _profile_of(mode, args) and data.get("seed") == args.seed)


def run_peer(peer: catalog.Peer, args, pool: ThreadPoolExecutor, work: Path, root: Path) -> list:
    """Install the peer, then submit each of its cells that is not saved current."""
    problem = catalog.install(peer, LOGS / f"{peer.name}.log")
    if problem:
        say(f"{peer.name}: cannot install: {problem}")
        return []
    jobs = []
    for wire in peer.wires:
        if args.wire and wire not in args.wire:
            continue
        for mode in catalog.modes_of(wire):
            if args.mode and mode not in args.mode:
                continue
            if _saved_current(peer, wire, mode, args, root):
                say(f"{peer.name} {wire} {mode}: saved at this version and kit (--force runs it)")
                continue

            def job(wire=wire, mode=mode):
                cell, found = observing.observe(peer, wire, mode, profile=_profile_of(mode, args),
                                                seed=args.seed, out=work / f"{peer.name}-{wire}-{mode}",
                                                say=say)
                observations.save_cell(cell, found, root)
                failed = sorted(c for c, e in cell.clauses.items() if e.get("observations"))
                say(f"{peer.name} {cell.data.get('version')} {wire} {mode}: "
                    f"{cell.data['seconds']:g} s, "
                    + (f"could not run: {cell.data['problem']}" if cell.data["problem"] else
                       f"{len(found)} observation(s){': ' + ', '.join(failed) if failed else ''}"))
                return cell

            jobs.append(pool.submit(job))
    return jobs


def run_matrix(chosen: list[catalog.Peer], args, root: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="mcs-peers-") as work, \
            ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [future for peer in chosen for future in run_peer(peer, args, pool, Path(work), root)]
        for future in as_completed(futures):
            try:
                future.result()
            except Exception as exc:  # one cell's failure loses no other cell
                say(f"a cell could not finish: {type(exc).__name__}: {exc}")


# -- speed -----------------------------------------------------------------------------------
def add_speed(chosen: list[catalog.Peer]) -> None:
    """The speed column: each peer on its first wire over the reference's time there (the
    reference's own entries are its timings against themselves)."""
    saved = json.loads(SPEED.read_text("utf-8")) if SPEED.exists() else {}
    reference = next(p for p in catalog.load_peers() if p.name == catalog.REFERENCE)
    base: dict[str, dict] = {}
    for peer in chosen:
        wires = reference.wires if peer.name == reference.name else peer.wires[:1]
        for wire in wires:
            if wire not in base:
                base[wire] = speed.timings(reference, wire)
            entry = speed.own(wire, base[wire]) if peer.name == reference.name \
                else speed.measure(peer, wire, base[wire])
            say(f"{peer.name} speed on {wire}: {entry}")
            saved.setdefault(peer.name, {})[wire] = entry
    SPEED.write_text(json.dumps(saved, indent=1, sort_keys=True) + "\n", "utf-8")


# -- deriving the page -------------------------------------------------------------------------
def said_of() -> dict[str, dict]:
    """Per peer: its summary line and speed paragraph (causes file), and its speed figures."""
    said = judging.summaries()
    figures = json.loads(SPEED.read_text("utf-8")) if SPEED.exists() else {}
    for peer, by_wire in figures.items():
        entry = next(iter(by_wire.values()), None)
        if entry and entry.get("ratio") is not None:
            growth = f", growth {entry['growth']:.2g}" if entry.get("growth") else ""
            figure = f"×{entry['ratio']:.2g} the reference's time on {entry['wire']}{growth}"
            paragraph = said.get(peer, {}).get("speed")
            said.setdefault(peer, {})["speed"] = figure + (f"; {paragraph}" if paragraph else ".")
    return said


def publish(check_only: bool = False) -> int:
    """Judge every saved observation again; write (or, with `check_only`, compare) the page
    and the issue texts; 1 when a rule is broken or the page is stale."""
    matrix = judging.derive()
    broken = judging.problems(matrix)
    text = page.render(matrix, said_of())
    if check_only:
        stale = DOCS_PAGE.read_text("utf-8") != text
        if stale:
            broken.append("docs/peers.md differs from what the saved observations give: "
                          "python peers/run.py --page")
        for cause_issue in _issue_texts(matrix):
            path, wanted = cause_issue
            if not path.exists() or path.read_text("utf-8") != wanted:
                broken.append(f"{path.relative_to(catalog.REPO)} is stale: python peers/run.py --page")
    else:
        DOCS_PAGE.write_text(text, "utf-8")
        issues.write_issues(matrix)
        unread = sum(1 for f in matrix.failures if f.mark == "?")
        say(f"wrote {DOCS_PAGE.relative_to(catalog.REPO)}: {len(matrix.cells)} cells, "
            f"{len(matrix.failures)} failures, {unread} not yet read")
    for problem in broken:
        say(f"problem: {problem}")
    return 1 if broken else 0


def _issue_texts(matrix: judging.Matrix) -> list[tuple[Path, str]]:
    return [(issues.issue_path(cause), issues.issue_text(matrix, cause))
            for causes in matrix.causes.values() for cause in causes
            if cause.verdict == "bug" and cause.repro and (catalog.REPO / cause.repro).is_file()
            and any(f.cause is cause for f in matrix.failures)]


def confirm_case(path: Path) -> int:
    """Replay one saved observation alone and save whether the peer gave the same outcome
    (the failure is unread, `?`, until it does); exit 0 when it did."""
    parts = path.resolve().relative_to(observations.ROOT).parts
    peer = catalog.load_peer(catalog.PEERS / parts[0])
    saved = observations.load_observation(parts[0], path.stem)
    clause = next((clause for cell in observations.load_cells(peer=parts[0])
                   for clause, entry in cell.clauses.items()
                   if path.stem in entry.get("observations", ())), "client.calls")
    again = observing.confirm(peer.command(), clause, saved)
    observations.set_confirmed(parts[0], path.stem, again)
    say(f"{path}: {peer.name} {'gives the same outcome again' if again else 'no longer does'}"
        " (saved as its `confirmed`)")
    return 0 if again else 1


def merge(folders: list[Path], root: Path = observations.ROOT) -> None:
    """Take in the observations of per-peer jobs (`--out DIR`): the cells they ran replace
    the saved ones, the others stay."""
    for folder in folders:
        for peer in sorted(p for p in folder.iterdir() if p.is_dir()):
            target = root / peer.name
            for cell in sorted(peer.glob("*/*.json")):
                if cell.parent.name in ("cases", "bodies"):
                    continue
                relative = cell.relative_to(peer)
                (target / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(cell, target / relative)
            for kind in ("cases", "bodies"):
                for item in sorted((peer / kind).glob("*")):
                    (target / kind).mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(item, target / kind / item.name)
            observations.prune(peer.name, root)
            say(f"merged {peer.name} from {folder}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.confirm:
        return confirm_case(args.confirm)
    if args.merge:
        merge(args.merge)
        return publish()
    if args.page or args.check:
        return publish(check_only=args.check)
    peers = catalog.load_peers()
    unknown = set(args.only) - {peer.name for peer in peers}
    if unknown:
        print(f"peers/run.py: error: --only {', '.join(sorted(unknown))}: no such peer in "
              f"{catalog.PEERS}", file=sys.stderr)
        return 2
    by_name = {peer.name: peer for peer in peers}
    chosen = [by_name[name] for name in dict.fromkeys(args.only)] if args.only else peers
    if not args.speed_only:
        clock = time.perf_counter()
        root = args.out or observations.ROOT
        run_matrix(chosen, args, root)
        say(f"matrix: {len(chosen)} peer(s) in {(time.perf_counter() - clock) / 60:.1f} min "
            f"({args.jobs} cells at a time)")
        if args.out:
            return 0
    if args.speed_only or not args.no_speed:
        add_speed(chosen)
    return publish()


if __name__ == "__main__":
    raise SystemExit(main())

"""The `mcs-conformance` command: `certify`, `merge`, `clauses`, `record` and `serve`.

Exit status: 0 certified (or done), 1 refused, 2 usage error (one line on stderr).
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from mcs_conformance.certify import (MergeRefused, Request, UsageProblem, closing_lines, merge,
                                     progress_stream, read_shard, run, write)
from mcs_conformance.clauses import catalogue_markdown
from mcs_conformance.clients import serve_command
from mcs_conformance.corpora import record_command
from mcs_conformance.plugin import PROFILES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mcs-conformance",
        description="Certify streaming tool-call extraction strategies, and clients over HTTP.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    certify = commands.add_parser(
        "certify", help="run the clause catalogue on a strategy or a client and write a report",
        description="Run every clause of its kind on TARGET (a strategy), --client, --harness "
                    "or --parser "
                    "and write report.jsonl, summary.md, junit.xml and badge.json into --out. "
                    "Exit 0 certified, 1 refused, 2 usage error.")
    certify.add_argument("target", metavar="TARGET", nargs="?",
                         help="the strategy, pkg.module:Obj (instance, class or factory)")
    certify.add_argument("--client", metavar="PKG:FN",
                         help="certify a client fn(base_url, wire) -> outcome over HTTP instead "
                              "(docs/clients.md); needs --wire")
    certify.add_argument("--harness", metavar="COMMAND",
                         help="certify a harness command speaking the harness protocol "
                              "(docs/harness-protocol.md); needs --wire")
    certify.add_argument("--parser", metavar="PKG:FACTORY",
                         help="certify an inference engine's tool parser instead: "
                              "factory(format) -> parser (docs/engines.md); needs --format")
    certify.add_argument("--format", metavar="NAME",
                         help="the model-output format a --parser is certified on "
                              "(docs/formats.md)")
    certify.add_argument("--wire", help="wire name or pkg:Obj (default: from the strategy's name)")
    certify.add_argument("--profile", choices=PROFILES, default="ci", help="Hypothesis profile (default: ci)")
    certify.add_argument("--baseline", type=Path, help='JSON file {"expected_failures": [clause ids]}')
    certify.add_argument("--out", type=Path, default=Path("mcs-report"), help="report folder (default: mcs-report)")
    certify.add_argument("--seed", type=int, default=None, help="generator seed (default: random, recorded)")
    certify.add_argument("--quirks", default="all", metavar="none|all|NAME,NAME",
                         help="real-server quirks the streams may hold (default: all; see docs/quirks.md)")
    certify.add_argument("--strict", action="store_true",
                         help="refuse on a client's strictness and fidelity failures too (by "
                              "default they are notes; see docs/clauses.md, Severities)")
    certify.add_argument("--server", metavar="NAME",
                         help="certify against one real server's streams: its quirks drawn "
                              "often, no other (e.g. vllm; see docs/quirks.md, Server profiles)")
    certify.add_argument("--jobs", "-n", type=int, default=None,
                         help="spread clauses over this many processes (needs pytest-xdist)")
    certify.add_argument("--clause", action="append", default=[], metavar="ID",
                         help="run only this clause (repeatable); the report records the narrowing")
    certify.add_argument("--shard", metavar="I/N",
                         help="run shard I of N of the clauses; `merge` joins the shards' reports")
    certify.add_argument("--database", metavar="DIR|PKG:OBJ",
                         help="keep Hypothesis' example database in DIR (or use the ExampleDatabase "
                              "PKG:OBJ): failures found once replay first")

    merge = commands.add_parser(
        "merge", help="merge the report folders of certify --shard runs into one report",
        description="Merge the --out folders of `certify --shard I/N` runs (every shard, 1 to N) "
                    "into one report, as a run in one piece writes it. "
                    "Exit 0 certified, 1 refused, 2 usage error (shards that do not fit together).")
    merge.add_argument("folders", metavar="DIR", nargs="+", type=Path, help="a shard's report folder")
    merge.add_argument("--out", type=Path, required=True, help="folder for the merged report")

    commands.add_parser("clauses", help="print the clause catalogue as Markdown")

    serve = commands.add_parser(
        "serve", help="run the local provider server alone and print each case's base URL",
        description="Serve generated cases of one wire on 127.0.0.1, each under its own base "
                    "URL, until interrupted: point curl, a client or a harness at them.")
    serve.add_argument("--wire", required=True, help="openai-chat, openai-responses, "
                       "anthropic-messages, ollama-chat or gemini")
    serve.add_argument("--seed", type=int, default=0, help="generator seed (default: 0)")
    serve.add_argument("--port", type=int, default=0,
                       help="port to listen on (default: a free one; taken: another)")
    serve.add_argument("--count", type=int, default=10, help="cases to serve (default: 10)")
    serve.add_argument("--quirks", default="all", metavar="none|all|NAME,NAME",
                       help="real-server quirks the cases may hold (default: all)")

    record = commands.add_parser(
        "record", help="turn a captured HTTP body into a corpus entry",
        description="Read a captured SSE, NDJSON or event-stream body (a file, or - for standard input), "
                    "check it replays, detect its wire, and write it into a corpus folder.")
    record.add_argument("body", help="the captured body file, or - for standard input")
    record.add_argument("--corpus", type=Path, default=Path("corpora"), help="corpus root (default: corpora)")
    record.add_argument("--name", help="file name stem (default: derived from the input)")
    record.add_argument("--source", help="where the capture came from (metadata sidecar)")
    record.add_argument("--shows", help="what the stream shows (metadata sidecar)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "clauses":
        sys.stdout.write(catalogue_markdown())
        return 0
    if args.command == "record":
        return record_command(args)
    if args.command == "serve":
        return serve_command(args)
    if args.command == "merge":
        return _merge(args)
    return _certify(args)


def _target(args: argparse.Namespace) -> tuple[str, str]:
    """(kind, target): exactly one of TARGET, --client, --harness and --parser."""
    given = [(kind, value) for kind, value in (("strategy", args.target), ("client", args.client),
                                               ("harness", args.harness),
                                               ("parser", args.parser)) if value is not None]
    if len(given) != 1:
        raise ValueError("name one target: a strategy TARGET, --client PKG:FN, --harness CMD "
                         "or --parser PKG:FACTORY")
    return given[0]


def _certify(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.Random().getrandbits(32)
    try:
        kind, target = _target(args)
    except ValueError as exc:
        print(f"mcs-conformance certify: error: {exc}", file=sys.stderr)
        return 2
    request = Request(target=target, wire=args.wire, profile=args.profile, seed=seed,
                      baseline=args.baseline, jobs=args.jobs,
                      clauses=tuple(dict.fromkeys(args.clause)), quirks=args.quirks, kind=kind,
                      shard=args.shard, database=args.database, strict=args.strict,
                      server=args.server, format=args.format)
    try:
        if args.out.exists() and not args.out.is_dir():
            raise UsageProblem(f"--out {args.out}: exists and is not a folder")
        report = run(request, progress=progress_stream())
        try:
            write(report, args.out)
        except OSError as exc:
            raise UsageProblem(f"--out {args.out}: cannot write the report ({exc.strerror})") from None
    except UsageProblem as exc:
        print(f"mcs-conformance certify: error: {exc}", file=sys.stderr)
        return 2
    return _verdict(report, args.out, str(args.baseline))


def _merge(args: argparse.Namespace) -> int:
    try:
        if args.out.exists() and not args.out.is_dir():
            raise MergeRefused(f"--out {args.out}: exists and is not a folder")
        report = merge([(folder, read_shard(folder)) for folder in args.folders])
        write(report, args.out)
    except MergeRefused as exc:
        print(f"mcs-conformance merge: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"mcs-conformance merge: error: --out {args.out}: cannot write the report ({exc.strerror})",
              file=sys.stderr)
        return 2
    return _verdict(report, args.out, "the baseline")


def _verdict(report, out: Path, baseline: str) -> int:
    """Print the verdict and each failure's and note's reason, counterexample and rerun;
    the exit status: 0 certified, 1 refused."""
    for line in closing_lines(report, out, baseline):
        print(line)
    return 0 if report.certified else 1


if __name__ == "__main__":
    raise SystemExit(main())

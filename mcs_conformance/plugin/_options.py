"""The plugin's options, resolved once into one `McsSettings` kept in `config.stash`.

Every option has the `--mcs-` prefix and converts its value with `type=`, so a bad value
fails while pytest parses options, with one line that says what is wrong.
"""
from __future__ import annotations

import argparse
import random
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import pytest

from .profiles import DEFAULT, PROFILES
from .targets import (LoadedClient, LoadedStrategy, TargetError, load_client, load_harness,
                      load_strategy, load_wire)

SETTINGS_KEY = pytest.StashKey["McsSettings"]()


def _converter(load: Callable[[str], Any]) -> Callable[[str], Any]:
    def convert(value: str) -> Any:
        try:
            return load(value)
        except TargetError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = load.__name__
    return convert


def _clause_id(value: str) -> str:
    from .clauses import CLAUSES  # importing the package registers the catalogue

    if value not in CLAUSES:
        raise argparse.ArgumentTypeError(
            f"--mcs-clause={value}: no such clause; see `mcs-conformance clauses` for the catalogue"
        )
    return value


def _seed(value: str) -> int:
    try:
        return int(value, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--mcs-seed={value}: expected an integer") from None


def _timeout(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"--mcs-timeout={value}: expected a positive number of seconds")
    return seconds


def _corpus_dir(value: str) -> Path:
    path = Path(value)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(
            f"--mcs-corpus={value}: no such directory (a folder of recorded .sse/.jsonl/.ndjson bodies)")
    return path


def writable_folder(option: str, value: str, purpose: str) -> Path:
    """A folder, or a path where one can be made (made when needed); absolute."""
    if not value.strip():
        raise argparse.ArgumentTypeError(f"{option}: expected a folder {purpose}")
    path = Path(value).absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        where = "it is" if existing == path else f"{existing} is"
        raise argparse.ArgumentTypeError(f"{option}: {where} a file, not a folder")
    return path


def _save_dir(value: str) -> Path:
    """Where failures are saved."""
    return writable_folder(f"--mcs-save-failures={value}", value, "to save failing streams into")


def _database(value: str) -> Any:
    """Where Hypothesis keeps the examples it found (docs/profiles-and-reproducing.md)."""
    from .database import example_database

    return example_database(value, f"--mcs-database={value}")


def _shard(value: str) -> Any:
    from .shards import parse_shard

    try:
        return parse_shard(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--mcs-shard={value}: {exc}") from None


def _quirks(value: str) -> frozenset | None:
    """`none`, `all` (None: every quirk) or quirk names separated by commas."""
    from .wires.quirks import parse_quirks

    try:
        return parse_quirks(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--mcs-quirks={value}: {exc}") from None


def quirks_label(quirks: frozenset | None) -> str:
    """How a quirk selection is written back: `all`, `none` or the names, sorted."""
    if quirks is None:
        return "all"
    return ",".join(sorted(quirks)) or "none"


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcs-conformance", "certify streaming tool-call extraction strategies")
    group.addoption("--mcs-strategy", action="append", default=[], dest="mcs_strategy",
                    type=_converter(load_strategy), metavar="PKG:OBJ",
                    help="extraction strategy to certify (instance, class or factory); repeatable")
    group.addoption("--mcs-client", action="append", default=[], dest="mcs_client",
                    type=_converter(load_client), metavar="PKG:FN",
                    help="client to certify over HTTP: fn(base_url, wire) -> outcome "
                         "(docs/clients.md); needs --mcs-wire; repeatable")
    group.addoption("--mcs-harness", action="append", default=[], dest="mcs_harness",
                    type=_converter(load_harness), metavar="COMMAND",
                    help="harness command speaking the harness protocol "
                         "(docs/harness-protocol.md); needs --mcs-wire; repeatable")
    group.addoption("--mcs-wire", dest="mcs_wire", default=None, type=_converter(load_wire),
                    metavar="NAME|PKG:OBJ",
                    help="wire that generates the strategy's streams (default: from its name)")
    group.addoption("--mcs-profile", dest="mcs_profile", default=DEFAULT, choices=PROFILES,
                    help="Hypothesis profile: dev (fast), ci (derandomized), thorough")
    group.addoption("--mcs-clause", action="append", default=[], dest="mcs_clause",
                    type=_clause_id, metavar="ID", help="run only this clause; repeatable")
    group.addoption("--mcs-seed", dest="mcs_seed", default=None, type=_seed,
                    help="random seed for the generators (printed in the header)")
    group.addoption("--mcs-timeout", dest="mcs_timeout", default=300.0, type=_timeout,
                    metavar="SECONDS", help="a clause running longer is reported as errored (hung)")
    group.addoption("--mcs-corpus", dest="mcs_corpus", default=None, type=_corpus_dir, metavar="DIR",
                    help="replay every recorded stream in DIR against its snapshot (with "
                         "--mcs-strategy: through those strategies, before the default chain)")
    group.addoption("--mcs-save-failures", dest="mcs_save_failures", default=None, type=_save_dir,
                    metavar="DIR",
                    help="save each failing clause's shrunk stream into DIR as a corpus entry "
                         "(replay them with --mcs-corpus=DIR)")
    group.addoption("--mcs-quirks", dest="mcs_quirks", default=None, type=_quirks,
                    metavar="none|all|NAME,NAME",
                    help="real-server quirks the generated streams may hold (default: all; "
                         "none: each provider's own current shape; docs/quirks.md)")
    group.addoption("--mcs-shard", dest="mcs_shard", default=None, type=_shard, metavar="I/N",
                    help="run only shard I of N of the clauses (round robin over the sorted ids); "
                         "`mcs-conformance merge` joins the shards' reports")
    group.addoption("--mcs-database", dest="mcs_database", default=None, type=_database,
                    metavar="DIR|PKG:OBJ",
                    help="keep Hypothesis' example database in DIR (or use the ExampleDatabase "
                         "PKG:OBJ): failures found once are replayed first on the next run "
                         "(at every profile, ci included)")


@dataclass(frozen=True)
class McsSettings:
    """What the user asked for, resolved once."""

    strategies: tuple[LoadedStrategy, ...]
    wire: Any
    wire_spec: str | None
    profile: str
    seed: int
    clauses: tuple[str, ...]
    timeout: float
    corpus: Path | None = None
    save_failures: Path | None = None  # absolute; what runs does not change, so no rerun option
    quirks: frozenset | None = None  # the quirks the generators may draw; None: all
    clients: tuple[LoadedClient, ...] = ()  # clients and harnesses, certified over HTTP
    shard: Any = None  # the `Shard` to run, None for every selected clause
    database: Any = None  # Hypothesis' example database (--mcs-database), None for none
    database_spec: str | None = None  # the option's value as typed, for the rerun command

    @property
    def quirks_label(self) -> str:
        return quirks_label(self.quirks)

    @property
    def active(self) -> bool:
        """Certify the strategies clause by clause (with a corpus, they replay it instead)."""
        return bool(self.strategies or self.clients) and self.corpus is None

    @property
    def targets(self) -> tuple:
        """Every target, strategies first."""
        return (*self.strategies, *self.clients)

    def rerun_command(self, target: str | None = None, clause: str | None = None) -> str:
        """The command that repeats this run (one target and clause when given)."""
        chosen = [t for t in self.targets if target is None or t.target == target]
        parts = ["pytest"] + [target_option(t) for t in chosen]
        if self.wire_spec:
            parts.append(f"--mcs-wire={self.wire_spec}")
        if clause:
            parts.append(f"--mcs-clause={clause}")
        else:
            parts += [f"--mcs-clause={c}" for c in self.clauses]
            if self.shard is not None:
                parts.append(f"--mcs-shard={self.shard}")
        parts += [f"--mcs-profile={self.profile}", f"--mcs-seed={self.seed}"]
        if self.quirks is not None:
            parts.append(f"--mcs-quirks={self.quirks_label}")
        if self.database_spec is not None:  # the saved failures replay first, as they did here
            parts.append(f"--mcs-database={self.database_spec}")
        return " ".join(parts)


def target_option(loaded: Any) -> str:
    """The option that names a target again: --mcs-strategy, --mcs-client or --mcs-harness."""
    kind = getattr(loaded, "kind", "strategy")
    if kind == "harness":
        return f"--mcs-harness={shlex.quote(loaded.target)}"
    return f"--mcs-{kind}={loaded.target}"


def _raw_option(config: pytest.Config, name: str) -> str | None:
    """The text the user typed for an option (for the rerun command)."""
    args = list(config.invocation_params.args)
    for position, arg in enumerate(args):
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
        if arg == name and position + 1 < len(args):
            return args[position + 1]
    return None


def resolve(config: pytest.Config) -> McsSettings:
    """Build the settings from parsed options; the seed comes from xdist's controller if any."""
    seed = config.getoption("mcs_seed")
    worker_input = getattr(config, "workerinput", None)
    if seed is None and worker_input is not None:
        seed = worker_input.get("mcs_seed")
    if seed is None:
        seed = random.Random().getrandbits(32)
    return McsSettings(
        strategies=tuple(config.getoption("mcs_strategy")),
        wire=config.getoption("mcs_wire"),
        wire_spec=_raw_option(config, "--mcs-wire"),
        profile=config.getoption("mcs_profile"),
        seed=seed,
        clauses=tuple(config.getoption("mcs_clause")),
        timeout=config.getoption("mcs_timeout"),
        corpus=config.getoption("mcs_corpus"),
        save_failures=config.getoption("mcs_save_failures"),
        quirks=config.getoption("mcs_quirks"),
        clients=(*config.getoption("mcs_client"), *config.getoption("mcs_harness")),
        shard=config.getoption("mcs_shard"),
        database=config.getoption("mcs_database"),
        database_spec=_raw_option(config, "--mcs-database"),
    )

"""The kit's options, validated in one place and resolved once into one `McsSettings`.

Every option has a converter here that raises `OptionError` with what is wrong; the pytest
plugin (`--mcs-seed=7`) and `mcs-conformance certify` (`--seed 7`) both call it and only
spell the option their own way in front of the message. `check_settings` holds the checks
that span options (a strategy needs a wire; a client a native wire; `--clause` must leave
every kind of target a clause). pytest converts with `type=`, so a bad value fails while
options are parsed, in one line; the settings live in `config.stash`.
"""
from __future__ import annotations

import argparse
import random
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from mcs_conformance.base import TargetError, import_object
from mcs_conformance.clauses import CLAUSES, Shard, parse_shard
from mcs_conformance.plugin._profiles import DEFAULT, PROFILES
from mcs_conformance.targets import (ClientTarget, FORMAT_NAMES, HarnessTarget, ParserTarget,
                                     StrategyTarget, Target, load_client, load_harness,
                                     load_parser, load_strategy, load_wire)
from mcs_conformance.wires import (BUILT_IN, NATIVE_WIRES, parse_quirks, parse_server,
                                   SERVER_PROFILES, ServerProfile, Wire, wire_for_strategy)

SETTINGS_KEY = pytest.StashKey["McsSettings"]()
Spell = Callable[[str, Any], str]  # (option name without dashes, value) -> how the user wrote it


class OptionError(ValueError):
    """A bad option value or combination; the message says what is wrong and what to do."""


def plugin_spelling(option: str, value: Any) -> str:
    """`--mcs-seed=7`, as the pytest plugin's options are written."""
    return f"--mcs-{option}={value}"


def command_spelling(option: str, value: Any) -> str:
    """`--seed 7`, as `mcs-conformance certify` options are written."""
    return f"--{option} {value}"


# -- one converter an option ---------------------------------------------------------------
@dataclass(frozen=True)
class Named:
    """An option's value as loaded, and as typed (the rerun command repeats the text)."""

    spec: str
    value: Any


def clause_id(value: str) -> str:
    if value not in CLAUSES:
        raise OptionError("no such clause; see `mcs-conformance clauses` for the catalogue")
    return value


def seed(value: str) -> int:
    try:
        number = int(value, 0)
    except ValueError:
        number = -1
    if number < 0:
        raise OptionError("expected a non-negative integer")
    return number


def timeout(value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if seconds <= 0:
        raise OptionError("expected a positive number of seconds")
    return seconds


def corpus_dir(value: str) -> Path:
    path = Path(value)
    if not path.is_dir():
        raise OptionError("no such directory (a folder of recorded .sse/.jsonl/.ndjson bodies)")
    return path


def writable_folder(value: str, purpose: str) -> Path:
    """A folder, or a path where one can be made (made when needed); absolute."""
    if not value.strip():
        raise OptionError(f"expected a folder {purpose}")
    path = Path(value).absolute()
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        where = "it is" if existing == path else f"{existing} is"
        raise OptionError(f"{where} a file, not a folder")
    return path


def save_dir(value: str) -> Path:
    """Where failures are saved."""
    return writable_folder(value, "to save failing streams into")


_OBJECT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")  # pkg.module:OBJ, not a path


def database(value: str) -> Named:
    """The example database `value` names: a folder (made when needed), or `pkg.module:OBJ`
    naming an `ExampleDatabase` (Hypothesis' GitHubArtifactDatabase behind a local folder)."""
    if not _OBJECT.match(value):
        folder = writable_folder(value, "for the example database (or pkg.module:OBJ naming one)")
        return Named(value, DirectoryBasedExampleDatabase(str(folder)))
    try:
        found = import_object(value)
    except TargetError as exc:
        raise OptionError(str(exc).removeprefix(value + ": ")) from None
    if not isinstance(found, ExampleDatabase):
        what = "a class" if isinstance(found, type) else f"a {type(found).__name__} object"
        raise OptionError(f"{what}, not a Hypothesis example database instance "
                          "(hypothesis.database.ExampleDatabase); or name a folder")
    return Named(value, found)


def shard(value: str) -> Shard:
    try:
        return parse_shard(value)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def quirks(value: str) -> frozenset | None:
    """`none`, `all` (None: every quirk) or quirk names separated by commas."""
    try:
        return parse_quirks(value)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def server(value: str) -> ServerProfile:
    """A server profile by name (docs/quirks.md, "Server profiles")."""
    try:
        return parse_server(value)
    except ValueError as exc:
        raise OptionError(str(exc)) from None


def wire(value: str) -> Named:
    return Named(value, load_wire(value))


def quirks_label(chosen: frozenset | None) -> str:
    """How a quirk selection is written back: `all`, `none` or the names, sorted."""
    if chosen is None:
        return "all"
    return ",".join(sorted(chosen)) or "none"


# -- the settings ----------------------------------------------------------------------------
@dataclass(frozen=True)
class McsSettings:
    """What the user asked for, resolved once."""

    strategies: tuple[StrategyTarget, ...]
    wire: Wire | None
    wire_spec: str | None
    profile: str
    seed: int
    clauses: tuple[str, ...]
    timeout: float
    corpus: Path | None = None
    save_failures: Path | None = None  # absolute; what runs does not change, so no rerun option
    quirks: frozenset | None = None  # the quirks the generators may draw; None: all
    clients: tuple[ClientTarget | HarnessTarget, ...] = ()  # certified over HTTP
    shard: Shard | None = None  # the shard to run, None for every selected clause
    database: ExampleDatabase | None = None  # Hypothesis' example database (--mcs-database)
    database_spec: str | None = None  # the option's value as typed, for the rerun command
    strict: bool = False  # strictness and fidelity failures fail too (--mcs-strict)
    server: ServerProfile | None = None  # --mcs-server: its quirks drawn often (in `quirks`)
    parsers: tuple[ParserTarget, ...] = ()  # engines' tool parsers, each on its format

    @property
    def quirks_label(self) -> str:
        return quirks_label(self.quirks)

    @property
    def active(self) -> bool:
        """Certify the targets clause by clause (with a corpus, strategies replay it instead)."""
        return bool(self.strategies or self.clients or self.parsers) and self.corpus is None

    @property
    def targets(self) -> tuple[Target, ...]:
        """Every target, strategies first, then clients, then parsers."""
        return (*self.strategies, *self.clients, *self.parsers)

    def rerun_command(self, target: str | None = None, clause: str | None = None) -> str:
        """The command that repeats this run (one target and clause when given)."""
        chosen = [t for t in self.targets if target is None or t.target == target]
        parts = ["pytest"] + [t.option for t in chosen]
        if self.wire_spec:
            parts.append(f"--mcs-wire={self.wire_spec}")
        if clause:
            parts.append(f"--mcs-clause={clause}")
        else:
            parts += [f"--mcs-clause={c}" for c in self.clauses]
            if self.shard is not None:
                parts.append(f"--mcs-shard={self.shard}")
        parts += [f"--mcs-profile={self.profile}", f"--mcs-seed={self.seed}"]
        if self.server is not None:
            parts.append(f"--mcs-server={self.server.name}")
        elif self.quirks is not None:
            parts.append(f"--mcs-quirks={self.quirks_label}")
        if self.database_spec is not None:  # the saved failures replay first, as they did here
            parts.append(f"--mcs-database={self.database_spec}")
        if self.strict:
            parts.append("--mcs-strict")
        return " ".join(parts)

    def strategy_wire(self, loaded: StrategyTarget) -> Wire | None:
        """The wire that generates `loaded`'s streams, with only the chosen quirks."""
        chosen = self.wire or wire_for_strategy(loaded.strategy)
        if self.quirks is None or chosen is None or chosen.name not in BUILT_IN:
            return chosen
        cases, allowed = chosen.cases, self.quirks
        return replace(chosen, cases=lambda **options: cases(**{"quirks": allowed, **options}))


def with_server(settings: McsSettings, chosen: ServerProfile | None, spell: Spell) -> McsSettings:
    """`settings` certifying against the server profile `chosen` (None: as they are): its
    quirks become the selection. A quirk selection of its own beside it is refused."""
    if chosen is None:
        return settings
    if settings.quirks is not None:
        raise OptionError(
            f"{spell('server', chosen.name)}: the profile chooses the quirks; drop "
            f"{spell('quirks', settings.quirks_label)}")
    return replace(settings, server=chosen, quirks=chosen.selection)


def _target_wire(settings: McsSettings, loaded: Target) -> str | None:
    """The name of the wire that serves `loaded` its streams."""
    if isinstance(loaded, StrategyTarget):
        chosen = settings.strategy_wire(loaded)
        return chosen.name if chosen is not None else None
    return settings.wire_spec


def _check_server(settings: McsSettings, spell: Spell) -> None:
    """A server profile speaks one wire: every target must be served on it."""
    chosen = settings.server
    for loaded in settings.targets if chosen is not None else ():
        served = _target_wire(settings, loaded)
        if served != chosen.wire:
            fitting = [p.name for p in SERVER_PROFILES.values() if p.wire == served]
            raise OptionError(
                f"{spell('server', chosen.name)}: a server of wire {chosen.wire}, but "
                f"{loaded.target} is served on wire {served}; profiles of {served}: "
                f"{', '.join(fitting) or 'none'}")


def check_settings(settings: McsSettings, spell: Spell) -> None:
    """The checks that span options; `OptionError` names the option as `spell` writes it."""
    for loaded in settings.strategies:
        if settings.strategy_wire(loaded) is None:
            name = getattr(loaded.strategy, "name", "?")
            raise OptionError(
                f"{spell('strategy', loaded.target)}: no built-in wire for a strategy named "
                f"{name!r}; pass {spell('wire', 'NAME')} or {spell('wire', 'pkg:Obj')}")
    if settings.clients and (settings.wire is None or settings.wire_spec not in NATIVE_WIRES):
        loaded = settings.clients[0]
        given = (spell("wire", settings.wire_spec) if settings.wire_spec
                 else "no " + spell("wire", "").rstrip("= "))
        raise OptionError(
            f"{spell(loaded.kind, loaded.target)}: {given}; a client is certified on a wire the "
            f"local server speaks: pass {spell('wire', 'NAME')} with one of "
            f"{', '.join(NATIVE_WIRES)}")
    if settings.parsers and (settings.server is not None or settings.quirks is not None):
        given = (spell("server", settings.server.name) if settings.server is not None
                 else spell("quirks", settings.quirks_label))
        raise OptionError(f"{given}: a parser is fed model outputs, not a server's streams; "
                          f"drop it for {settings.parsers[0].target}")
    _check_server(settings, spell)
    if not settings.clauses:
        return
    kinds = {CLAUSES[c].kind for c in settings.clauses}
    if settings.strategies and "strategy" not in kinds:
        raise OptionError(
            f"{spell('clause', settings.clauses[0])}: a client clause; it does not apply to the "
            f"strategy {settings.strategies[0].target} (certify a client with "
            f"{spell('client', 'PKG:FN')})")
    if settings.clients and "client" not in kinds:
        raise OptionError(
            f"{spell('clause', settings.clauses[0])}: selects no client clause for "
            f"{settings.clients[0].target}; client clauses are client.* "
            "(`mcs-conformance clauses`)")
    if settings.parsers and "parser" not in kinds:
        raise OptionError(
            f"{spell('clause', settings.clauses[0])}: selects no parser clause for "
            f"{settings.parsers[0].target}; parser clauses are parser.* "
            "(`mcs-conformance clauses`)")


def parsers(specs: tuple[str, ...], format: str | None, spell: Spell) -> tuple[ParserTarget, ...]:
    """The parser targets, each made for `format`; a parser without a format, or a format
    without a parser, is refused."""
    if format is not None and not specs:
        raise OptionError(f"{spell('format', format)}: a format is what a parser is certified "
                          f"on; name the parser with {spell('parser', 'PKG:FACTORY')}")
    if specs and format is None:
        raise OptionError(f"{spell('parser', specs[0])}: a parser is certified on one format; "
                          f"pass {spell('format', 'NAME')} (one of {', '.join(FORMAT_NAMES)})")
    if format is not None and format not in FORMAT_NAMES:
        raise OptionError(f"{spell('format', format)}: unknown format; known formats: "
                          f"{', '.join(FORMAT_NAMES)}")
    try:
        return tuple(load_parser(spec, format) for spec in specs)
    except TargetError as exc:  # its message starts with the parser as typed
        raise OptionError(str(exc)) from None


# -- as pytest options -----------------------------------------------------------------------
def _typed(option: str, convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """`convert` as an argparse `type=`: a bad value fails while pytest parses options."""

    def typed(value: str) -> Any:
        try:
            return convert(value)
        except TargetError as exc:  # its message starts with the target as typed
            raise argparse.ArgumentTypeError(str(exc)) from None
        except OptionError as exc:
            raise argparse.ArgumentTypeError(f"{plugin_spelling(option, value)}: {exc}") from None

    typed.__name__ = convert.__name__
    return typed


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("mcs-conformance", "certify streaming tool-call extraction strategies")
    group.addoption("--mcs-strategy", action="append", default=[], dest="mcs_strategy",
                    type=_typed("strategy", load_strategy), metavar="PKG:OBJ",
                    help="extraction strategy to certify (instance, class or factory); repeatable")
    group.addoption("--mcs-client", action="append", default=[], dest="mcs_client",
                    type=_typed("client", load_client), metavar="PKG:FN",
                    help="client to certify over HTTP: fn(base_url, wire) -> outcome "
                         "(docs/clients.md); needs --mcs-wire; repeatable")
    group.addoption("--mcs-harness", action="append", default=[], dest="mcs_harness",
                    type=_typed("harness", load_harness), metavar="COMMAND",
                    help="harness command speaking the harness protocol "
                         "(docs/harness-protocol.md); needs --mcs-wire; repeatable")
    group.addoption("--mcs-parser", action="append", default=[], dest="mcs_parser",
                    metavar="PKG:FACTORY",
                    help="an inference engine's tool parser to certify: factory(format) -> "
                         "parser (docs/engines.md); needs --mcs-format; repeatable")
    group.addoption("--mcs-format", dest="mcs_format", default=None, metavar="NAME",
                    help="the model-output format the parser is certified on "
                         "(docs/formats.md: hermes, qwen3-coder, mistral, ...)")
    group.addoption("--mcs-wire", dest="mcs_wire", default=None, type=_typed("wire", wire),
                    metavar="NAME|PKG:OBJ",
                    help="wire that generates the strategy's streams (default: from its name)")
    group.addoption("--mcs-profile", dest="mcs_profile", default=DEFAULT, choices=PROFILES,
                    help="Hypothesis profile: dev (fast), ci (derandomized), thorough")
    group.addoption("--mcs-clause", action="append", default=[], dest="mcs_clause",
                    type=_typed("clause", clause_id), metavar="ID",
                    help="run only this clause; repeatable")
    group.addoption("--mcs-seed", dest="mcs_seed", default=None, type=_typed("seed", seed),
                    help="random seed for the generators (printed in the header)")
    group.addoption("--mcs-timeout", dest="mcs_timeout", default=300.0,
                    type=_typed("timeout", timeout), metavar="SECONDS",
                    help="a clause running longer is reported as errored (hung)")
    group.addoption("--mcs-corpus", dest="mcs_corpus", default=None,
                    type=_typed("corpus", corpus_dir), metavar="DIR",
                    help="replay every recorded stream in DIR against its snapshot (with "
                         "--mcs-strategy: through those strategies, before the default chain)")
    group.addoption("--mcs-save-failures", dest="mcs_save_failures", default=None,
                    type=_typed("save-failures", save_dir), metavar="DIR",
                    help="save each failing clause's shrunk stream into DIR as a corpus entry "
                         "(replay them with --mcs-corpus=DIR)")
    group.addoption("--mcs-quirks", dest="mcs_quirks", default=None,
                    type=_typed("quirks", quirks), metavar="none|all|NAME,NAME",
                    help="real-server quirks the generated streams may hold (default: all; "
                         "none: each provider's own current shape; docs/quirks.md)")
    group.addoption("--mcs-server", dest="mcs_server", default=None,
                    type=_typed("server", server), metavar="NAME",
                    help="certify against one real server's streams: its quirks drawn often, "
                         "no other (e.g. vllm, anthropic; docs/quirks.md, Server profiles)")
    group.addoption("--mcs-shard", dest="mcs_shard", default=None, type=_typed("shard", shard),
                    metavar="I/N",
                    help="run only shard I of N of the clauses (round robin over the sorted ids); "
                         "`mcs-conformance merge` joins the shards' reports")
    group.addoption("--mcs-database", dest="mcs_database", default=None,
                    type=_typed("database", database), metavar="DIR|PKG:OBJ",
                    help="keep Hypothesis' example database in DIR (or use the ExampleDatabase "
                         "PKG:OBJ): failures found once are replayed first on the next run "
                         "(at every profile, ci included)")
    group.addoption("--mcs-strict", dest="mcs_strict", action="store_true",
                    help="count a client's strictness and fidelity failures as failures too "
                         "(by default they are notes: docs/clauses.md, Severities)")


def resolve(config: pytest.Config) -> McsSettings:
    """Build the settings from parsed options; the seed comes from xdist's controller if any."""
    chosen_seed = config.getoption("mcs_seed")
    worker_input = getattr(config, "workerinput", None)
    if chosen_seed is None and worker_input is not None:
        chosen_seed = worker_input.get("mcs_seed")
    if chosen_seed is None:
        chosen_seed = random.Random().getrandbits(32)
    chosen_wire: Named | None = config.getoption("mcs_wire")
    chosen_database: Named | None = config.getoption("mcs_database")
    settings = McsSettings(
        strategies=tuple(config.getoption("mcs_strategy")),
        wire=chosen_wire.value if chosen_wire else None,
        wire_spec=chosen_wire.spec if chosen_wire else None,
        profile=config.getoption("mcs_profile"),
        seed=chosen_seed,
        clauses=tuple(config.getoption("mcs_clause")),
        timeout=config.getoption("mcs_timeout"),
        corpus=config.getoption("mcs_corpus"),
        save_failures=config.getoption("mcs_save_failures"),
        quirks=config.getoption("mcs_quirks"),
        clients=(*config.getoption("mcs_client"), *config.getoption("mcs_harness")),
        shard=config.getoption("mcs_shard"),
        database=chosen_database.value if chosen_database else None,
        database_spec=chosen_database.spec if chosen_database else None,
        strict=config.getoption("mcs_strict"),
    )
    try:
        settings = replace(settings, parsers=parsers(tuple(config.getoption("mcs_parser")),
                                                     config.getoption("mcs_format"),
                                                     plugin_spelling))
        return with_server(settings, config.getoption("mcs_server"), plugin_spelling)
    except OptionError as exc:
        raise pytest.UsageError(str(exc)) from None


def build_settings(spell: Spell, *, strategies: tuple[str, ...] = (), clients: tuple[str, ...] = (),
                   harnesses: tuple[str, ...] = (), wire_spec: str | None = None,
                   profile: str = DEFAULT, seed_value: str = "0", clauses: tuple[str, ...] = (),
                   quirks_value: str = "all", shard_value: str | None = None,
                   database_value: str | None = None, timeout_value: str = "300",
                   strict: bool = False, server_value: str | None = None,
                   parser_specs: tuple[str, ...] = (), format_value: str | None = None
                   ) -> McsSettings:
    """The settings of a run described by option values as typed, through the same converters
    as the pytest options and `check_settings`; `OptionError` (or `TargetError`, whose message
    starts with the target) says what is wrong, with each option written by `spell`."""

    def convert(option: str, value: str, converter: Callable[[str], Any]) -> Any:
        try:
            return converter(value)
        except OptionError as exc:
            raise OptionError(f"{spell(option, value)}: {exc}") from None

    chosen_wire = None if wire_spec is None else convert("wire", wire_spec, wire)
    chosen_database = None if database_value is None else convert("database", database_value,
                                                                   database)
    settings = McsSettings(
        strategies=tuple(load_strategy(spec) for spec in strategies),
        clients=(*(load_client(spec) for spec in clients),
                 *(load_harness(command) for command in harnesses)),
        wire=chosen_wire.value if chosen_wire else None,
        wire_spec=wire_spec,
        profile=profile,
        seed=convert("seed", seed_value, seed),
        clauses=tuple(convert("clause", c, clause_id) for c in clauses),
        timeout=convert("timeout", timeout_value, timeout),
        quirks=convert("quirks", quirks_value, quirks),
        shard=None if shard_value is None else convert("shard", shard_value, shard),
        database=chosen_database.value if chosen_database else None,
        database_spec=database_value,
        strict=strict,
        parsers=parsers(parser_specs, format_value, spell),
    )
    chosen_server = None if server_value is None else convert("server", server_value, server)
    settings = with_server(settings, chosen_server, spell)
    check_settings(settings, spell)
    return settings

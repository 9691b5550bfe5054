"""The pytest plugin (`pytest11` entry point): `pytest --mcs-strategy=pkg:Obj` certifies a strategy,
`pytest --mcs-client=pkg:fn --mcs-wire=W` a client (`--mcs-harness="CMD"` a harness), and
`pytest --mcs-corpus=DIR` replays a corpus.

Owns the kit's options (validated in one place, resolved once into `McsSettings`, which
`certify` builds with the same code), the Hypothesis profiles, one collected node a target
and one item a clause, and these hooks, each of which hands off. Without a target or
`--mcs-corpus` the plugin stays silent.

May import: `mcs_reference`, `mcs_conformance.base`, `wires`, `targets`, `clients`,
`clauses`, `corpora`.
"""
from __future__ import annotations

from typing import Any

import hypothesis
import pytest

from mcs_conformance import corpora
from mcs_conformance.clients import SessionServer
from mcs_conformance.plugin._database import load_profile_with_database
from mcs_conformance.plugin._options import (SETTINGS_KEY, McsSettings, OptionError, add_options,
                                             build_settings, check_settings, command_spelling,
                                             plugin_spelling, resolve)
from mcs_conformance.plugin._profiles import (PROFILES, SHRINK_SECONDS, cap_shrinking,
                                              profile_settings)
from mcs_conformance.plugin._session import target_nodes

__all__ = ["PROFILES", "SETTINGS_KEY", "McsSettings", "OptionError", "build_settings",
           "command_spelling", "profile_settings"]

PROFILE_KEY = pytest.StashKey[str]()
SERVERS_KEY = pytest.StashKey[SessionServer]()  # the session's local provider server (clients)
SHRINK_KEY = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    settings = config.stash.get(SETTINGS_KEY, None)  # `certify` hands its settings in
    if settings is None:
        settings = config.stash[SETTINGS_KEY] = resolve(config)
    if settings.corpus is not None:
        corpora.configure(config, settings)
    if not settings.active:
        return
    try:
        check_settings(settings, plugin_spelling)
    except OptionError as exc:
        raise pytest.UsageError(str(exc)) from None
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args[:] = []  # `pytest --mcs-strategy=X` alone runs the clauses, not the project's tests
    config.stash[PROFILE_KEY] = hypothesis.settings.get_current_profile_name()
    config.stash[SHRINK_KEY] = cap_shrinking(SHRINK_SECONDS)
    hypothesis.settings.load_profile(f"mcs-{settings.profile}")
    if settings.database is not None:
        load_profile_with_database(settings.profile, settings.database)


def pytest_unconfigure(config: pytest.Config) -> None:
    servers = config.stash.get(SERVERS_KEY, None)
    if servers is not None:  # the server leaves no thread or socket behind
        servers.close()
    previous = config.stash.get(PROFILE_KEY, None)
    if previous is not None:  # leave Hypothesis as we found it (matters for in-process runs)
        hypothesis.settings.load_profile(previous)
        cap_shrinking(config.stash[SHRINK_KEY])


def _quirks_line(settings: McsSettings) -> str:
    if settings.server is None:
        return f"quirks {settings.quirks_label}"
    return f"server {settings.server.name}, quirks {settings.quirks_label}, each drawn often"


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        return corpora.header(config)
    if settings is None or not settings.active:
        return []
    names = ", ".join(t.target if t.kind == "strategy" else f"{t.kind} {t.target}"
                      for t in settings.targets)
    wire = f" on wire {settings.wire_spec}" if settings.clients and settings.wire_spec else ""
    return [f"mcs-conformance: certifying {names}{wire} (profile {settings.profile}, "
            f"seed {settings.seed})",
            f"mcs-conformance: {_quirks_line(settings)} (docs/quirks.md)",
            f"mcs-conformance: rerun with: {settings.rerun_command()}"]


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """The session collects one node a target beside whatever paths it was given, so pytest
    counts, selects (`-k`) and lists (`--collect-only`) the clauses as it does tests."""
    report = yield
    settings = collector.config.stash.get(SETTINGS_KEY, None)
    if isinstance(collector, pytest.Session) and settings is not None and settings.active \
            and report.passed:
        servers = None
        if settings.clients:
            servers = collector.config.stash[SERVERS_KEY] = SessionServer()
        report.result.extend(target_nodes(collector, settings, servers))
    return report


def pytest_pycollect_makemodule(module_path, parent):
    settings = parent.config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        return corpora.make_module(module_path, parent)
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    runners = {id(r): r for r in (getattr(i, "runner", None) for i in session.items) if r}
    for runner in runners.values():  # harness processes stop with the session
        runner.close()
    settings = session.config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        corpora.session_finish(session)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        corpora.terminal_summary(terminalreporter, config)
    if settings is not None and settings.active and settings.save_failures is not None:
        terminalreporter.write_line(corpora.summary_line(
            terminalreporter.stats.get("failed", []), settings.save_failures,
            config.invocation_params.dir))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # pytest-xdist: every worker uses the controller's seed
    settings = node.config.stash.get(SETTINGS_KEY, None)
    if settings is not None:
        node.workerinput["mcs_seed"] = settings.seed

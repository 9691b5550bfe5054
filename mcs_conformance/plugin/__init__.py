"""The pytest plugin (`pytest11` entry point): `pytest --mcs-strategy=pkg:Obj` certifies a strategy,
`pytest --mcs-client=pkg:fn --mcs-wire=W` a client (`--mcs-harness="CMD"` a harness).

Hooks only; each hands off to `settings` (options), `items` (one item per clause) or the
corpus runner. Without a target or `--mcs-corpus` the plugin stays silent.
"""
from __future__ import annotations

import hypothesis
import pytest

from .profiles import SHRINK_SECONDS, cap_shrinking
from .settings import SETTINGS_KEY, add_options, resolve

PROFILE_KEY = pytest.StashKey[str]()
SERVERS_KEY = pytest.StashKey[object]()  # the session's local provider server (clients)
SHRINK_KEY = pytest.StashKey[float]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    settings = resolve(config)
    config.stash[SETTINGS_KEY] = settings
    if settings.corpus is not None:
        from .corpus import configure

        configure(config, settings)
    if not settings.active:
        return
    from .session import check_selection, client_wire, wires_for

    wires_for(settings)  # a strategy with no wire fails now, as a usage error
    if settings.clients:
        client_wire(settings)
    check_selection(settings)
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args[:] = []  # `pytest --mcs-strategy=X` alone runs the clauses, not the project's tests
    config.stash[PROFILE_KEY] = hypothesis.settings.get_current_profile_name()
    config.stash[SHRINK_KEY] = cap_shrinking(SHRINK_SECONDS)
    hypothesis.settings.load_profile(f"mcs-{settings.profile}")
    if settings.database is not None:
        from .database import load_profile_with_database

        load_profile_with_database(settings.profile, settings.database)


def pytest_unconfigure(config: pytest.Config) -> None:
    servers = config.stash.get(SERVERS_KEY, None)
    if servers is not None:  # the server leaves no thread or socket behind
        servers.close()
    previous = config.stash.get(PROFILE_KEY, None)
    if previous is not None:  # leave Hypothesis as we found it (matters for in-process runs)
        hypothesis.settings.load_profile(previous)
        cap_shrinking(config.stash[SHRINK_KEY])


def pytest_report_header(config: pytest.Config) -> list[str]:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        from .corpus import header

        return header(config)
    if settings is None or not settings.active:
        return []
    names = ", ".join(t.target if getattr(t, "kind", "strategy") == "strategy"
                      else f"{t.kind} {t.target}" for t in settings.targets)
    wire = f" on wire {settings.wire_spec}" if settings.clients and settings.wire_spec else ""
    return [f"mcs-conformance: certifying {names}{wire} (profile {settings.profile}, "
            f"seed {settings.seed})",
            f"mcs-conformance: quirks {settings.quirks_label} (docs/quirks.md)",
            f"mcs-conformance: rerun with: {settings.rerun_command()}"]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.active:
        from .session import clause_items

        servers = None
        if settings.clients:
            from .clients.runner import SessionServer

            servers = config.stash[SERVERS_KEY] = SessionServer()
        items.extend(clause_items(session, settings, servers))


def pytest_pycollect_makemodule(module_path, parent):
    settings = parent.config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        from .corpus import make_module

        return make_module(module_path, parent)
    return None


def pytest_sessionfinish(session: pytest.Session) -> None:
    runners = {id(r): r for r in (getattr(i, "runner", None) for i in session.items) if r}
    for runner in runners.values():  # harness processes stop with the session
        runner.close()
    settings = session.config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        from .corpus import session_finish

        session_finish(session)


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is not None and settings.corpus is not None:
        from .corpus import terminal_summary

        terminal_summary(terminalreporter, config)
    if settings is not None and settings.active and settings.save_failures is not None:
        from .regressions import summary_line

        terminalreporter.write_line(summary_line(
            terminalreporter.stats.get("failed", []), settings.save_failures,
            config.invocation_params.dir))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:  # pytest-xdist: every worker uses the controller's seed
    settings = node.config.stash.get(SETTINGS_KEY, None)
    if settings is not None:
        node.workerinput["mcs_seed"] = settings.seed

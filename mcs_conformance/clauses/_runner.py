"""Run a property the way every clause runs one.

Checks build their Hypothesis test here so that all of them run the same way: under the
profile the caller loaded, one bug reported at a time (the shrunk `ClauseFailure`), with a
database key and a derandomized seed of their own per clause and per subject.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import import_module
from typing import Any, Callable

from hypothesis import given, settings, strategies as st
from hypothesis.internal.reflection import function_digest

import mcs_reference
from mcs_conformance import wires
from mcs_conformance.clauses._registry import Clause, Subject

__all__ = ["check_each", "consult_database", "count_example", "digest", "examples_failed",
           "examples_run", "load_kit_modules", "on_each"]


_examples = [0]
_failed = [0]


def count_example() -> None:
    """One more example run (a report says how many examples each verdict rests on)."""
    _examples[0] += 1


def examples_run() -> int:
    """Examples run in this process so far, by every clause."""
    return _examples[0]


def examples_failed() -> int:
    """Examples on which a property failed or raised in this process so far, shrinking
    included (`certify` shows a running clause's failures before its verdict)."""
    return _failed[0]


def digest(clause: Clause, subject: Subject) -> bytes:
    """Tells apart the Hypothesis tests of one clause run on different subjects."""
    return f"{clause.id}\0{subject.target}\0{subject.name}".encode()


def check_each(clause: Clause, subject: Subject, generator: st.SearchStrategy,
               prop: Callable[[Any], None]) -> None:
    """Run `prop` on values of `generator` under the loaded profile; the first failure,
    shrunk, propagates (a `ClauseFailure` when the property does not hold)."""

    @settings(report_multiple_bugs=False)
    @given(generator)
    def run(value: Any) -> None:
        count_example()
        try:
            prop(value)
        except Exception as exc:  # the strategy raised: keep the case, to report its quirks
            _failed[0] += 1
            if not hasattr(exc, "mcs_case"):
                exc.mcs_case = value
            raise

    run.hypothesis.inner_test._hypothesis_internal_add_digest = digest(clause, subject)
    consult_database(run)  # --mcs-database: replay the failures saved by earlier runs first
    run()


def on_each(prop: Callable[[Any], None]) -> Callable[[tuple], None]:
    """A property over a tuple of cases: `prop` on each in turn; an exception it raises
    carries the one case it raised on (the report shows that case, not the tuple)."""

    def each(cases: tuple) -> None:
        for case in cases:
            try:
                prop(case)
            except Exception as exc:
                if not hasattr(exc, "mcs_case"):
                    exc.mcs_case = case
                raise

    return each


def consult_database(test: Any) -> None:
    """Make a `@given` test read and write the database of its settings, if they have one.

    Hypothesis consults no database for a test run under a forced seed, and the kit forces
    one on every clause (`--mcs-seed`): the kit gives the test its key itself, the digest
    Hypothesis would use, which already tells clauses and subjects apart."""
    if test._hypothesis_internal_use_settings.database is None:
        return
    test._hypothesis_internal_database_key = function_digest(test.hypothesis.inner_test)


@lru_cache(maxsize=None)
def load_kit_modules() -> None:
    """Import every built-in wire and reference module before the first example.

    Hypothesis draws some values from the constants written in local modules (the kit's,
    when it runs from a checkout or an editable install) and rebuilds that pool whenever
    one more is imported. Imported as the clauses came to need them, a clause's examples
    for one seed hung on which clauses ran before it (a `--clause` rerun could draw other
    ones), and the pool was rebuilt three times a certify (about 0.1 s)."""
    for module in wires.BUILT_IN.values():
        import_module(f"{wires.__name__}.{module}")
    for name in mcs_reference.__all__:
        getattr(mcs_reference, name)

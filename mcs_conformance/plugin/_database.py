"""Hypothesis' example database for the kit's runs (`--mcs-database`): a failure found once is
replayed first on the next run.

Hypothesis consults no database for a test run under a forced seed, and the kit forces one on
every clause (`--mcs-seed`), so on its own a database would never be read nor written. The kit
gives each clause's Hypothesis test its database key itself: the digest Hypothesis would use,
which already tells clauses and subjects apart. Without `--mcs-database` the kit's profiles
keep no database at all, so a run depends on its seed alone.
"""
from __future__ import annotations

import re
from argparse import ArgumentTypeError
from typing import Any

from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from .profiles import profile_settings
from .targets import TargetError, import_object

_OBJECT = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")  # pkg.module:OBJ, not a path


def example_database(spec: str, option: str) -> ExampleDatabase:
    """The database `spec` names: a folder (made when needed), or `pkg.module:OBJ` naming an
    `ExampleDatabase` (Hypothesis' GitHubArtifactDatabase behind a local folder, say).

    Raises `ArgumentTypeError`, one line that starts with `option`.
    """
    if not _OBJECT.match(spec):
        from .settings import writable_folder

        folder = writable_folder(option, spec, "for the example database (or pkg.module:OBJ naming one)")
        return DirectoryBasedExampleDatabase(str(folder))
    try:
        found = import_object(spec)
    except TargetError as exc:
        raise ArgumentTypeError(f"{option}: {str(exc).removeprefix(spec + ': ')}") from None
    if not isinstance(found, ExampleDatabase):
        what = "a class" if isinstance(found, type) else f"a {type(found).__name__} object"
        raise ArgumentTypeError(f"{option}: {what}, not a Hypothesis example database instance "
                                "(hypothesis.database.ExampleDatabase); or name a folder")
    return found


def load_profile_with_database(profile: str, database: ExampleDatabase) -> None:
    """Load the kit's `profile` with `database` as its example database."""
    name = f"mcs-{profile}-database"
    settings.register_profile(name, parent=profile_settings(profile), database=database)
    settings.load_profile(name)


def consult_database(test: Any) -> None:
    """Make a `@given` test read and write the database of its settings, if they have one."""
    if test._hypothesis_internal_use_settings.database is None:
        return
    from hypothesis.internal.reflection import function_digest

    test._hypothesis_internal_database_key = function_digest(test.hypothesis.inner_test)

"""Hypothesis' example database for the kit's runs (`--mcs-database`): a failure found once is
replayed first on the next run.

Hypothesis consults no database for a test run under a forced seed, and the kit forces one on
every clause (`--mcs-seed`), so on its own a database would never be read nor written. The kit
gives each clause's Hypothesis test its database key itself: the digest Hypothesis would use,
which already tells clauses and subjects apart. Without `--mcs-database` the kit's profiles
keep no database at all, so a run depends on its seed alone.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from .profiles import profile_settings


def load_profile_with_database(profile: str, folder: Path) -> None:
    """Load the kit's `profile` with its example database kept in `folder`."""
    name = f"mcs-{profile}-database"
    settings.register_profile(name, parent=profile_settings(profile),
                              database=DirectoryBasedExampleDatabase(str(folder)))
    settings.load_profile(name)


def consult_database(test: Any) -> None:
    """Make a `@given` test read and write the database of its settings, if they have one."""
    if test._hypothesis_internal_use_settings.database is None:
        return
    from hypothesis.internal.reflection import function_digest

    test._hypothesis_internal_database_key = function_digest(test.hypothesis.inner_test)

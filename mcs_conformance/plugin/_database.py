"""Hypothesis' example database for the kit's runs (`--mcs-database`): a failure found once is
replayed first on the next run.

Hypothesis consults no database for a test run under a forced seed, and the kit forces one on
every clause (`--mcs-seed`), so the clause runner gives each clause's test its database key
itself (`clauses`). Without `--mcs-database` the kit's profiles keep no database at all, so a
run depends on its seed alone.
"""
from __future__ import annotations

from hypothesis import settings
from hypothesis.database import ExampleDatabase

from mcs_conformance.plugin._profiles import profile_settings

__all__ = ["load_profile_with_database"]


def load_profile_with_database(profile: str, database: ExampleDatabase) -> None:
    """Load the kit's `profile` with `database` as its example database."""
    name = f"mcs-{profile}-database"
    settings.register_profile(name, parent=profile_settings(profile), database=database)
    settings.load_profile(name)

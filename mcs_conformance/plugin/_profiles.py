"""Hypothesis profiles of the kit: `dev` (fast), `ci` (derandomized, no deadline), `thorough`."""
from __future__ import annotations

from hypothesis import HealthCheck, Phase, settings

PROFILES = ("dev", "ci", "thorough")
DEFAULT = "dev"
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]
# The explain phase costs up to 10x the shrink on these generators, and the kit prints its
# own account of a failure (clause, shrunk case, reproduce command).
_PHASES = [Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink]

# Hypothesis loads its own `ci` profile (derandomized, no database) when a CI variable is
# set; the kit's profiles must not inherit from whichever is loaded, or `--mcs-seed` would
# change nothing on a CI machine. They build on Hypothesis' plain defaults instead.
_BASE = settings.get_profile("default")

# No profile keeps an example database: `--mcs-database` adds one (mcs_conformance/database.py).
settings.register_profile(
    "mcs-dev", parent=_BASE, max_examples=40, deadline=None, suppress_health_check=_QUIET, phases=_PHASES, print_blob=True,
    database=None,
)
settings.register_profile(
    "mcs-ci", parent=_BASE, max_examples=100, deadline=None, derandomize=True,
    suppress_health_check=_QUIET, phases=_PHASES, print_blob=True, database=None,
)
settings.register_profile(
    "mcs-thorough", parent=_BASE, max_examples=1000, deadline=None, suppress_health_check=_QUIET, phases=_PHASES,
    print_blob=True, database=None,
)


def profile_settings(profile: str) -> settings:
    """The Hypothesis settings object for a kit profile name."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return settings.get_profile(f"mcs-{profile}")


SHRINK_SECONDS = 60


def cap_shrinking(seconds: float) -> float:
    """Bound the time Hypothesis spends shrinking one failure; returns the previous bound.

    Hypothesis allows 300 s, which on large wire cases turns one failing clause into a
    five-minute wait; a minute gets a readable counterexample. Hypothesis has no public
    setting for it, so this sets its engine's module constant (and tolerates its absence).
    """
    try:
        from hypothesis.internal.conjecture import engine
    except ImportError:  # pragma: no cover - a future Hypothesis may move it
        return seconds
    previous = getattr(engine, "MAX_SHRINKING_SECONDS", seconds)
    engine.MAX_SHRINKING_SECONDS = seconds
    return previous

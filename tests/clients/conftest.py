"""Fixtures for the client tests: the kit's default profile with a fixed seed, and the
deliberately broken clients of tests/broken_clients importable."""
from __future__ import annotations

import sys
from pathlib import Path

import hypothesis.core
import pytest
from hypothesis import Phase, settings

import mcs_conformance.plugin._profiles  # noqa: F401  (registers the kit's profiles)

# The default profile's examples without the shrink: a test asks whether a clause flags a
# client, not how small the counterexample gets (shrinking through HTTP takes a minute).
settings.register_profile("mcs-dev-unshrunk", parent=settings.get_profile("mcs-dev"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate])

TESTS = Path(__file__).resolve().parents[1]


@pytest.fixture
def kit_profile():
    """Run clause checks on the default profile's examples, seed fixed, without shrinking."""
    previous, seed = settings.get_current_profile_name(), hypothesis.core.global_force_seed
    settings.load_profile("mcs-dev-unshrunk")
    hypothesis.core.global_force_seed = 1
    try:
        yield
    finally:
        settings.load_profile(previous)
        hypothesis.core.global_force_seed = seed


@pytest.fixture(scope="session", autouse=True)
def broken_clients_importable():
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    yield

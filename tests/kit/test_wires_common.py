"""What every wire promises, whatever its format."""
from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings

from mcs_conformance.wires import get_wire, wire_names

SOME = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _scramble(value):
    """Change every dict and list inside `value`, in place."""
    if isinstance(value, dict):
        for key in list(value):
            _scramble(value[key])
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in value:
            _scramble(item)
        value.append("scrambled")


@pytest.mark.parametrize("name", wire_names())
def test_chunks_share_nothing_with_the_message(name):
    """A strategy may keep and change what it is fed; the truth of the case must not move."""

    @SOME
    @given(get_wire(name).cases())
    def check(case):
        before = copy.deepcopy((case.message, case.response))
        for chunk in case.chunks:
            _scramble(chunk)
        assert (case.message, case.response) == before

    check()

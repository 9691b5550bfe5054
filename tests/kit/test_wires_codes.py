"""The cheap building blocks of the wires: values read from one drawn string of codes.

Each must keep what the values it replaced promised (bounds, shapes, shrinking to the
plainest value), since every wire and every clause draws through them.
"""
from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from mcs_conformance.wires._base import Tape, cut, cut_points, tapes
from mcs_conformance.wires._content import KEYS, OPAQUE, arguments, prose, tool_names

SOME = settings(max_examples=200, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])
NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_-]{0,40}")


def depth(value) -> int:
    """Containers nested in `value`, itself included."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


@SOME
@given(st.data(), st.integers(1, 3000), st.integers(0, 8))
def test_cut_points_stay_inside_the_text_and_bound_their_count(data, length, max_cuts):
    points = data.draw(cut_points(length, max_cuts))
    assert points == sorted(points) and len(points) <= max_cuts
    assert all(0 <= point <= length for point in points)
    text = "x" * length
    assert "".join(cut(text, points)) == text


def test_cut_points_reach_past_the_first_256_characters():
    found = find(cut_points(1000), lambda points: any(point > 900 for point in points),
                 settings=settings(database=None, max_examples=500, derandomize=True))
    # The point past 900 comes out; the others shrink to the start (how many of them are
    # left varies with the seed: two bytes a point, deleted one at a time, misalign).
    assert found[-1] > 900 and set(found[:-1]) <= {0}


def test_an_empty_text_stays_whole_or_is_one_empty_piece():
    assert find(cut_points(0), lambda points: points is None, settings=settings(database=None)) is None
    assert find(cut_points(0), lambda points: points == [], settings=settings(database=None)) == []
    assert find(cut_points(0, allow_empty=False), lambda points: True,
                settings=settings(database=None)) is None


def test_a_tape_slot_reads_in_range_and_never_a_later_option_for_a_lower_byte():
    for count in (1, 2, 3, 6, 8, 256):
        read = [Tape({"slot": 0}, bytes([byte])).below("slot", count) for byte in range(256)]
        assert read == sorted(read) and read[0] == 0 and read[-1] == count - 1
        assert set(read) == set(range(count))  # every option can come out


def test_a_tape_shrinks_every_slot_to_its_plainest_option():
    slots = ("a", "b", "c")
    tape = find(st.composite(tapes(slots))(), lambda tape: True, settings=settings(database=None))
    assert [tape.below(slot, 5) for slot in slots] == [0, 0, 0]
    assert tape.pick("a", ("first", "second")) == "first" and not tape.flip("b")


@SOME
@given(arguments())
def test_arguments_are_json_objects_three_containers_deep_at_most(value):
    assert isinstance(value, dict) and depth(value) <= 3
    assert json.loads(json.dumps(value)) == value


def test_arguments_shrink_to_the_empty_object():
    assert find(arguments(), lambda value: True, settings=settings(database=None)) == {}


def test_arguments_hold_nesting_markers_and_big_strings():
    bigger = settings(database=None, max_examples=2000)
    assert depth(find(arguments(), lambda v: depth(v) == 3, settings=bigger)) == 3
    find(arguments(), lambda v: "<tool_call>" in json.dumps(v, ensure_ascii=False), settings=bigger)
    find(arguments(), lambda v: len(json.dumps(v)) > 500, settings=bigger)
    found = find(arguments(), lambda v: any(key not in KEYS for key in v), settings=bigger)
    assert found  # a key drawn afresh, not from the table


@SOME
@given(prose(min_size=1), prose(), tool_names())
def test_prose_and_names_keep_their_shapes(some, any_text, name):
    assert some and isinstance(any_text, str)
    assert NAME.fullmatch(name), name


def test_prose_shrinks_to_the_empty_text():
    assert find(prose(), lambda text: True, settings=settings(database=None)) == ""


def test_a_wide_tape_position_reaches_every_end_of_a_long_text():
    count = 1000
    read = {Tape({"at": 0, "at+": 1}, bytes([high, low])).at("at", count)
            for high in range(256) for low in range(256)}
    assert read == set(range(count))  # every position, the first and the last included
    assert Tape({"at": 0}, bytes([255])).at("at", 200) == 199  # short counts read one slot


def test_opaque_numbers_fill_their_high_bits_so_every_field_read_from_them_varies():
    """Hypothesis draws most big integers below 2**48: unspread, every id or obfuscation
    read from the high bits would come out the same in most cases."""
    high = []

    @settings(max_examples=100, database=None, derandomize=True)
    @given(OPAQUE)
    def draw(number):
        high.append(number >> 128)

    draw()
    assert len(set(high)) > 50, sorted(set(high))[:10]

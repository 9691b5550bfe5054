"""The clauses' shared helpers: comparing, copying, and the hand-made shapes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcs_reference as ref
from mcs_conformance import base
from mcs_conformance import wires
from mcs_conformance.clauses import _compare
from mcs_conformance.clauses import _subjects
from mcs_conformance.wires import get_wire
from mcs_reference.calls import ExtractedCall

_FAST = settings(max_examples=25, deadline=None)


def test_first_difference_names_the_path_and_both_values():
    assert _compare.first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]}) is None
    found = _compare.first_difference({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "y"}]})
    assert found == "message.a[1].b: expected 'x', got 'y'"
    assert "missing key 'b'" in _compare.first_difference({"b": 1}, {})
    assert "unexpected key 'c'" in _compare.first_difference({}, {"c": 1})
    assert "expected 2 items, got 1 (missing 2)" in _compare.first_difference([1, 2], [1])
    assert "(extra 3)" in _compare.first_difference([1], [1, 3])


@pytest.mark.parametrize(("expected", "got"), [(1, 1.0), (1, True), (None, ""), ({}, [])])
def test_first_difference_counts_json_types(expected, got):
    assert _compare.first_difference(expected, got) is not None


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2, 2) | st.floats() | st.text(max_size=2),
    lambda inner: (st.lists(inner, max_size=3) | st.tuples(inner)
                   | st.dictionaries(st.text(max_size=1), inner, max_size=3)),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(_VALUES, _VALUES, st.booleans())
def test_the_shortcut_for_identical_values_gives_the_full_comparison_s_answer(a, b, numbers):
    """first_difference returns None at once for values equal with the same types; it must
    be what the walk over every path says (NaN, -0.0, 1 against 1.0 or True, a tuple)."""
    for expected, got in ((a, b), (a, base.copy_json(a)), (a, a)):
        shortcut = _compare.first_difference(expected, got, json_numbers=numbers)
        original = _compare._identical
        _compare._identical = lambda _expected, _got: False
        try:
            walked = _compare.first_difference(expected, got, json_numbers=numbers)
        finally:
            _compare._identical = original
        assert shortcut == walked


def test_calls_difference_compares_ids_only_where_expected():
    call = ExtractedCall("f", {"a": 1}, "call_1")
    assert _compare.calls_difference([call], [call]) is None
    assert "id" in _compare.calls_difference([call], [ExtractedCall("f", {"a": 1}, "call_2")])
    textual = ExtractedCall("f", {"a": 1})
    assert _compare.calls_difference([textual], [ExtractedCall("f", {"a": 1}, "made_up")]) is None
    errored = ExtractedCall("f", {}, None, error="bad")
    assert "error" in _compare.calls_difference([errored], [ExtractedCall("f", {})])
    assert "extract() must return a list" in _compare.calls_difference([], None)
    assert "expected 1 items, got 0" in _compare.calls_difference([call], [])


def test_copy_json_is_deep():
    value = {"a": [{"b": 1}], "c": "x"}
    copied = base.copy_json(value)
    copied["a"][0]["b"] = 2
    assert value == {"a": [{"b": 1}], "c": "x"}


def test_text_shaped_is_only_an_openai_message_without_tool_calls():
    message = {"role": "assistant", "content": "hi", "refusal": None, "annotations": []}
    assert _subjects.text_shaped("openai-chat", message)
    assert not _subjects.text_shaped("openai-chat", {**message, "tool_calls": None})
    assert not _subjects.text_shaped("openai-chat", {**message, "content": None})
    assert not _subjects.text_shaped("anthropic-messages", message)


def test_chain_with_puts_the_subject_in_place_of_its_reference():
    subject = ref.OpenAIResponsesStrategy()
    chain = _subjects.chain_with(subject, "openai-responses")
    assert chain.strategies[1] is subject
    assert [s.name for s in chain.strategies][-1] == "text-json"
    hermes = ref.TextStrategy(ref.HermesCodec())
    assert _subjects.chain_with(None, None, texts=[hermes]).strategies[-1] is hermes


@pytest.mark.parametrize("wire_name", wires.REWRITABLE)
def test_with_text_leaves_only_the_text(wire_name):
    strategy = _subjects.reference(wire_name)

    @_FAST
    @given(get_wire(wire_name).messages(min_calls=1), wires.plain_prose)
    def check(message, text):
        made = wires.with_text(wire_name, message, text)
        assert strategy.extract(made) == []
        assert strategy.content_text(made) == text
        assert _compare.first_difference(message, base.copy_json(message)) is None

    check()


@_FAST
@given(wires.quiet_prose())
def test_quiet_prose_writes_no_call_for_the_reference_codecs(text):
    assert ref.JsonCodec().decode(text) == []
    assert ref.HermesCodec().decode(text) == []


@_FAST
@given(wires.simple_calls(max_size=3))
def test_simple_calls_round_trip_through_the_reference_codecs(calls):
    for codec in (ref.JsonCodec(), ref.HermesCodec()):
        assert _compare.calls_difference(calls, codec.decode(codec.encode(calls))) is None

"""The model outputs drawn per format: their truth is what the reference reads, their deltas
never cut a special token, their prose stands only where the format lets it."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import Phase, find, given, settings, strategies as st
from hypothesis.errors import InvalidArgument

from mcs_reference import ExtractedCall, format_codec, format_names
from mcs_conformance.wires import (format_cases, malformed_cases, MUTATIONS, mutated_outputs,
                                   prose_cases, spelled, spelling_choices, SPELLINGS, spellings_of,
                                   token_deltas, tokenize, tools_for)
from mcs_conformance.wires._spellings import allowed_spellings

FORMATS = format_names()
CODEC_FORMAT = {format_codec(name).name: name for name in FORMATS}


@given(st.text(), st.lists(st.sampled_from(["<tool_call>", "[TOOL_CALLS]", "<|call|>"])))
def test_tokens_join_back_and_keep_special_tokens_whole(text, specials):
    tokens = tokenize(text, specials)
    assert "".join(tokens) == text
    for special in specials:  # no token holds a special token but that token itself
        assert all(special not in token for token in tokens if token not in specials)


@given(st.lists(st.text(max_size=3), max_size=40).flatmap(
    lambda tokens: st.tuples(st.just(tokens), token_deltas(tokens))))
def test_deltas_are_the_tokens_in_order_grouped(drawn):
    tokens, deltas = drawn
    assert all(deltas) and [t for delta in deltas for t in delta] == tokens


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_drawn_output_is_read_back_as_its_truth(name, data):
    codec = format_codec(name)
    case = data.draw(format_cases(codec))
    assert "".join(t for delta in case.deltas for t in delta) == case.text
    assert [(c.name, c.arguments) for c in codec.decode(case.text)] == \
        [(c.name, c.arguments) for c in case.calls]
    assert "".join(codec.content(case.text).split()) == "".join(case.content.split())
    assert [tool["function"]["name"] for tool in case.tools] == [c.name for c in case.calls]
    for special in codec.special_tokens:
        assert not any(special in token and token != special for delta in case.deltas
                       for token in delta)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_prose_holds_no_call_and_a_malformed_call_reads_as_an_error(name, data):
    codec = format_codec(name)
    assert codec.decode(data.draw(prose_cases(codec)).text) == []
    if getattr(codec, "malformed_arguments", True):
        [found] = codec.decode(data.draw(malformed_cases(codec)).text)
        assert found.error is not None


def test_prose_stands_only_where_the_format_lets_it():
    assert format_codec("hermes").prose_after is False
    assert format_codec("pythonic").prose_before is False
    assert format_codec("json").prose_between is True


def test_tools_are_typed_after_the_drawn_arguments():
    [tool] = tools_for([ExtractedCall("f", {"n": 1, "s": "x", "b": True, "o": {}, "l": []})])
    assert tool["function"]["parameters"]["properties"] == {
        "n": {"type": "integer"}, "s": {"type": "string"}, "b": {"type": "boolean"},
        "o": {"type": "object"}, "l": {"type": "array"}}


# -- the spellings real models write -------------------------------------------------------
@pytest.mark.parametrize("format, spelling", sorted(SPELLINGS),
                         ids=[f"{format}:{name}" for format, name in sorted(SPELLINGS)])
def test_each_spelling_is_drawn_tagged_and_read_back_as_its_truth(format, spelling):
    codec = format_codec(CODEC_FORMAT[format])
    case = find(format_cases(codec, min_calls=1, spellings={spelling}),
                lambda case: spelling in case.spellings,
                settings=settings(database=None, max_examples=300, derandomize=True, phases=[Phase.generate]))
    assert [(c.name, c.arguments) for c in codec.decode(case.text)] == \
        [(c.name, c.arguments) for c in case.calls]
    assert "".join(codec.content(case.text).split()) == "".join(case.content.split())
    assert case.to_dict()["spellings"] == [spelling]
    # a spelling is one: the template's own writing of the same calls (without ids) differs
    plain = [dataclasses.replace(c, id=None) for c in case.calls]
    assert spelled(codec, case.calls, [SPELLINGS[format, spelling]]) != codec.encode(plain)


@pytest.mark.parametrize("name", FORMATS)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_no_spelling_is_drawn_when_none_is_allowed(name, data):
    codec = format_codec(name)
    case = data.draw(format_cases(codec, spellings=frozenset()))
    assert case.spellings == frozenset()
    written = [[c] for c in case.calls] if codec.prose_between else [case.calls]
    assert all(codec.encode(calls) in case.text for calls in written)


def test_an_unknown_spelling_is_refused_naming_the_known_ones():
    with pytest.raises(InvalidArgument, match="no-newlines"):
        find(format_cases(format_codec("hermes"), spellings={"tekken-no-space"}), bool)


def test_every_spelling_names_its_source():
    assert {spelling.format for spelling in SPELLINGS.values()} <= set(CODEC_FORMAT)
    for spelling in SPELLINGS.values():
        assert spelling.source and spelling.description, spelling.name
    assert [s.name for s in spellings_of("mistral-v11")] == ["call-id", "args-token-dropped"]


@pytest.mark.parametrize("name", FORMATS)
def test_every_choice_of_spellings_a_case_may_hold_reads_back_without_error(name):
    """One body spelling at most and any of the others: no two of them make together a
    text no model writes (DeepSeek V3's closing fence inline, after no opening fence)."""
    codec = format_codec(name)
    calls = [ExtractedCall("f", {"a": "x"}, "a1B2c3D4e"), ExtractedCall("g", {}, "b2C3d4E5f")]
    for chosen in spelling_choices(codec.name):
        found = codec.decode(spelled(codec, calls, chosen))
        assert [(c.name, c.arguments, c.error) for c in found] == \
            [(c.name, c.arguments, None) for c in calls], [s.name for s in chosen]


@pytest.mark.parametrize("name", FORMATS)
def test_every_spelling_is_drawn_by_default(name):
    """Those whose first call opens without the template's opening token too: the
    reference parser holds the text from any token that can open a call
    (tests/engines/test_parser_clauses.py)."""
    codec = format_codec(name)
    assert allowed_spellings(codec.name, None) == spellings_of(codec.name)


# -- model outputs mutated -----------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_each_mutation_kind_is_applied_and_named(kind):
    codec = format_codec("kimi-k2")
    output = find(mutated_outputs(codec, kinds={kind}), lambda o: kind in o.mutations,
                  settings=settings(database=None, max_examples=200, derandomize=True, phases=[Phase.generate]))
    assert set(output.mutations) == {kind} and output.text != output.origin.text
    assert output.format == "kimi-k2"


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_an_output_without_mutations_is_the_output_as_drawn(data):
    output = data.draw(mutated_outputs(format_codec("hermes"), max_mutations=0))
    assert output.mutations == () and output.text == output.origin.text


def test_an_unknown_mutation_kind_is_refused_naming_the_known_ones():
    with pytest.raises(InvalidArgument, match="cut-short"):
        find(mutated_outputs(format_codec("hermes"), kinds={"typo"}), bool)

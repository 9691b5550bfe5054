"""The public generators in `mcs_conformance.hypothesis`: Hypothesis's API style, every wire."""
from __future__ import annotations

import inspect

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import mcs_conformance.hypothesis as api
from mcs_conformance.base import schema
from mcs_conformance.hypothesis import cases, native_messages, streams
from mcs_conformance.wires import BUILT_IN, Case, get_wire
from mcs_conformance.wires.anthropic_messages import CUT, quirks_of as anthropic_quirks
from mcs_reference import HermesCodec, JsonCodec

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
FEW = settings(max_examples=25, deadline=None, suppress_health_check=QUIET)
SHRINK = settings(max_examples=1000, deadline=None, suppress_health_check=QUIET, database=None,
                  derandomize=True)
WIRES = sorted(BUILT_IN)


def draw_once(generator) -> None:
    """Draw from `generator` inside a test run (where InvalidArgument surfaces)."""

    @settings(max_examples=1, database=None, deadline=None)
    @given(generator)
    def run(value):
        pass

    run()


def test_public_surface():
    assert api.__all__ == ["cases", "model_outputs", "native_messages", "streams"]
    for function in (cases, native_messages, streams):
        parameters = list(inspect.signature(function).parameters.values())
        assert parameters[0].kind is inspect.Parameter.POSITIONAL_ONLY
        assert [p.kind for p in parameters[1:]] == [inspect.Parameter.VAR_KEYWORD]
        assert function.__doc__
    with pytest.raises(TypeError):
        streams("openai-chat", 3)  # options are keyword-only


@pytest.mark.parametrize("wire", WIRES)
def test_streams_are_message_and_chunks_that_fit_the_wire_schemas(wire):
    facts = get_wire(wire)

    @FEW
    @given(streams(wire))
    def check(pair):
        message, chunks = pair
        assert isinstance(chunks, list) and chunks
        if wire == "anthropic-messages" and CUT in anthropic_quirks(chunks):
            # cut by max_tokens: the last input is its unfinished JSON text, which no
            # stream=false message holds; the rest must fit
            last = {**message["content"][-1], "input": {}}
            message = {**message, "content": [*message["content"][:-1], last]}
        assert schema.errors(message, facts.message_schema) == []
        for chunk in chunks:
            assert schema.errors(chunk, facts.chunk_schema) == [], chunk

    check()


@pytest.mark.parametrize("wire", WIRES)
def test_native_messages_fit_the_wire_message_schema(wire):
    facts = get_wire(wire)

    @FEW
    @given(native_messages(wire))
    def check(message):
        assert schema.errors(message, facts.message_schema) == []

    check()


@pytest.mark.parametrize("wire", WIRES)
def test_cases_carry_the_truth(wire):
    @FEW
    @given(cases(wire, min_calls=1, max_calls=2))
    def check(case):
        assert isinstance(case, Case) and case.wire == wire
        assert 1 <= len(case.calls) <= 2
        assert 0 <= case.done_at < len(case.chunks) or (  # the end is `[DONE]`, no chunk
            case.done_at == len(case.chunks) and "no-finish-reason" in case.quirks)

    check()


@pytest.mark.parametrize("bad", [
    lambda: streams("no-such-wire"),
    lambda: native_messages("openai-chatt"),
    lambda: cases(42),
    lambda: streams("openai-chat", max_call=3),
    lambda: streams("openai-chat", max_calls=-1),
    lambda: streams("ollama-chat", min_calls=3, max_calls=1),
    lambda: cases("anthropic-messages", codec=HermesCodec()),
    lambda: cases("text", codec=object()),
    lambda: streams("openai-chat", max_cuts="many"),
], ids=["unknown-wire", "typo", "not-a-name", "unknown-option", "negative", "min>max",
        "codec-on-native-wire", "codec-without-encode", "wrong-type"])
def test_bad_arguments_raise_invalid_argument_at_draw_time(bad):
    generator = bad()  # building the generator never raises
    with pytest.raises(InvalidArgument):
        draw_once(generator)


def test_an_unknown_wire_is_named_in_the_error():
    with pytest.raises(InvalidArgument, match="no-such-wire.*known wires: .*openai-chat"):
        draw_once(streams("no-such-wire"))


def test_options_may_be_generators_drawn_per_example():
    counts: set[int] = set()

    @settings(max_examples=40, deadline=None, suppress_health_check=QUIET)
    @given(cases("openai-chat", min_calls=st.integers(1, 2), max_calls=st.just(2)))
    def check(case):
        counts.add(len(case.calls))
        assert 1 <= len(case.calls) <= 2

    check()
    assert counts == {1, 2}


def test_the_text_wire_takes_a_codec():
    @FEW
    @given(streams("text", codec=HermesCodec(), min_calls=1))
    def check(pair):
        message, chunks = pair
        assert "<tool_call>" in message["content"] and "tool_calls" not in message

    check()


def test_a_wire_object_is_accepted():
    wire = get_wire("ollama-chat")

    @FEW
    @given(cases(wire, max_calls=0), native_messages(wire))
    def check(case, message):
        assert case.wire == "ollama-chat" and case.calls == []
        assert message["done"] is True

    check()


@pytest.mark.parametrize("wire", ["openai-chat", "ollama-chat", "text"])
def test_streams_shrink_to_a_small_example(wire):
    case = find(cases(wire), lambda c: len(c.calls) >= 1, settings=SHRINK)
    assert len(case.calls) == 1 and case.calls[0].arguments == {}
    prose = case.text.replace(JsonCodec().encode(case.calls), "") if wire == "text" else case.text
    assert len(case.chunks) <= 4 and prose == ""


def test_model_outputs_draws_a_format_of_the_catalogue_with_its_truth():
    @settings(max_examples=10, deadline=None)
    @given(api.model_outputs("mistral-v11", min_calls=1, max_calls=2))
    def check(output):
        assert output.format == "mistral-v11" and 1 <= len(output.calls) <= 2
        assert "".join(t for delta in output.deltas for t in delta) == output.text

    check()
    with pytest.raises(InvalidArgument, match="nope: unknown format; known formats: json, "):
        api.model_outputs("nope")

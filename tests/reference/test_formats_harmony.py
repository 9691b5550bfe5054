"""The Harmony codec (gpt-oss): calls, final content, preambles and reasoning apart."""
from __future__ import annotations


import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.formats_harmony import HarmonyCodec

CODEC = HarmonyCodec()
_chars = st.characters(exclude_categories=("Cs",))
TOKENS = ("<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>",
          "<|return|>")
TRICKY = TOKENS + ("to=functions.x", "{", "}", '"', "\\", "é", "😀", "\x00", "\n")
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}", fullmatch=True)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60),
                   st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from(TRICKY), st.text(_chars, max_size=20))
values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(_chars, max_size=8), inner, max_size=3)),
    max_leaves=10)
calls_lists = st.lists(st.builds(ExtractedCall, names, st.dictionaries(
    st.text(_chars, max_size=8), values, max_size=4)), min_size=1, max_size=3)
prose = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="<"), max_size=30)

SAMPLE = ("<|channel|>analysis<|message|>User wants weather. Call the tool.<|end|>"
          "<|start|>assistant<|channel|>commentary<|message|>Checking the weather.<|end|>"
          "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
          '<|message|>{"location":"San Francisco"}<|call|>')


@given(calls=calls_lists, before=prose)
def test_round_trip(calls, before):
    assert all(CODEC.can_carry(call) for call in calls)
    text = before + CODEC.encode(calls)
    assert CODEC.decode(text) == calls
    assert CODEC.content(text) == before
    assert CODEC.peek_name(text) == calls[-1].name
    assert CODEC.reasoning(text) == ""


@given(text=st.text(_chars, max_size=200) | st.lists(st.sampled_from(TRICKY + (
    "commentary", " to=functions.f ", "json", "analysis", "final", "assistant", "{}", "x")),
    max_size=30).map("".join))
def test_never_raises(text):
    assert isinstance(CODEC.decode(text), list)
    assert isinstance(CODEC.content(text), str)
    assert isinstance(CODEC.reasoning(text), str)
    CODEC.peek_name(text)


def test_a_turn_with_reasoning_preamble_and_call():
    assert CODEC.decode(SAMPLE) == [ExtractedCall("get_weather", {"location": "San Francisco"})]
    assert CODEC.reasoning(SAMPLE) == "User wants weather. Call the tool."
    assert CODEC.content(SAMPLE) == "Checking the weather."  # a preamble is shown
    assert CODEC.peek_name(SAMPLE) == "get_weather"


def test_final_answer_and_recipient_in_the_role_header():
    text = ("<|channel|>analysis<|message|>think<|end|><|start|>assistant<|channel|>final"
            "<|message|>It is sunny.<|return|>")
    assert CODEC.decode(text) == [] and CODEC.content(text) == "It is sunny."
    role = '<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": 1}<|call|>'
    assert CODEC.decode(role) == [ExtractedCall("f", {"a": 1})]
    analysis = '<|channel|>analysis to=functions.f <|constrain|>json<|message|>{}<|call|>'
    assert CODEC.decode(analysis) == [ExtractedCall("f", {})]


def test_canonical_writing():
    calls = [ExtractedCall("f", {"a": 1}), ExtractedCall("g", {})]
    assert CODEC.encode(calls) == (
        '<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a":1}<|call|>'
        "<|start|>assistant<|channel|>commentary to=functions.g <|constrain|>json"
        "<|message|>{}<|call|>")


def test_markers_inside_arguments_do_not_end_the_call():
    call = ExtractedCall("f", {"s": "<|call|><|start|>assistant<|channel|>final<|message|>x"})
    assert CODEC.decode(CODEC.encode([call])) == [call]
    assert CODEC.content(CODEC.encode([call])) == ""


def test_built_in_tool_recipients_are_no_client_calls():
    text = '<|channel|>analysis to=browser.search <|constrain|>json<|message|>{"q": "x"}<|call|>'
    assert CODEC.decode(text) == [] and CODEC.content(text) == "" and CODEC.reasoning(text) == ""


@pytest.mark.parametrize("body", ["not json", "[1, 2]", '"text"', "null", '{"a": 1}}',
                                  '{"city": ', '{"city": "Par'])
def test_malformed_arguments_are_an_error_call(body):
    text = f"Hi <|channel|>commentary to=functions.f <|constrain|>json<|message|>{body}<|call|>"
    for written in (text, text[:-len("<|call|>")]):
        found = CODEC.decode(written)
        assert len(found) == 1 and found[0].name == "f" and found[0].error is not None
        assert found[0].raw_arguments.strip() == body.strip()
    written = CODEC.encode([ExtractedCall("f", {}, None, "bad", body)])
    assert CODEC.decode(written)[0].error is not None


@pytest.mark.parametrize("text", [
    "Talk about <|channel|> and to=functions.f in prose",
    "<|channel|>final<|message|>Use to=functions.f with {\"a\": 1}<|return|>",
    "<|channel|>commentary<|message|>{\"name\": \"f\", \"arguments\": {}}<|end|>",
])
def test_prose_is_no_call(text):
    assert CODEC.decode(text) == []


@pytest.mark.parametrize("text, name", [
    ("<|channel|>commentary to=functions.get_wea", None),
    ("<|channel|>commentary to=functions.get_weather <|constrain|>js", "get_weather"),
    ('<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": "b', "f"),
])
def test_peek_name(text, name):
    assert CODEC.peek_name(text) == name


def test_results_are_tool_messages():
    records = [ToolCallRecord("f", {}, {"sunny": True}), ToolCallRecord("g", {}, None, "boom")]
    assert CODEC.encode_results(records) == (
        '<|start|>functions.f to=assistant<|channel|>commentary<|message|>{"sunny": true}<|end|>'
        '<|start|>functions.g to=assistant<|channel|>commentary<|message|>{"error": "boom"}'
        "<|end|>")


def test_can_carry():
    assert not CODEC.can_carry(ExtractedCall("a b", {}))
    assert not CODEC.can_carry(ExtractedCall("f", {}, "call_1"))
    assert CODEC.can_carry(ExtractedCall("ns.f-1", {"k": [1]}))


@pytest.mark.parametrize("unit", ["<|channel|>", "<|channel|>commentary to=functions.f<|message|>{",
                                  "<|start|>assistant<|message|>", '{"a": "<|call|>'])
def test_linear_on_hostile_input(unit, linear):
    linear(lambda n: (CODEC.decode(unit * n), CODEC.content(unit * n)), 20000)


@pytest.mark.parametrize("text", [
    ' to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city": "Paris"}',
    ' to=functions.get_weather<|channel|>analysis<|message|>{"city": "Paris"}<|call|>',
    'to=functions.get_weather<|message|>{"city": "Paris"}',
])
def test_the_first_message_may_name_its_recipient_in_the_role_header(text):
    """The output starts after the prompt's `<|start|>assistant`: a recipient there opens
    the text (llama.cpp's gpt-oss parser tests; before, the call was read as prose)."""
    assert CODEC.decode(text) == [ExtractedCall("get_weather", {"city": "Paris"})]
    assert CODEC.content(text) == ""


def test_to_in_prose_before_any_header_is_prose():
    assert CODEC.decode("to=functions.x is what it said") == []
    assert CODEC.content("Hello to=x <|channel|>final<|message|>Hi") == "Hello to=x Hi"


@pytest.mark.parametrize("text, content, reasoning", [
    ("<|channel|>commentary to=assistant<|channel|>analysis<|message|>I'm thinking<|end|>"
     "<|start|>assistant<|channel|>final<|message|>Hello", "Hello", "I'm thinking"),
    ("<|channel|>analysis<|message|>I'm thinking<|end|><|start|>assistant<|channel|>commentary "
     "to=assistant<|channel|>final<|message|>Hello", "Hello", "I'm thinking"),
])
def test_a_stray_channel_to_the_assistant_before_the_header_loses_nothing(text, content,
                                                                          reasoning):
    """gpt-oss may write `<|channel|>commentary to=assistant` before a message's own channel
    (llama.cpp's gpt-oss parser tests). Before: the final answer or the reasoning vanished,
    read as a message to a recipient named assistant."""
    assert CODEC.content(text) == content and CODEC.reasoning(text) == reasoning
    assert CODEC.decode(text) == []

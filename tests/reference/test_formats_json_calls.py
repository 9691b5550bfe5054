"""The JSON-call and pythonic format codecs: Mistral (pre-v11, v11+), Llama 3 JSON, pythonic."""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.formats_json_calls import (Llama3JsonCodec, MistralCodec, MistralV11Codec,
                                              PythonicCodec)

CODECS = [MistralCodec(), MistralV11Codec(), Llama3JsonCodec(), Llama3JsonCodec(python_tag=True),
          PythonicCodec(), PythonicCodec(python_start=True)]
ids = [codec.name for codec in CODECS]
TEXTS = Path(__file__).parents[2].parent / "shared" / "corpora-real" / "text-formats"

# -- generators ----------------------------------------------------------------------------
_chars = st.characters(exclude_categories=("Cs",))
TRICKY = ("[TOOL_CALLS]", "[ARGS]", "<|python_tag|>", "<|python_start|>", "]", "[", "{", "}",
          '"', "'", "\\", "\\n", ";", "; ", ")", "(", "\u2028", "\x00", "😀", "é", "null")
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}", fullmatch=True)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60),
                   st.floats(allow_nan=False, allow_infinity=False),
                   st.sampled_from(TRICKY), st.text(_chars, max_size=20))
keys = st.one_of(st.sampled_from(("name", "arguments", "parameters", "a b", "é", "class")),
                 st.text(_chars, max_size=8), st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True))
values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(keys, inner, max_size=3)), max_leaves=10)
calls_lists = st.lists(st.builds(ExtractedCall, names, st.dictionaries(keys, values, max_size=4)),
                       min_size=1, max_size=3)
prose = st.text(st.characters(exclude_categories=("Cs",), exclude_characters='{}[]"<\\'),
                max_size=30)


# -- round trip ----------------------------------------------------------------------------
@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(calls=calls_lists, before=prose, after=prose)
def test_round_trip_with_prose(codec, calls, before, after):
    calls = [call for call in calls if codec.can_carry(call)]
    text = before + codec.encode(calls) + (after if codec.prose_after else "")
    assert codec.decode(text) == calls
    expected = before + (after if codec.prose_after else "")
    assert "".join(codec.content(text).split()) == "".join(expected.split())
    assert codec.peek_name(text) == (calls[-1].name if calls else None)


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(text=st.text(_chars, max_size=200) | st.lists(st.sampled_from(TRICKY + (
    "get(", "x=1", "a", " ", "\n", '"name": "f"', '"parameters": {', "[f(", ",")), max_size=30).map("".join))
def test_never_raises(codec, text):
    assert isinstance(codec.decode(text), list)
    assert isinstance(codec.content(text), str)
    codec.peek_name(text)


def test_can_carry_says_what_each_format_cannot_write():
    assert not PythonicCodec().can_carry(ExtractedCall("get-time", {}))
    assert not PythonicCodec().can_carry(ExtractedCall("f", {"a b": 1}))
    assert not PythonicCodec().can_carry(ExtractedCall("f", {"class": 1}))
    assert PythonicCodec().can_carry(ExtractedCall("ns.f", {"é": [1, {"a b": None}]}))
    assert not MistralV11Codec().can_carry(ExtractedCall("a b", {}))
    assert MistralCodec().can_carry(ExtractedCall("a-b.c", {"x": 1}, "abcDEF123"))
    assert not MistralCodec().can_carry(ExtractedCall("a b", {"x": 1}))  # a name is one word
    assert not Llama3JsonCodec().can_carry(ExtractedCall("f", {}, "abcDEF123"))
    assert not MistralCodec().can_carry(ExtractedCall("f", {}, None, "bad", "x"))


# -- the exact shapes ----------------------------------------------------------------------
def test_canonical_writing():
    call = ExtractedCall("add", {"a": 1})
    assert MistralCodec().encode([call]) == '[TOOL_CALLS] [{"name": "add", "arguments": {"a": 1}}]'
    assert MistralV11Codec().encode([call, call]) == '[TOOL_CALLS]add[ARGS]{"a": 1}' * 2
    assert Llama3JsonCodec().encode([call, call]) == (
        '{"name": "add", "parameters": {"a": 1}}; {"name": "add", "parameters": {"a": 1}}')
    assert Llama3JsonCodec(python_tag=True).encode([call]).startswith("<|python_tag|>{")
    assert PythonicCodec().encode([call, ExtractedCall("g", {"s": "x", "t": True})]) == (
        "[add(a=1), g(s='x', t=True)]")


def test_mistral_ids_and_spacing():
    codec = MistralCodec()
    text = '[TOOL_CALLS][{"name": "f", "arguments": {}, "id": "abcDEF123"}]'
    assert codec.decode(text) == [ExtractedCall("f", {}, "abcDEF123")]
    with_id = ExtractedCall("f", {"x": 1}, "abcDEF123")
    assert codec.encode([with_id]).endswith('"id": "abcDEF123"}]')
    assert codec.decode(codec.encode([with_id])) == [with_id]
    assert codec.decode('[TOOL_CALLS] {"name": "f", "arguments": {"a": 1}}') == [
        ExtractedCall("f", {"a": 1})]


def test_mistral_v11_call_id_and_dropped_args_token():
    codec = MistralV11Codec()
    assert codec.decode('[TOOL_CALLS]f[CALL_ID]abcDEF123[ARGS]{"a": 1}') == [
        ExtractedCall("f", {"a": 1}, "abcDEF123")]
    assert codec.encode([ExtractedCall("f", {}, "abcDEF123")]) == (
        "[TOOL_CALLS]f[CALL_ID]abcDEF123[ARGS]{}")
    assert codec.decode('[TOOL_CALLS]f{"a": 1}') == [ExtractedCall("f", {"a": 1})]


def test_llama_python_tag_and_separators_leave_the_content():
    codec = Llama3JsonCodec()
    text = 'Sure. <|python_tag|>{"name": "f", "parameters": {}}; {"name": "g", "arguments": {}}'
    assert codec.decode(text) == [ExtractedCall("f", {}), ExtractedCall("g", {})]
    assert codec.content(text) == "Sure. "


def test_pythonic_values_names_and_llama4_wrapping():
    codec = PythonicCodec()
    text = ("<|python_start|>[ns.get_user(user_id=7890, special='black', n=-1.5, "
            "tags=['a', None], opts={'k': False})]<|python_end|>")
    assert codec.decode(text) == [ExtractedCall(
        "ns.get_user", {"user_id": 7890, "special": "black", "n": -1.5, "tags": ["a", None],
                        "opts": {"k": False}})]
    assert codec.content(text) == ""
    assert codec.decode("[get_weather()]") == [ExtractedCall("get_weather", {})]


# -- a backslash Python keeps with a warning ----------------------------------------------
@pytest.mark.parametrize("warnings_are", ["default", "error"])
def test_a_backslash_that_starts_no_escape_reads_the_same_whatever_the_warning_filters(warnings_are):
    """'C:\\pp': Python keeps the backslash with a warning, and under `-W error` (pytest's
    `filterwarnings = error`, say) reads the same literal as a syntax error. The reading may not
    hang on the process's filters, nor warn: a raw string is left as it is, and an error call
    keeps the model's own text."""
    text = r"[f(path='C:\pp', rx='\d+', raw=r'C:\pp', nl='a\nb'), g(1, path='C:\pp')]"
    with warnings.catch_warnings():
        warnings.simplefilter(warnings_are)
        calls = PythonicCodec().decode(text)
    assert calls[0] == ExtractedCall("f", {"path": "C:\\pp", "rx": "\\d+", "raw": "C:\\pp",
                                           "nl": "a\nb"})
    assert calls[1].error == "tool call arguments must be key=value"
    assert calls[1].raw_arguments == r"g(1, path='C:\pp')"


# -- malformed -> error calls --------------------------------------------------------------
@pytest.mark.parametrize("codec, text, name", [
    (MistralCodec(), '[TOOL_CALLS] [{"name": "f", "arguments": {"a": }}]', "f"),
    (MistralCodec(), '[TOOL_CALLS] [{"name": "f", "arguments": [1]}]', "f"),
    (MistralCodec(), '[TOOL_CALLS] [{"name": "f", "arguments": {"a": "b', "f"),
    (MistralV11Codec(), "[TOOL_CALLS]f[ARGS]not json", "f"),
    (MistralV11Codec(), '[TOOL_CALLS]f[ARGS]{"a": ', "f"),
    (Llama3JsonCodec(), '{"name": "f", "parameters": {"a": }}', "f"),
    (Llama3JsonCodec(), '<|python_tag|>{"name": "f", "parameters": 3}', "f"),
    (PythonicCodec(), "[f(1, 2)]", "f"),
    (PythonicCodec(), "[f(a=b)]", "f"),
    (PythonicCodec(), "[f(a=1, a=2)]", "f"),
    (PythonicCodec(), "[f(a={1, 2})]", "f"),
    (PythonicCodec(), "[f(a='unterminated", "f"),
])
def test_malformed_is_an_error_call(codec, text, name):
    found = codec.decode(text)
    assert len(found) == 1 and found[0].error is not None and found[0].name == name
    assert found[0].arguments == {}


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("raw", ['{"city": ', "not json", "[1, 2]", '"text"', "null", "{'a': 1}"])
def test_an_error_call_is_written_back_as_an_error_call(codec, raw):
    found = codec.decode("Hi " + codec.encode([ExtractedCall("f", {}, None, "bad", raw)]))
    assert len(found) == 1 and found[0].error is not None


# -- prose decoys ---------------------------------------------------------------------------
@pytest.mark.parametrize("codec, text", [
    (MistralCodec(), "The [TOOL_CALLS] token opens calls."),
    (MistralV11Codec(), "The [TOOL_CALLS] token opens calls [ARGS] later."),
    (Llama3JsonCodec(), 'Data: {"name": "Bob", "age": 3} and {"name": "x", "parameters": 1}'),
    (Llama3JsonCodec(), '{"outer": {"name": "f", "parameters": {}}}'),
    (PythonicCodec(), "A list [1, 2], a link [x](y), a call f(a=1) and [a, b(c)]"),
])
def test_prose_is_no_call(codec, text):
    assert codec.decode(text) == []
    assert codec.content(text) == text


# -- mid-stream names ----------------------------------------------------------------------
@pytest.mark.parametrize("codec, text, name", [
    (MistralCodec(), '[TOOL_CALLS] [{"name": "f", "arguments": {"a": "', "f"),
    (MistralCodec(), '[TOOL_CALLS] [{"name": "f', None),
    (MistralV11Codec(), "[TOOL_CALLS]f[ARGS]{", "f"),
    (MistralV11Codec(), "[TOOL_CALLS]fo", None),
    (Llama3JsonCodec(), '{"name": "f", "para', "f"),
    (PythonicCodec(), "[f(a=1), g(b='", "g"),
    (PythonicCodec(), "[f(a=1), g", "f"),
])
def test_peek_name(codec, text, name):
    assert codec.peek_name(text) == name


def test_results_are_written_as_the_tool_turn():
    records = [ToolCallRecord("f", {}, {"t": 20}, None, "abcDEF123"), ToolCallRecord("g", {}, None, "boom")]
    assert MistralCodec().encode_results(records) == (
        '[TOOL_RESULTS] {"content": {"t": 20}, "call_id": "abcDEF123"}[/TOOL_RESULTS]'
        '[TOOL_RESULTS] {"name": "g", "content": {"error": "boom"}}[/TOOL_RESULTS]')
    assert MistralV11Codec().encode_results(records[:1]) == (
        '[TOOL_RESULTS]abcDEF123[TOOL_CONTENT]{"t": 20}[/TOOL_RESULTS]')
    assert '"output": {"t": 20}' in Llama3JsonCodec().encode_results(records)


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_linear_on_hostile_input(codec, linear):
    for unit in ("[TOOL_CALLS][", '{"name": "', "[f(a='", "[TOOL_CALLS]f[ARGS]{", "{[(", "[f("):
        linear(lambda n: (codec.decode(unit * n), codec.content(unit * n)), 20000)


# -- real outputs ---------------------------------------------------------------------------
REAL = {
    "mistral-pre-v11-arguments-before-name.txt": (
        MistralCodec(), [ExtractedCall("get_age", {"name": "John Doe"})], ""),
    "mistral-pre-v11-content-before-marker.txt": (
        MistralCodec(), [ExtractedCall("add", {"a": 1, "b": 2})], "Hello"),
    "mistral-pre-v11-parallel-array.txt": (MistralCodec(), [
        ExtractedCall("add", {"a": 3.5, "b": 4}),
        ExtractedCall("get_current_weather", {"city": "San Francisco", "state": "CA",
                                              "unit": "celsius"})], ""),
    "mistral-v11-name-then-args-repeated-marker.txt": (MistralV11Codec(), [
        ExtractedCall("add", {"a": 3.5, "b": 4}), ExtractedCall("multiply", {"a": 3, "b": 6})], ""),
    "llama3-json-parameters-semicolon-parallel-with-prose.txt": (Llama3JsonCodec(), [
        ExtractedCall("searchTool", {"query": "test1"}), ExtractedCall("getOpenIncidentsTool", {}),
        ExtractedCall("searchTool", {"query": "test2"})],
        "Here are the results:  Would you like to know more?"),
}


@pytest.mark.skipif(not TEXTS.is_dir(), reason=f"no {TEXTS} beside this clone")
@pytest.mark.parametrize("file", sorted(REAL))
def test_real_outputs(file):
    codec, calls, content = REAL[file]
    text = (TEXTS / file).read_text("utf-8").rstrip("\n")
    assert codec.decode(text) == calls
    assert codec.content(text).strip() == content

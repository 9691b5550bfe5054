"""The special-token format codecs: DeepSeek-V3, DeepSeek-V3.1 and Kimi K2."""
from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.formats_special import DeepSeekV3Codec, DeepSeekV31Codec, KimiK2Codec

CODECS = [DeepSeekV3Codec(), DeepSeekV31Codec(), KimiK2Codec()]
ids = [codec.name for codec in CODECS]
KIMI = CODECS[2]

# The markers, spelled out here (not read from the module) so that a typo there fails.
DS_CALLS_BEGIN = "<\uff5ctool\u2581calls\u2581begin\uff5c>"
DS_CALLS_END = "<\uff5ctool\u2581calls\u2581end\uff5c>"
DS_CALL_BEGIN = "<\uff5ctool\u2581call\u2581begin\uff5c>"
DS_CALL_END = "<\uff5ctool\u2581call\u2581end\uff5c>"
DS_SEP = "<\uff5ctool\u2581sep\uff5c>"
KIMI_MARKERS = ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
                "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>")
DS_MARKERS = (DS_CALLS_BEGIN, DS_CALLS_END, DS_CALL_BEGIN, DS_CALL_END, DS_SEP)
MARKERS = DS_MARKERS + KIMI_MARKERS

# -- generators ----------------------------------------------------------------------------
TRICKY = MARKERS + ("```", "```json\n", "\n```", '"', "\\", "\\n", "{", "}", "functions.x:0",
                    "é", "😀", "\u2028", "\x00", "null", "")
_chars = st.characters(exclude_categories=("Cs",))
names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}", fullmatch=True)
leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(TRICKY), st.text(_chars, max_size=20),
)
keys = st.one_of(st.sampled_from(TRICKY), st.text(_chars, max_size=8))
values = st.recursive(
    leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                    st.dictionaries(keys, inner, max_size=3)),
    max_leaves=10,
)
arguments = st.dictionaries(keys, values, max_size=4)
call_ids = st.one_of(st.none(), st.text(_chars, max_size=10),
                     st.integers(0, 99).map(lambda i: f"functions.x:{i}"))
calls_lists = st.lists(st.builds(ExtractedCall, names, arguments, call_ids), min_size=1,
                       max_size=3)
DECOYS = ("{", "}", '{"name": "x"}', "```json\n{}\n```", "function", "functions.f:0", "\n",
          " ", "<|im_end|>", "<\uff5cend\u2581of\u2581sentence\uff5c>", "<|tool_call_end|>",
          DS_CALL_END, DS_SEP, "<|tool_call_argument_begin|>{}")
prose = st.lists(
    st.one_of(st.sampled_from(DECOYS),
              st.text(st.characters(exclude_categories=("Cs",), exclude_characters="<"),
                      max_size=12)),
    max_size=5,
).map("".join)


def expected(codec, calls):
    """The calls as decoded: Kimi K2 gives every call its canonical id; DeepSeek has none."""
    if codec is KIMI:
        return [dataclasses.replace(call, id=KimiK2Codec.canonical_id(call, i))
                for i, call in enumerate(calls)]
    return [dataclasses.replace(call, id=None) for call in calls]


# -- round trip ----------------------------------------------------------------------------
@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(calls=calls_lists, before=prose)
def test_decode_of_encode_is_the_calls_after_any_prose(codec, calls, before):
    text = before + codec.encode(calls)
    assert codec.decode(text) == expected(codec, calls)
    assert codec.content(text) == before
    assert codec.peek_name(text) == calls[-1].name


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(calls=calls_lists)
def test_every_prefix_names_only_a_written_call_and_never_raises(codec, calls):
    text = codec.encode(calls)
    written = {call.name for call in calls}
    for k in range(0, len(text) + 1, max(1, len(text) // 40)):
        assert codec.peek_name(text[:k]) in written | {None}
        codec.decode(text[:k])
        codec.content(text[:k])


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_the_name_is_known_once_it_is_complete(codec):
    text = codec.encode([ExtractedCall("get_weather", {"city": "Oslo"})])
    # the name is complete at the newline (V3), the separator (V3.1), or `:0` + argument
    # marker (Kimi: the head is an id)
    after = {"deepseek-v3": "get_weather\n", "deepseek-v3.1": DS_SEP,
             "kimi-k2": KIMI_MARKERS[3]}[codec.name]
    complete = text.index(after) + len(after)
    for k in range(len(text) + 1):
        assert codec.peek_name(text[:k]) == ("get_weather" if k >= complete else None), k


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_markers_inside_argument_values_do_not_open_or_close_calls(codec):
    inner = "".join(c.encode([ExtractedCall("evil", {})]) for c in CODECS)
    calls = [ExtractedCall("good", {"payload": inner, inner: [inner, {"k": inner}]})]
    text = codec.encode(calls)
    assert codec.decode(text) == expected(codec, calls)
    for k in range(len(text) + 1):
        assert codec.peek_name(text[:k]) in (None, "good"), k


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_an_error_call_writes_its_raw_text_and_reads_it_back(codec):
    call = ExtractedCall("broken", {}, None, "bad arguments", '{"a": 1')
    (decoded,) = codec.decode(codec.encode([call]))
    assert (decoded.name, decoded.arguments, decoded.raw_arguments) == ("broken", {},
                                                                         '{"a": 1')
    assert decoded.error


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("args, why", [('{"a": 1', "not valid JSON"), ("[1, 2]", "got list"),
                                       ('"text"', "got str"), ("{} trailing", "not valid")])
def test_arguments_that_are_no_object_make_an_error_call(codec, args, why):
    written = codec.encode([ExtractedCall("f", {}, None, "x", args)])
    (call,) = codec.decode(written)
    assert call.name == "f" and call.arguments == {} and why in call.error
    assert call.raw_arguments == args


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_a_call_cut_short_is_an_error_call_that_does_not_swallow_the_next(codec):
    whole = codec.encode([ExtractedCall("a", {"x": "long value"}), ExtractedCall("b", {"y": 2})])
    cut_at = whole.index("long") + 2
    second = whole.index(DS_CALL_BEGIN if codec is not KIMI else KIMI_MARKERS[2], cut_at)
    text = whole[:cut_at] + whole[second:]
    first, last = codec.decode(text)
    assert first.name == "a" and first.error and first.arguments == {}
    assert (last.name, last.arguments, last.error) == ("b", {"y": 2}, None)
    assert last.id == ("functions.b:1" if codec is KIMI else None)
    assert codec.decode(whole[:cut_at])[0].error  # cut at the end of the text too


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("decoy", DECOYS + (
    "a {\"tool\": 1} b", DS_CALL_BEGIN + " is a DeepSeek token " + DS_SEP + "!",
    KIMI_MARKERS[2] + " is Kimi's token, then " + KIMI_MARKERS[3] + " x"))
def test_prose_holds_no_call(codec, decoy):
    assert codec.decode(decoy) == []
    assert codec.peek_name(decoy) is None


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(text=st.text())
def test_decode_never_raises_on_any_text(codec, text):
    assert isinstance(codec.decode(text), list)
    assert isinstance(codec.content(text), str)
    codec.peek_name(text)


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(text=st.lists(st.sampled_from(MARKERS + ("f", "functions.f:0", "\n", "```json", "{",
                                                "}", '"', "[", "1")),
                     max_size=30).map("".join))
def test_decode_never_raises_on_marker_soup(codec, text):
    for call in codec.decode(text):
        assert isinstance(call.arguments, dict)
        assert call.error is None or call.arguments == {}


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("unit", [DS_CALL_BEGIN + "function" + DS_SEP + "f\n{",
                                  KIMI_MARKERS[2] + "functions.f:0" + KIMI_MARKERS[3] + "[",
                                  DS_CALL_BEGIN, KIMI_MARKERS[2], "{" * 50])
def test_decoding_is_linear_on_hostile_repetition(codec, unit, linear):
    linear(lambda n: (codec.decode(unit * n), codec.content(unit * n), codec.peek_name(unit * n)),
           20000)


def test_the_codecs_declare_their_format():
    v3, v31, kimi = CODECS
    assert (v3.name, v31.name, kimi.name) == ("deepseek-v3", "deepseek-v3.1", "kimi-k2")
    assert set(v3.special_tokens) == set(v31.special_tokens) == set(DS_MARKERS)
    assert set(kimi.special_tokens) == set(KIMI_MARKERS)
    for codec in CODECS:
        assert codec.prose_between is False and codec.prose_after is False
        assert "huggingface.co" in codec.source
        assert codec.encode([]) == ""


# -- DeepSeek ------------------------------------------------------------------------------
def test_deepseek_v3_writes_and_reads_the_template_layout():
    calls = [ExtractedCall("get_weather", {"city": "Paris"}), ExtractedCall("get_time", {})]
    text = DeepSeekV3Codec().encode(calls)
    assert text == (DS_CALLS_BEGIN + DS_CALL_BEGIN + "function" + DS_SEP + "get_weather\n"
                    '```json\n{"city": "Paris"}\n```' + DS_CALL_END + "\n" + DS_CALL_BEGIN
                    + "function" + DS_SEP + "get_time\n```json\n{}\n```" + DS_CALL_END
                    + DS_CALLS_END)
    said = "Let me look that up." + text + "<\uff5cend\u2581of\u2581sentence\uff5c>"
    assert DeepSeekV3Codec().decode(said) == calls
    assert DeepSeekV3Codec().content(said) == (
        "Let me look that up.<\uff5cend\u2581of\u2581sentence\uff5c>")


def test_deepseek_v3_reads_arguments_without_the_fence():
    text = (DS_CALLS_BEGIN + DS_CALL_BEGIN + "function" + DS_SEP + "f\n{\"a\": [1]}"
            + DS_CALL_END + DS_CALLS_END)
    assert DeepSeekV3Codec().decode(text) == [ExtractedCall("f", {"a": [1]})]


def test_deepseek_v31_writes_and_reads_the_template_layout():
    calls = [ExtractedCall("search", {"q": "cats"}), ExtractedCall("search", {"q": "dogs"})]
    text = DeepSeekV31Codec().encode(calls)
    assert text == (DS_CALLS_BEGIN + DS_CALL_BEGIN + "search" + DS_SEP + '{"q": "cats"}'
                    + DS_CALL_END + DS_CALL_BEGIN + "search" + DS_SEP + '{"q": "dogs"}'
                    + DS_CALL_END + DS_CALLS_END)
    assert DeepSeekV31Codec().decode(text) == calls
    # V3 would read V3.1's head as the call type and find no name line: an error call
    assert all(call.error for call in DeepSeekV3Codec().decode(text))


def test_deepseek_results_are_tool_outputs():
    records = [ToolCallRecord("f", {}, result={"t": 1}), ToolCallRecord("g", {}, error="no")]
    out_begin = "<\uff5ctool\u2581output\u2581begin\uff5c>"
    out_end = "<\uff5ctool\u2581output\u2581end\uff5c>"
    assert DeepSeekV3Codec().encode_results(records) == (
        "<\uff5ctool\u2581outputs\u2581begin\uff5c>" + out_begin + '{"t": 1}' + out_end + "\n"
        + out_begin + "Error: no" + out_end + "<\uff5ctool\u2581outputs\u2581end\uff5c>")
    assert DeepSeekV31Codec().encode_results(records) == (
        out_begin + '{"t": 1}' + out_end + out_begin + "Error: no" + out_end)


# -- Kimi K2 -------------------------------------------------------------------------------
def test_kimi_reads_the_documented_layout_with_newlines_and_ids():
    # The layout of Kimi K2's tool-call guidance, one marker per line.
    text = ("I'll check.<|tool_calls_section_begin|>\n<|tool_call_begin|>\n"
            "functions.get_weather:0<|tool_call_argument_begin|>\n{\"location\": \"Tokyo\"}\n"
            "<|tool_call_end|>\n<|tool_call_begin|>functions.get_time:1"
            "<|tool_call_argument_begin|>{}<|tool_call_end|>\n<|tool_calls_section_end|>")
    assert KIMI.decode(text) == [
        ExtractedCall("get_weather", {"location": "Tokyo"}, "functions.get_weather:0"),
        ExtractedCall("get_time", {}, "functions.get_time:1")]
    assert KIMI.content(text) == "I'll check."


def test_kimi_keeps_an_id_of_its_shape_and_canonicalizes_any_other():
    calls = [ExtractedCall("a", {}, "functions.a:7"), ExtractedCall("b", {}, "call_123"),
             ExtractedCall("c", {}, None), ExtractedCall("d.e", {}, "functions.x:3")]
    assert [call.id for call in KIMI.decode(KIMI.encode(calls))] == [
        "functions.a:7", "functions.b:1", "functions.c:2", "functions.d.e:3"]
    assert KimiK2Codec.canonical_id(ExtractedCall("c", {}), 5) == "functions.c:5"


def test_kimi_reads_a_head_without_the_functions_prefix():
    text = "<|tool_call_begin|>get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|>"
    assert KIMI.decode(text) == [ExtractedCall("get_weather", {}, "get_weather:0")]


def test_kimi_results_answer_their_ids():
    records = [ToolCallRecord("f", {}, result="sunny", tool_call_id="functions.f:0"),
               ToolCallRecord("g", {}, result=[1])]
    assert KIMI.encode_results(records) == (
        "## Return of functions.f:0\nsunny\n\n## Return of functions.g:1\n[1]")


def test_can_carry_refuses_error_calls_and_names_a_head_cannot_hold():
    for codec in CODECS:
        assert codec.can_carry(ExtractedCall("get.weather-v2", {"s": "1", "x": " "}))
        assert not codec.can_carry(ExtractedCall("f", {}, None, "bad", "{"))
        assert not codec.can_carry(ExtractedCall("two words", {}))
    assert not KIMI.can_carry(ExtractedCall("ns:tool", {}))

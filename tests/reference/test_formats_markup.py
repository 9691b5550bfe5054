"""The XML-like format codecs: Qwen3-Coder (`<function=...>`) and GLM-4.5 (`<arg_key>`)."""
from __future__ import annotations


import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.formats_markup import Glm45Codec, Qwen3CoderCodec

CODECS = [Qwen3CoderCodec(), Glm45Codec()]
ids = [codec.name for codec in CODECS]

# -- generators ----------------------------------------------------------------------------
MARKERS = ("<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=",
           "</parameter>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>")
TRICKY = MARKERS + ("1", "-2.5", "true", "True", "None", "null", '"1"', "[1]", "{}", " x",
                    "x ", "\nx", "x\n", "", "NaN", "Infinity", "{", '"', "\\", "\\n", ">",
                    "<", "a>b", "é", "😀", "\u2028", "\x00", "1e400", "0" * 30)
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
calls_lists = st.lists(st.builds(ExtractedCall, names, arguments), min_size=1, max_size=3)
# Prose that holds no call for either codec, full of what trips naive parsers.
DECOYS = ("<tool_call> ", "</tool_call>", "<tool_call> is a tag", "</function>", "<function",
          "</parameter>", "<arg_key>x</arg_key>", "<arg_value>", "{", "}", '{"name": "x"}',
          "```", "\n", " ", "é", "<b>bold</b>", "<tool_call><b>")
prose = st.lists(
    st.one_of(st.sampled_from(DECOYS),
              st.text(st.characters(exclude_categories=("Cs",), exclude_characters="<"),
                      max_size=12)),
    max_size=5,
).map("".join)


# -- round trip ----------------------------------------------------------------------------
@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(calls=calls_lists, before=prose)
def test_decode_of_encode_is_the_calls_after_any_prose(codec, calls, before):
    text = before + codec.encode(calls)
    assert codec.decode(text) == calls
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
    complete = text.index("get_weather") + len("get_weather") + 1  # its `>` or newline
    for k in range(len(text) + 1):
        assert codec.peek_name(text[:k]) == ("get_weather" if k >= complete else None), k
    second = text + "\n" + codec.encode([ExtractedCall("search", {})])
    cut = second.rindex("search")
    assert codec.peek_name(second[:cut + 3]) == "get_weather"  # new name not complete yet
    assert codec.peek_name(second) == "search"


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_a_string_that_looks_like_another_value_is_quoted_and_read_back(codec):
    calls = [ExtractedCall("f", {"s": "1", "n": 1, "b": False, "sb": "false", "null": None,
                                 "snull": "null", "list": [1, "a"], "slist": "[1, \"a\"]",
                                 "edge": " padded ", "plain": "hello world"})]
    text = codec.encode(calls)
    assert codec.decode(text) == calls
    assert "hello world" in text and '"hello world"' not in text  # plain strings stay raw
    assert '"1"' in text and '" padded "' in text


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_markers_inside_values_and_names_do_not_open_or_close_calls(codec):
    inner = Qwen3CoderCodec().encode([ExtractedCall("evil", {"a": 1})]) + Glm45Codec().encode(
        [ExtractedCall("evil", {})])
    calls = [ExtractedCall("good", {"payload": inner, inner: {"deep": [inner]},
                                    "</parameter>": "</arg_value>"})]
    text = codec.encode(calls)
    assert codec.decode(text) == calls
    for k in range(len(text) + 1):
        assert codec.peek_name(text[:k]) in (None, "good"), k


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_an_error_call_writes_its_raw_text_and_reads_it_back(codec):
    call = ExtractedCall("broken", {}, None, "bad arguments", "{not json")
    (decoded,) = codec.decode(codec.encode([call]))
    assert (decoded.name, decoded.arguments, decoded.raw_arguments) == ("broken", {},
                                                                         "{not json")
    assert decoded.error


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("decoy", DECOYS + (
    "I will call <tool_call> now", "<tool_call>\n\n", "<tool_call>{\"name\": \"x\"}</tool_call>",
    "use <tool_call>the search tool</tool_call>", "<tool_call><b>x</b></tool_call>"))
def test_prose_that_mentions_a_tag_holds_no_call(codec, decoy):
    assert codec.decode(decoy) == []
    assert codec.content(decoy) == decoy
    assert codec.peek_name(decoy) is None


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(text=st.text())
def test_decode_never_raises_on_any_text(codec, text):
    assert isinstance(codec.decode(text), list)
    assert isinstance(codec.content(text), str)
    codec.peek_name(text)


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@given(text=st.lists(st.sampled_from(MARKERS + ("x", "\n", " ", "1", "{", "\"", ">")),
                     max_size=30).map("".join))
def test_decode_never_raises_on_marker_soup(codec, text):
    for call in codec.decode(text):
        assert isinstance(call.arguments, dict)
        assert call.error is None or call.arguments == {}


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("unit", ["<tool_call>\n<function=f>\n<parameter=a>\n",
                                  "<tool_call>f\n<arg_key>a</arg_key><arg_value>",
                                  "<tool_call>", "</parameter>", "<function=", "<parameter="])
def test_decoding_is_linear_on_hostile_repetition(codec, unit, linear):
    linear(lambda n: (codec.decode(unit * n), codec.content(unit * n), codec.peek_name(unit * n)),
           20000)


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_decode_of_a_non_string_is_no_call(codec):
    assert codec.decode(None) == [] and codec.content(None) == ""


def test_the_codecs_declare_their_format():
    qwen, glm = CODECS
    assert (qwen.name, glm.name) == ("qwen3-coder", "glm-4.5")
    assert qwen.special_tokens == ("<tool_call>", "</tool_call>")
    assert set(glm.special_tokens) == {"<tool_call>", "</tool_call>", "<arg_key>",
                                       "</arg_key>", "<arg_value>", "</arg_value>"}
    for codec in CODECS:
        assert codec.prose_between is False and codec.prose_after is False
        assert "huggingface.co" in codec.source


# -- Qwen3-Coder ---------------------------------------------------------------------------
def test_qwen_reads_the_template_layout_with_content_and_two_calls():
    # As Qwen3-Coder's chat template renders an assistant turn with content and two calls.
    text = ("I'll check both cities.\n\n<tool_call>\n<function=get_weather>\n"
            "<parameter=city>\nNew York\n</parameter>\n<parameter=days>\n3\n</parameter>\n"
            "<parameter=units>\n{\"temp\": \"C\"}\n</parameter>\n</function>\n</tool_call>\n"
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n"
            "<parameter=detailed>\nTrue\n</parameter>\n</function>\n</tool_call>")
    codec = Qwen3CoderCodec()
    assert codec.decode(text) == [
        ExtractedCall("get_weather", {"city": "New York", "days": 3, "units": {"temp": "C"}}),
        ExtractedCall("get_weather", {"city": "Oslo", "detailed": True}),
    ]
    assert codec.content(text) == "I'll check both cities.\n\n"


def test_qwen_keeps_multiline_code_values_raw():
    code = "def f(x):\n    return x < 1 and x > -1\n\n\nprint(f(0))"
    call = ExtractedCall("write_file", {"path": "a.py", "content": code})
    text = Qwen3CoderCodec().encode([call])
    assert f"<parameter=content>\n{code}\n</parameter>" in text
    assert Qwen3CoderCodec().decode(text) == [call]


def test_qwen_reads_values_written_without_the_framing_newlines():
    text = "<tool_call><function=f><parameter=a>x y</parameter><parameter=b>2</parameter>" \
           "</function></tool_call>"
    assert Qwen3CoderCodec().decode(text) == [ExtractedCall("f", {"a": "x y", "b": 2})]


@pytest.mark.parametrize("text, name, why", [
    ("<tool_call>\n<function=f>\n<parameter=a>\n1\n", "f", "cut inside a parameter value"),
    ("<tool_call>\n<function=f>\n<parameter=a", "f", "cut inside a parameter name"),
    ("<tool_call>\n<function=f>\nhello\n</function>\n</tool_call>", "f", "no <parameter"),
    ("<tool_call>\n<function=f>\n</function>\njunk</tool_call>", "f", "after </function>"),
    ("<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n", "f", "unterminated"),
    ("<tool_call>\n<function=get_wea", "", "cut before its function name ends"),
])
def test_qwen_broken_blocks_are_error_calls(text, name, why):
    (call,) = Qwen3CoderCodec().decode(text)
    assert (call.name, call.arguments, call.id) == (name, {}, None)
    assert why in call.error and call.raw_arguments is not None


def test_qwen_a_broken_call_does_not_swallow_the_next():
    text = ("<tool_call>\n<function=a>\n<parameter=x>\n1\n"
            "<tool_call>\n<function=b>\n<parameter=y>\n2\n</parameter>\n</function>\n"
            "</tool_call>")
    first, second = Qwen3CoderCodec().decode(text)
    assert first.name == "a" and first.error
    assert second == ExtractedCall("b", {"y": 2})


def test_qwen_results_are_tool_response_blocks():
    records = [ToolCallRecord("f", {}, result={"t": 21}), ToolCallRecord("g", {}, error="boom"),
               ToolCallRecord("h", {}, result="plain")]
    assert Qwen3CoderCodec().encode_results(records) == (
        '<tool_response>\n{"t": 21}\n</tool_response>\n'
        "<tool_response>\nError: boom\n</tool_response>\n"
        "<tool_response>\nplain\n</tool_response>")


# -- GLM-4.5 -------------------------------------------------------------------------------
def test_glm_reads_the_template_layout_after_thinking():
    # As GLM-4.5's template renders it (and as GLM-4.6 answers, thinking first).
    text = ("<think>Let me check.</think>\n<tool_call>get_weather\n<arg_key>location</arg_key>\n"
            "<arg_value>Paris</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</arg_value>\n"
            "</tool_call>\n<tool_call>get_time\n</tool_call>")
    codec = Glm45Codec()
    assert codec.decode(text) == [ExtractedCall("get_weather", {"location": "Paris", "days": 2}),
                                  ExtractedCall("get_time", {})]
    assert codec.content(text) == "<think>Let me check.</think>\n"


def test_glm_reads_a_call_on_one_line_with_spaces():
    # The tags detokenized with spaces instead of newlines, as llama.cpp users report it.
    text = ("Let me search: <tool_call>ls <arg_key>dirPath</arg_key> "
            "<arg_value>backend</arg_value> </tool_call>")
    codec = Glm45Codec()
    assert codec.decode(text) == [ExtractedCall("ls", {"dirPath": "backend"})]
    assert codec.content(text) == "Let me search: "


@pytest.mark.parametrize("text, why", [
    ("<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1", "cut inside an argument value"),
    ("<tool_call>f\n<arg_key>a", "cut inside an argument name"),
    ("<tool_call>f\n<arg_key>a</arg_key>\n</tool_call>", "without <arg_value>"),
    ("<tool_call>f\n{\"a\": 1}\n</tool_call>", "no <arg_key>"),
])
def test_glm_broken_blocks_are_error_calls(text, why):
    (call,) = Glm45Codec().decode(text)
    assert (call.name, call.arguments) == ("f", {})
    assert why in call.error and call.raw_arguments is not None


def test_glm_a_call_left_open_at_the_end_is_read_when_complete():
    text = "<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>x</arg_value>\n"
    assert Glm45Codec().decode(text) == [ExtractedCall("f", {"a": "x"})]


def test_glm_results_are_tool_response_blocks():
    records = [ToolCallRecord("f", {}, result=[1, 2])]
    assert Glm45Codec().encode_results(records) == "<tool_response>\n[1, 2]\n</tool_response>"


# -- what the model can write --------------------------------------------------------------
@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("arguments, carried", [
    ({"city": "Paris", "n": 1, "flag": True, "nested": {"s": "1", "t": "</parameter>"}}, True),
    ({"s": "1"}, False),  # an engine that knows the schema reads `"1"` with its quotes
    ({"s": " padded"}, False),
    ({"s": "a </arg_value> b </parameter>"}, False),
    ({"\"quoted\"": 1}, False),
    ({}, True),
])
def test_can_carry_only_what_the_template_writes_as_is(codec, arguments, carried):
    assert codec.can_carry(ExtractedCall("f", arguments)) is carried


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_can_carry_refuses_error_calls_and_names_that_are_no_word(codec):
    assert not codec.can_carry(ExtractedCall("f", {}, None, "bad", "{"))
    assert not codec.can_carry(ExtractedCall("two words", {}))
    assert not codec.can_carry(ExtractedCall("a>b", {}))
    assert codec.can_carry(ExtractedCall("get_weather.v2", {}))


def test_qwen3_coder_reads_a_first_call_written_without_its_opening_tag():
    """`<function=...>...</tool_call>` with no `<tool_call>` before it (llama.cpp's
    Qwen3-Coder tests: "some models skip the opening <tool_call>"). Before: prose."""
    codec = Qwen3CoderCodec()
    call = "<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    second = "\n<tool_call>\n<function=g>\n</function>\n</tool_call>"
    assert codec.decode("Let me call it.\n" + call + second) == [
        ExtractedCall("f", {"a": 1}), ExtractedCall("g", {})]
    assert codec.content("Let me call it.\n" + call + second) == "Let me call it.\n"
    # without the closing special token it stays prose, as does a later opening-less call
    assert codec.decode("write <function=f> to call") == []
    assert codec.decode(second + "\n" + call) == [ExtractedCall("g", {})]

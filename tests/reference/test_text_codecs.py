"""The text codecs: JSON (`{"tool": ..., "arguments": ...}`) and Hermes (`<tool_call>`)."""
from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall, ToolCallRecord
from mcs_reference.text_codecs import HermesCodec, JsonCodec, NameTracker

CODECS = [JsonCodec(), HermesCodec()]
ids = [codec.name for codec in CODECS]

# -- generators ----------------------------------------------------------------------------
TRICKY = ("</tool_call>", "<tool_call>", "{", "}", "```", "```json\n", '"', "\\", "\\n",
          "\\u00e9", '{"tool": "x", "arguments": {}}', "'", "\u2028", "\x00", "😀", "é", "null")
_chars = st.characters(exclude_categories=("Cs",))
# Names the formats allow (one word, no control character, no tag): any other is an error call.
names = st.one_of(
    st.sampled_from(("get_weather", "search", "x", "lookup-user")),
    st.text(_chars, min_size=1, max_size=24).filter(CODECS[1].allows_name),
)
leaves = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(TRICKY), st.text(_chars, max_size=20),
)
keys = st.one_of(st.sampled_from(("tool", "name", "arguments", "}", "{", "a b", "é")),
                 st.text(_chars, max_size=8))
values = st.recursive(
    leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                    st.dictionaries(keys, inner, max_size=3)),
    max_leaves=10,
)
arguments = st.dictionaries(keys, values, max_size=4)
calls_lists = st.lists(st.builds(ExtractedCall, names, arguments), min_size=1, max_size=3)

# Prose that encodes no call for either codec, but is full of what trips naive parsers.
DECOYS = ("{", "}", "{}", '{"a": 1}', '{"name": "x"}', '{"tool": 1}', '{"arguments": ',
          "[1, 2]", "```", "```json\n", "\n```\n", "<b>bold</b>", "</tool_call>", "<tool>",
          "<|im_end|>", "Here you go:", " ", "\n", '"', "'", "\\", "é", "😀", "{\"a\": ")
prose = st.lists(
    st.one_of(st.sampled_from(DECOYS), st.text(st.characters(
        exclude_categories=("Cs",), exclude_characters='{}"<\\'), max_size=12)),
    max_size=5,
).map("".join)
separators = st.sampled_from(("", " ", "\n", "\n\n"))


@st.composite
def cut(draw, text: str) -> list[str]:
    """`text` cut at a few drawn offsets (pieces may be empty)."""
    points = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8)))
    pieces, start = [], 0
    for point in points:
        pieces.append(text[start:point])
        start = point
    pieces.append(text[start:])
    return pieces


def written(codec, calls, before: str, lead: str, tail: str, after: str) -> str:
    return before + lead + codec.encode(calls) + tail + after


def streamed_name(codec, pieces: list[str]) -> str | None:
    tracker = codec.tracker()
    for piece in pieces:
        tracker.feed(piece)
    return tracker.name


# -- round trip ----------------------------------------------------------------------------
@pytest.mark.parametrize("codec", CODECS, ids=ids)
@settings(max_examples=150, deadline=None)
@given(calls=calls_lists, data=st.data())
def test_decode_of_encode_is_the_calls_inside_any_prose(codec, calls, data):
    before, after = data.draw(prose), data.draw(prose)
    text = written(codec, calls, before, data.draw(separators), data.draw(separators), after)
    assert codec.decode(text) == calls
    # The name tracker, fed the same text cut anywhere, names the last call.
    assert codec.peek_name(text) == calls[-1].name
    assert streamed_name(codec, data.draw(cut(text))) == calls[-1].name


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@settings(max_examples=60, deadline=None)
@given(calls=calls_lists, ids_=st.lists(st.text(_chars, min_size=1, max_size=10), min_size=3,
                                        max_size=3))
def test_ids_survive_the_round_trip(codec, calls, ids_):
    with_ids = [ExtractedCall(c.name, c.arguments, id) for c, id in zip(calls, ids_)]
    assert codec.decode(codec.encode(with_ids)) == with_ids


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@settings(max_examples=80, deadline=None)
@given(calls=calls_lists, data=st.data())
def test_tracker_agrees_with_peek_name_on_every_prefix(codec, calls, data):
    text = written(codec, calls, data.draw(prose), data.draw(separators),
                   data.draw(separators), data.draw(prose))
    tracker = codec.tracker()
    seen = ""
    for piece in data.draw(cut(text)):
        tracker.feed(piece)
        seen += piece
        assert tracker.name == codec.peek_name(seen)
        # never a name that is not one of the calls written
        assert tracker.name is None or tracker.name in {c.name for c in calls}


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_markers_split_at_every_offset_still_decode_and_name(codec):
    calls = [ExtractedCall("get_weather", {"city": "Paris", "note": "}{</tool_call>"}),
             ExtractedCall("search", {})]
    text = "Sure.\n" + codec.encode(calls) + "\nDone."
    for i in range(len(text) + 1):
        for j in range(i, len(text) + 1, 7):
            pieces = [text[:i], text[i:j], text[j:]]
            assert streamed_name(codec, pieces) == "search", (i, j)
            assert codec.decode("".join(pieces)) == calls


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_tracker_names_a_call_once_its_name_is_complete(codec):
    text = codec.encode([ExtractedCall("get_weather", {"city": "Oslo"})])
    end_of_name = text.index("get_weather") + len("get_weather") + 1  # closing quote
    for k in range(len(text) + 1):
        expected = "get_weather" if k >= end_of_name else None
        assert codec.peek_name(text[:k]) == expected, k


@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_a_marker_inside_an_argument_value_is_not_a_new_call(codec):
    inner = JsonCodec().encode([ExtractedCall("evil", {})]) + HermesCodec().encode(
        [ExtractedCall("evil", {})])
    calls = [ExtractedCall("good", {"payload": inner, "tool": "evil", "name": "evil",
                                    "nested": {"tool": "evil", "arguments": {}}})]
    text = codec.encode(calls)
    assert codec.decode(text) == calls
    for k in range(len(text) + 1):
        assert codec.peek_name(text[:k]) in (None, "good"), k


# -- JSON codec ----------------------------------------------------------------------------
def test_json_accepts_bare_fenced_several_and_any_key_order():
    codec = JsonCodec()
    text = (
        'Let me look.\n```json\n{\n  "tool": "search",\n  "arguments": {"q": "cats"}\n}\n```\n'
        'and {"arguments": {"city": "Rome"}, "tool": "get_weather"} then '
        '{"tool":"x","arguments":{}}'
    )
    assert codec.decode(text) == [
        ExtractedCall("search", {"q": "cats"}),
        ExtractedCall("get_weather", {"city": "Rome"}),
        ExtractedCall("x", {}),
    ]
    assert codec.peek_name(text) == "x"


def test_json_encode_writes_one_object_per_line():
    codec = JsonCodec()
    text = codec.encode([ExtractedCall("a", {"k": "é"}), ExtractedCall("b", {}, "c1")])
    assert text.splitlines() == [
        '{"tool": "a", "arguments": {"k": "é"}}',
        '{"tool": "b", "arguments": {}, "id": "c1"}',
    ]


def test_json_arguments_as_a_json_text_holding_an_object_are_parsed():
    text = '{"tool": "get_db", "arguments": "{\\"param\\": \\"max\\"}"}'
    assert JsonCodec().decode(text) == [ExtractedCall("get_db", {"param": "max"})]


@pytest.mark.parametrize("value, kind", [
    ("[1, 2]", "list"), ("3", "int"), ("null", "null"), ('"[1]"', "list"), ('"not json"', None),
    ("true", "bool"),
])
def test_json_arguments_that_are_no_object_make_an_error_call(value, kind):
    [call] = JsonCodec().decode('{"tool": "t", "arguments": ' + value + "}")
    assert call.name == "t" and call.arguments == {} and call.error
    assert call.raw_arguments is not None
    if kind:
        assert kind in call.error


def test_json_broken_call_is_an_error_call_keeping_its_text():
    codec = JsonCodec()
    text = 'Calling {"tool": "get_weather", "arguments": {"city": "Oslo",}} now. ' \
           '{"tool": "search", "arguments": {}}'
    first, second = codec.decode(text)
    assert first.name == "get_weather" and first.error and first.arguments == {}
    assert first.raw_arguments.startswith('{"tool": "get_weather"')
    assert second == ExtractedCall("search", {})


def test_json_truncated_call_at_the_end_is_an_error_call():
    [call] = JsonCodec().decode('ok {"tool": "get_weather", "arguments": {"city": "Os')
    assert call.name == "get_weather" and call.error
    assert call.raw_arguments == '{"tool": "get_weather", "arguments": {"city": '


@pytest.mark.parametrize("text", [
    "", "plain prose", "{}", '{"a": 1}', "{ then }", '{"tool": "hammer"}', '{"tool": 5,'
    ' "arguments": {}}', '{"name": "x", "arguments": {}}', '[{"tool": "x"}]',
    "```json\n{\"answer\": 42}\n```", "```python\nprint({'a': 1})\n```", "<b>{}</b>",
    'function f() { return {"x": 1}; }', '"tool" is a word', '{"tool": "hammer" is a tool}',
    '{"tool": "x", "args": {}}', "<tool_call>not json</tool_call>", '{"arguments": {}}',
    '{"tool": "x" "arguments": {}', "{{{{", "}}}}", '{"tool"', '{"tool": ',
])
def test_json_prose_yields_no_call(text):
    assert JsonCodec().decode(text) == []


def test_json_error_call_round_trips_through_encode():
    codec = JsonCodec()
    [broken] = codec.decode('{"tool": "t", "arguments": [1, 2]}')
    assert codec.decode(codec.encode([broken])) == [broken]


# -- Hermes codec --------------------------------------------------------------------------
def test_hermes_reads_every_real_world_variant():
    codec = HermesCodec()
    cases = {
        # content before the call, no separator
        'Sure.<tool_call>{"name": "w", "arguments": {"city": "NYC"}}</tool_call>':
            [ExtractedCall("w", {"city": "NYC"})],
        # newlines inside the tags, boolean argument
        '<tool_call>\n{"name": "f", "arguments": {"ok": true}}\n</tool_call>':
            [ExtractedCall("f", {"ok": True})],
        # two back to back
        '<tool_call>{"name": "s", "arguments": {"q": 1}}</tool_call>'
        '<tool_call>{"name": "s", "arguments": {"q": 2}}</tool_call>':
            [ExtractedCall("s", {"q": 1}), ExtractedCall("s", {"q": 2})],
        # Granite 4: arguments double-encoded as a JSON text
        '<tool_call>\n{"name": "g", "arguments": "{\\"p\\": \\"m\\"}"}\n</tool_call>':
            [ExtractedCall("g", {"p": "m"})],
        # Hermes-2-Pro: a Python dict with single quotes, arguments first
        "<tool_call>\n{'arguments': {'symbol': 'TSLA', 'n': None, 'b': True}, 'name': 'q'}\n"
        "</tool_call><|im_end|>": [ExtractedCall("q", {"symbol": "TSLA", "n": None, "b": True})],
        # unterminated at the end of the stream
        '<tool_call>\n{"name": "u", "arguments": {"t": true}}\n':
            [ExtractedCall("u", {"t": True})],
        # a value holding the closing tag and braces
        '<tool_call>{"name": "e", "arguments": {"x": "</tool_call>}{"}}</tool_call>':
            [ExtractedCall("e", {"x": "</tool_call>}{"})],
        # no arguments at all; `parameters` as some fine-tunes write it; an id
        '<tool_call>{"name": "n"}</tool_call><tool_call>{"name": "p", "parameters": {"a": 1},'
        ' "id": "c9"}</tool_call>': [ExtractedCall("n", {}), ExtractedCall("p", {"a": 1}, "c9")],
    }
    for text, expected in cases.items():
        assert codec.decode(text) == expected, text
        assert codec.peek_name(text) == expected[-1].name, text


@pytest.mark.parametrize("warnings_are", ["default", "error"])
def test_a_hermes_python_dict_with_a_stray_backslash_reads_the_same_whatever_the_warning_filters(
        warnings_are):
    """Python keeps the backslash of 'C:\\pp' with a warning, and under `-W error` reads a
    syntax error: the same model text must not turn into a failed call there."""
    text = "<tool_call>\n{'name': 'open', 'arguments': {'path': 'C:\\pp'}}\n</tool_call>"
    with warnings.catch_warnings():
        warnings.simplefilter(warnings_are)
        calls = HermesCodec().decode(text)
    assert calls == [ExtractedCall("open", {"path": "C:\\pp"})]


def test_hermes_encode_is_canonical_json_in_tags():
    text = HermesCodec().encode([ExtractedCall("a", {"k": 1}), ExtractedCall("b", {})])
    assert text == ('<tool_call>\n{"name": "a", "arguments": {"k": 1}}\n</tool_call>\n'
                    '<tool_call>\n{"name": "b", "arguments": {}}\n</tool_call>')


@pytest.mark.parametrize("body, name", [
    ('{"name": "x", "arguments": {"a": }}', "x"),
    ('{"name": "x", "arguments": {"a": 1}', "x"),  # closing brace missing
    ("{'name': 'y', 'arguments': {'a': true}}", "y"),  # JSON literal in a Python dict
    ('{"arguments": {"a": 1}}', ""),
    ('{"name": 3, "arguments": {}}', ""),
    ('{"name": "z", "arguments": "{not json"}', "z"),
    ('{"name": "z", "arguments": [1]}', "z"),
    ("{'name': 'w', 'arguments': {1, 2}}", "w"),  # a set is no JSON value
])
def test_hermes_malformed_body_is_an_error_call(body, name):
    codec = HermesCodec()
    for text in (f"<tool_call>{body}</tool_call>", f"<tool_call>\n{body}"):
        [call] = codec.decode(text)
        assert call.error and call.arguments == {} and call.name == name, text
        assert call.raw_arguments


def test_hermes_unterminated_partial_call_keeps_name_and_text():
    [call] = HermesCodec().decode('Sure <tool_call>\n{"name": "get_weather", "arguments": {"ci')
    assert call.name == "get_weather" and call.error
    assert call.raw_arguments == '{"name": "get_weather", "arguments": {"ci'


def test_hermes_broken_call_does_not_swallow_the_next_one():
    text = ('<tool_call>{"name": "a", "arguments": {"x": 1}</tool_call>'
            '<tool_call>{"name": "b", "arguments": {}}</tool_call>')
    first, second = HermesCodec().decode(text)
    assert first.name == "a" and first.error
    assert second == ExtractedCall("b", {})
    assert HermesCodec().peek_name(text) == "b"


@pytest.mark.parametrize("text", [
    "", "plain prose", "The model writes <tool_call> tags.", "<tool_call></tool_call>",
    "<tool_call>", "<tool_call>\n", "<tool_call>[1, 2]</tool_call>", "</tool_call>",
    '{"name": "x", "arguments": {}}', '{"tool": "x", "arguments": {}}', "<tool>{}</tool>",
    "<tool_response>{\"name\": \"x\", \"content\": 1}</tool_response>", "<tool_call >{}",
    "```json\n{\"name\": \"x\"}\n```", "<b>{}</b>", "<tool_call> say {hi}",
])
def test_hermes_prose_yields_no_call(text):
    assert HermesCodec().decode(text) == []
    assert HermesCodec().peek_name(text) is None


def test_hermes_error_call_round_trips_through_encode():
    codec = HermesCodec()
    [broken] = codec.decode('<tool_call>{"name": "t", "arguments": "[1"}</tool_call>')
    assert broken.error
    assert codec.decode(codec.encode([broken])) == [broken]


# -- results -------------------------------------------------------------------------------
RECORDS = [
    ToolCallRecord("get_weather", {"city": "Oslo"}, {"temp": 3}, None, "c1"),
    ToolCallRecord("search", {}, None, "unknown tool 'search'"),
    ToolCallRecord("echo", {}, "plain text"),
]


def test_json_results_are_one_object_per_result():
    lines = JsonCodec().encode_results(RECORDS).splitlines()
    assert [json.loads(line) for line in lines] == [
        {"tool": "get_weather", "id": "c1", "result": {"temp": 3}},
        {"tool": "search", "error": "unknown tool 'search'"},
        {"tool": "echo", "result": "plain text"},
    ]


def test_hermes_results_are_tool_response_blocks():
    text = HermesCodec().encode_results(RECORDS)
    blocks = text.split("</tool_response>")
    assert blocks[-1] == "" and len(blocks) == 4
    bodies = [json.loads(b.strip().removeprefix("<tool_response>")) for b in blocks[:-1]]
    assert bodies == [
        {"name": "get_weather", "id": "c1", "content": {"temp": 3}},
        {"name": "search", "error": "unknown tool 'search'"},
        {"name": "echo", "content": "plain text"},
    ]


def test_results_that_are_no_json_become_text():
    record = ToolCallRecord("t", {}, {"when": object()})
    assert json.loads(JsonCodec().encode_results([record]))["result"]["when"].startswith("<object")


# -- hostile input -------------------------------------------------------------------------
# (head, unit, count, tail): the text is head + unit * count + tail
HOSTILE = [
    ('{"tool": "x", "arguments": ', "[", 50_000, ""),
    ('{"tool": "x", "arguments": ', '{"a":', 50_000, ""),
    ('{"tool": "x", "arguments": {"n": ', "9", 20_000, "}}"),
    ("", '{"a":', 30_000, '"tool"'),
    ("", "{", 100_000, '"tool"'),
    ('"tool"', '{"', 50_000, ""),
    ("<tool_call>", '{"a":', 50_000, ""),
    ("<tool_call>", "{'a': ", 50_000, ""),
    ("<tool_call>{'name': 'x', 'arguments': {'n': ", "9", 20_000, "}}</tool_call>"),
    ("", "<tool_call>", 50_000, ""),
    ("", "<tool_call>{", 20_000, ""),
    ('<tool_call>{"name": "', "x", 100_000, ""),
    ("<tool_call>\n", " ", 100_000, "{"),
    ("", '{"a": NaN', 30_000, '"tool"'),
]


def _hostile(index: int, count: int) -> str:
    head, unit, _, tail = HOSTILE[index]
    return head + unit * count + tail


@pytest.mark.parametrize("codec", CODECS, ids=ids)
@pytest.mark.parametrize("index", range(len(HOSTILE)))
def test_hostile_input_does_not_crash(codec, index, linear):
    results = []

    def decode(count: int) -> None:
        text = _hostile(index, count)
        results.append((codec.decode(text), codec.peek_name(text)))

    linear(decode, HOSTILE[index][2])  # no runaway: linear, not quadratic
    calls, name = results[-1]  # the whole text's, decoded last
    assert all(isinstance(call, ExtractedCall) for call in calls)
    assert name is None or isinstance(name, str)


def test_the_growth_measure_catches_quadratic_work(linear):
    """The linearity check can fail: a decoder that copies the rest of the text at each
    offset."""
    def rescan(count: int) -> None:
        text = "<" * count
        for offset in range(count):
            text[offset:].count("<")

    with pytest.raises(AssertionError, match="cost grew"):
        linear(rescan, 20_000)


def test_a_call_after_an_object_refused_for_nan_is_read():
    """`{"a": NaN` in the prose is refused (no JSON a tool can be given) and never closes:
    reading goes on at its syntax error, so the call written after it is not lost (found by
    test_decode_of_encode_is_the_calls_inside_any_prose)."""
    call = ExtractedCall("get_weather", {})
    assert JsonCodec().decode('{"a": NaN' + JsonCodec().encode([call])) == [call]
    [refused] = JsonCodec().decode('{"tool": "f", "arguments": {"x": NaN}} after')
    assert refused.name == "f" and "NaN is not JSON" in refused.error


def test_hostile_calls_are_error_calls_not_crashes():
    deep, big = JsonCodec().decode(_hostile(0, 50_000)), JsonCodec().decode(_hostile(2, 20_000))
    assert [(c.name, bool(c.error)) for c in deep + big] == [("x", True), ("x", True)]
    [python_big] = HermesCodec().decode(_hostile(8, 20_000))
    assert python_big.name == "x" and python_big.error


# -- the tracker stays small ---------------------------------------------------------------
@pytest.mark.parametrize("codec", CODECS, ids=ids)
def test_tracker_keeps_a_bounded_carry_on_long_prose(codec):
    tracker = codec.tracker()
    for _ in range(2_000):
        tracker.feed("Some prose with {braces}, a <tag> and </tool_call> text. ")
    assert len(tracker._carry) <= 1_000 and tracker._parts is None
    assert tracker.name is None


def test_tracker_is_fed_pieces_of_any_size():
    assert isinstance(JsonCodec().tracker(), NameTracker)
    tracker = HermesCodec().tracker()
    assert tracker.feed("") is None
    for char in '<tool_call>\n{"name": "a\\"b", "arguments": {}}':
        tracker.feed(char)
    assert tracker.name == 'a"b'

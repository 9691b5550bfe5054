"""The text wire: calls a codec wrote inside prose, streamed as OpenAI Chat content deltas."""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from mcs_conformance.base import schema
from mcs_conformance.wires import get_wire, wire_for_strategy
from mcs_conformance.wires.text import DECOYS, cases, messages
from mcs_reference import (ExtractedCall, HermesCodec, JsonCodec, LLMStreamBuffer,
                           OpenAIChatStrategy, TextStrategy, ToolCallRecord, default_chain)

QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
MANY = settings(max_examples=60, deadline=None, suppress_health_check=QUIET)
COVER = settings(max_examples=300, deadline=None, suppress_health_check=QUIET, database=None,
                 derandomize=True, phases=[Phase.generate])
SHRINK = settings(max_examples=1000, deadline=None, suppress_health_check=QUIET, database=None,
                  derandomize=True)
CODECS = [JsonCodec(), HermesCodec()]
by_codec = pytest.mark.parametrize("codec", CODECS, ids=repr)


def same(found: list, expected: list) -> bool:
    return [(c.name, c.arguments, c.id, c.error) for c in found] == [
        (c.name, c.arguments, c.id, c.error) for c in expected
    ]


class NaiveHermes:
    """A realistic buggy codec: it cuts each call at the first `</tool_call>`."""

    _BLOCK = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)

    def encode(self, calls):
        return HermesCodec().encode(calls)

    def decode(self, text):
        calls = []
        for body in self._BLOCK.findall(text):
            try:
                value = json.loads(body)
                calls.append(ExtractedCall(value["name"], value["arguments"]))
            except (ValueError, KeyError, TypeError):
                calls.append(ExtractedCall("", {}, None, "unreadable", body))
        return calls


@by_codec
def test_every_message_and_chunk_fits_the_schemas(codec):
    @MANY
    @given(cases(codec=codec))
    def check(case):
        assert schema.errors(case.message, "text.message.json") == []
        assert schema.errors(case.message, "openai-chat.message.json") == []
        assert "tool_calls" not in case.message
        for chunk in case.chunks:
            assert schema.errors(chunk, "openai-chat.chunk.json") == [], chunk

    check()


@by_codec
def test_the_content_holds_exactly_the_calls(codec):
    @MANY
    @given(cases(codec=codec))
    def check(case):
        assert case.wire == "text" and case.text == case.message["content"]
        assert all(call.id is None and call.error is None for call in case.calls)
        assert same(codec.decode(case.text), case.calls)
        assert "".join(case.deltas) == case.text
        assert all(isinstance(delta, str) for delta in case.deltas)

    check()


@by_codec
def test_the_official_sdk_rebuilds_the_content(codec):
    @MANY
    @given(cases(codec=codec))
    def check(case):
        state = ChatCompletionStreamState()
        for chunk in case.chunks:
            state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
        message = state.current_completion_snapshot.choices[0].message
        assert message.content == case.text and not message.tool_calls

    check()


@by_codec
def test_the_reference_text_strategy_reads_the_deltas(codec):
    @MANY
    @given(cases(codec=codec))
    def check(case):
        strategy = TextStrategy(codec)
        buffer = LLMStreamBuffer([strategy])
        shown = "".join(buffer.add(delta) for delta in case.deltas)
        assert shown == case.text == buffer.as_dict()["content"]
        assert same(strategy.extract(buffer.as_dict()), case.calls)
        assert same(strategy.extract(case.message), case.calls)
        records = [ToolCallRecord(c.name, c.arguments, result="ok") for c in case.calls]
        for message in strategy.result_messages(case.message, records):
            assert schema.errors(message, "text.request.json") == [], message

    check()


@by_codec
def test_the_default_chain_takes_the_chunks_as_openai_chat(codec):
    @MANY
    @given(cases(codec=codec))
    def check(case):
        buffer = LLMStreamBuffer(default_chain())
        shown = "".join(buffer.add(chunk) for chunk in case.chunks)
        assert isinstance(buffer.strategy, OpenAIChatStrategy)
        assert buffer.as_dict() == case.message and shown == case.text
        assert TextStrategy(codec).recognizes(buffer.as_dict())

    check()


@by_codec
def test_prose_alone_holds_no_call(codec):
    @MANY
    @given(cases(codec=codec, max_calls=0))
    def check(case):
        assert case.calls == [] and codec.decode(case.text) == []

    check()


@by_codec
def test_prose_holds_decoys_and_arguments_hold_markers(codec):
    seen: set[str] = set()

    @COVER
    @given(cases(codec=codec))
    def collect(case):
        prose = case.text
        if case.calls:
            prose = prose.replace(codec.encode(case.calls), "\x00")
            seen.add("calls")
        decoys = ("{", "}", "```", "<tool>", "</tool_call>", '{"a": 1}')
        seen.update(decoy for decoy in decoys if decoy in prose)
        arguments = json.dumps([c.arguments for c in case.calls], ensure_ascii=False)
        seen.update(f"arg:{m}" for m in ("</tool_call>", "{", "```json") if m in arguments)
        if len(case.calls) > 1:
            seen.add("parallel")
        if any(ord(ch) > 0xFFFF for ch in case.text):
            seen.add("astral")
        if len(case.deltas) > 2:
            seen.add("cut")

    collect()
    assert {"calls", "{", "}", "```", "<tool>", "</tool_call>", '{"a": 1}', "arg:</tool_call>",
            "arg:{", "parallel", "astral", "cut"} - seen == set()


@by_codec
def test_a_text_with_a_call_shrinks_to_the_bare_encoding(codec):
    case = find(cases(codec=codec), lambda c: len(c.calls) >= 1, settings=SHRINK)
    assert case.calls == [ExtractedCall("get_weather", {})]
    assert case.text == codec.encode(case.calls)
    assert len(case.chunks) <= 3


def test_the_generator_does_not_hide_a_codec_bug():
    """Prose is checked around probe calls, not the drawn ones: a codec that cuts a call at a
    `</tool_call>` inside its arguments gets such cases and fails on them."""
    naive = NaiveHermes()
    case = find(cases(codec=naive), lambda c: not same(naive.decode(c.text), c.calls),
                settings=SHRINK)
    assert "</tool_call>" in json.dumps([c.arguments for c in case.calls], ensure_ascii=False)


def test_wire_facts():
    wire = get_wire("text")
    assert wire.name == "text" and not wire.native and wire.strategy_names == frozenset()
    assert isinstance(wire.options["codec"], JsonCodec)
    assert (wire.chunk_schema, wire.message_schema, wire.request_schema) == (
        "openai-chat.chunk.json", "text.message.json", "text.request.json"
    )
    hermes = wire_for_strategy(TextStrategy(HermesCodec()))
    assert hermes.options["codec"].name == "hermes"

    @settings(max_examples=15, deadline=None, suppress_health_check=QUIET)
    @given(hermes.cases(min_calls=1), get_wire("text", max_calls=0).messages())
    def check(case, message):
        assert "<tool_call>" in case.text and JsonCodec().decode(message["content"]) == []

    check()


def test_a_codec_without_encode_is_refused():
    from hypothesis.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="encode"):
        get_wire("text", codec=object())


def test_decoys_are_prose_for_the_reference_codecs():
    for codec in CODECS:
        assert [d for d in DECOYS if codec.decode(d)] == []


def test_the_schemas_refuse_native_shapes():
    case = find(cases(codec=JsonCodec()), lambda c: len(c.calls) >= 1, settings=SHRINK)
    native = [
        {**case.message, "tool_calls": None},
        {**case.message, "tool_calls": []},
        {**case.message, "content": None},
        {**case.message, "content": [{"type": "text", "text": case.text}]},
        {**case.message, "role": "user"},
    ]
    for message in native:
        assert schema.errors(message, "text.message.json"), message
    for message in (
        {"role": "assistant", "content": "x", "tool_calls": []},
        {"role": "tool", "content": "21", "tool_call_id": "call_1"},
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": None},
    ):
        assert schema.errors(message, "text.request.json"), message


@MANY
@given(messages(codec=JsonCodec()))
def test_messages_are_plain_assistant_messages(message):
    assert message == {"role": "assistant", "content": message["content"], "refusal": None,
                       "annotations": []}

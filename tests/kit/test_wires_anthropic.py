"""The Anthropic Messages wire: schemas, the official SDK as oracle, shrinking, the reference."""
from __future__ import annotations

import copy
import json

import pytest
from anthropic.lib.streaming._messages import accumulate_event
from anthropic.types import Message, RawMessageStreamEvent
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument
from pydantic import TypeAdapter

from mcs_conformance.base import schema
from mcs_conformance.wires import get_wire
from mcs_conformance.wires import anthropic_messages as wire
from mcs_reference import AnthropicMessagesStrategy, LLMStreamBuffer

MANY = settings(max_examples=100, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SOME = settings(MANY, max_examples=40)
SHRINK = settings(MANY, max_examples=2000, derandomize=True,
                  phases=[Phase.generate, Phase.shrink])  # no explain phase: it costs 10x
EVENT = TypeAdapter(RawMessageStreamEvent)
CHUNK, MESSAGE, REQUEST = (f"anthropic-messages.{kind}.json"
                           for kind in ("chunk", "message", "request"))
CUT = wire.CUT  # max-tokens-open-call


def uncut(message):
    """`message` as an API `Message` could hold it: a stream cut by `max_tokens` assembles a
    `tool_use` whose `input` is the unfinished JSON text, which no `Message` holds; the rest
    of the message must still fit."""
    message = copy.deepcopy(message)
    for block in message["content"]:
        if block["type"] == "tool_use" and isinstance(block["input"], str):
            block["input"] = {}
    return message


def non_pings(chunks):
    return [chunk for chunk in chunks if chunk["type"] != "ping"]


# --- the wire object ---------------------------------------------------------------------------

def test_make_wire_describes_the_format():
    made = get_wire("anthropic-messages")
    assert made.name == "anthropic-messages"
    assert made.strategy_names == frozenset({"anthropic-messages"})
    assert made.native is True
    for name in (made.chunk_schema, made.message_schema, made.request_schema):
        schema.validator(name)  # exists and is a valid 2020-12 schema


def test_unknown_option_is_refused():
    with pytest.raises(InvalidArgument, match="colour"):
        wire.make_wire(colour="red")
    with pytest.raises(InvalidArgument):
        find(wire.messages(min_calls=3, max_calls=1), lambda m: True, settings=SHRINK)


@SOME
@given(get_wire("anthropic-messages", min_calls=2, max_calls=2, pings=False).cases())
def test_options_become_defaults(case):
    assert len(case.calls) == 2
    assert all(chunk["type"] != "ping" for chunk in case.chunks)


# --- schemas -----------------------------------------------------------------------------------

@MANY
@given(wire.cases())
def test_every_message_and_chunk_fits_its_schema(case):
    assert schema.errors(uncut(case.message), MESSAGE) == []
    for chunk in case.chunks:
        assert schema.errors(chunk, CHUNK) == [], chunk


def _assistant_turn(message):
    """What a client sends back: the whole content, minus empty text blocks the API refuses."""
    content = [b for b in message["content"] if b["type"] != "text" or b["text"]]
    return {"role": "assistant", "content": content or "(empty)"}


@MANY
@given(wire.messages(min_calls=1))
def test_the_echoed_turn_and_its_results_fit_the_request_schema(message):
    assert schema.errors(_assistant_turn(message), REQUEST) == []
    results = [{"type": "tool_result", "tool_use_id": b["id"], "content": "42"}
               for b in message["content"] if b["type"] == "tool_use"]
    assert schema.errors({"role": "user", "content": results}, REQUEST) == []


@pytest.mark.parametrize("damage, name", [
    (lambda m: m["content"].append({"type": "tool_use", "id": "toolu_1", "name": "f",
                                    "input": "{}"}), MESSAGE),
    (lambda m: m["content"].append({"type": "thinking", "thinking": "hm"}), MESSAGE),
    (lambda m: m["content"].append({"type": "thinking", "thinking": "hm", "signature": ""}),
     MESSAGE),
    (lambda m: m.update(stop_reason=None), MESSAGE),
    (lambda m: m["usage"].pop("output_tokens"), MESSAGE),
    (lambda m: m["content"].append({"type": "tool_call", "id": "x", "name": "f", "input": {}}),
     MESSAGE),
])
def test_the_message_schema_catches_real_mistakes(damage, name):
    message = find(wire.messages(), lambda m: True, settings=SHRINK)
    assert schema.errors(message, name) == []
    damage(message)
    assert schema.errors(message, name) != []


@pytest.mark.parametrize("chunk", [
    {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta"}},
    {"type": "content_block_delta", "index": -1, "delta": {"type": "text_delta", "text": "a"}},
    {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t",
                                                                  "name": "f"}},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
    {"type": "message_start", "message": {"id": "m", "type": "message", "role": "user",
                                          "model": "c", "content": [],
                                          "usage": {"input_tokens": 1, "output_tokens": 1}}},
    {"type": "error"},
    {"type": "content_block_pause"},
    {"index": 0},
])
def test_the_chunk_schema_catches_real_mistakes(chunk):
    assert schema.errors(chunk, CHUNK) != []


@pytest.mark.parametrize("turn", [
    {"role": "assistant", "content": [{"type": "text", "text": ""}]},
    {"role": "assistant", "content": []},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "x", "signature": ""}]},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                       "input": "{\"a\": 1}"}]},
    {"role": "user", "content": [{"type": "tool_result", "content": "42"}]},
    {"role": "user", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
    {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
    {"role": "tool", "content": "42"},
])
def test_the_request_schema_catches_real_mistakes(turn):
    assert schema.errors(turn, REQUEST) != []


# --- what the chunker promises -----------------------------------------------------------------

@MANY
@given(wire.cases())
def test_cases_keep_their_promises(case):
    check_stream_shape(case)
    check_blocks_rebuild_from_their_deltas(case)
    check_case_truth(case)


def check_stream_shape(case):
    chunks = case.chunks
    start = chunks[0]
    assert start["type"] == "message_start"
    assert case.quirks == wire.quirks_of(chunks) and case.quirks <= wire.QUIRKS
    check_only_recorded_blocks(case.message["content"])
    if "prefilled-message-start" in case.quirks:  # a follow-up stream: the message at once
        assert chunks == [{"type": "message_start", "message": case.message},
                          {"type": "message_stop"}]
        # as recorded: only the tool_use blocks the follow-up ends in
        assert {block["type"] for block in case.message["content"]} == {"tool_use"}
        return
    assert start["message"]["content"] == [] and start["message"]["stop_reason"] is None
    assert 1 <= start["message"]["usage"]["output_tokens"] <= case.message["usage"]["output_tokens"]
    assert chunks[case.done_at]["type"] == "message_stop"
    assert all(chunk["type"] == "ping" for chunk in chunks[case.done_at + 1:])
    events = non_pings(chunks)
    assert [e["type"] for e in events[-2:]] == ["message_delta", "message_stop"]
    usage = dict(start["message"]["usage"], **events[-2]["usage"])
    assert usage == case.message["usage"]  # message_delta usage replaces, key by key


def check_only_recorded_blocks(blocks):
    """Blocks no recording shows the server sending are never drawn: `container_upload` (an
    input block in the docs), a web_fetch document with `citations: null` (what proxies
    write; the recordings leave the key out)."""
    assert all(block["type"] != "container_upload" for block in blocks)
    for block in blocks:
        content = block.get("content")
        if block["type"] == "web_fetch_tool_result" and isinstance(content, dict) \
                and isinstance(content.get("content"), dict):
            assert "citations" not in content["content"], content


def check_blocks_rebuild_from_their_deltas(case):
    if "prefilled-message-start" in case.quirks:
        return
    events = non_pings(case.chunks)[1:-2]
    blocks = case.message["content"]
    for index, block in enumerate(blocks):
        own = [e for e in events if e["index"] == index]
        assert own[0]["type"] == "content_block_start"
        if CUT in case.quirks and index == len(blocks) - 1:
            check_cut_block(block, own)
            continue
        assert own[-1]["type"] == "content_block_stop"
        start, deltas = own[0]["content_block"], [e["delta"] for e in own[1:-1]]
        kind = block["type"]
        if kind == "text":
            assert start == {"type": "text", "text": ""}
            assert "".join(d.get("text", "") for d in deltas) == block["text"]
            cited = [d["citation"] for d in deltas if d["type"] == "citations_delta"]
            assert cited == block.get("citations", [])
        elif kind == "thinking":
            assert start == {"type": "thinking", "thinking": "", "signature": ""}
            assert [d for d in deltas if d["type"] == "signature_delta"] == [
                {"type": "signature_delta", "signature": block["signature"]}]
            assert deltas[-1]["type"] == "signature_delta"
            assert "".join(d.get("thinking", "") for d in deltas) == block["thinking"]
        elif kind not in ("tool_use", "server_tool_use"):  # redacted thinking, results
            assert start == block and deltas == []
        else:
            text = "".join(d["partial_json"] for d in deltas)
            assert {**start, "input": block["input"]} == block
            if deltas:
                assert start["input"] == {}
                assert (json.loads(text) if text else {}) == block["input"]
            else:
                assert start == block  # given whole, as calls from code execution are


def check_cut_block(block, own):
    """The last tool_use of a stream cut by max_tokens: deltas and no content_block_stop;
    its `input` is their joined text, a proper prefix of a JSON object, not one itself."""
    start, deltas = own[0]["content_block"], [e["delta"] for e in own[1:]]
    assert block["type"] == "tool_use" and start == {**block, "input": {}}
    assert deltas and all(d["type"] == "input_json_delta" for d in deltas)
    text = "".join(d["partial_json"] for d in deltas)
    assert text == block["input"] and text.startswith("{")
    with pytest.raises(ValueError):
        json.loads(text)


def check_case_truth(case):
    blocks = case.message["content"]
    uses = [b for b in blocks if b["type"] == "tool_use"]
    assert [(c.name, c.id) for c in case.calls] == [(b["name"], b["id"]) for b in uses]
    for call, block in zip(case.calls, uses):
        if isinstance(block["input"], str):  # cut by max_tokens: an error call keeping the text
            assert CUT in case.quirks and block is blocks[-1]
            assert (call.arguments, call.raw_arguments) == ({}, block["input"]) and call.error
        else:
            assert call.arguments == block["input"] and call.error is None
    assert len({c.id for c in case.calls}) == len(case.calls)
    assert case.text == "".join(b["text"] for b in blocks if b["type"] == "text")
    if CUT in case.quirks:
        assert (case.message["stop_reason"], case.message["stop_sequence"]) == ("max_tokens", None)
    else:
        assert case.message["stop_reason"] == ("tool_use" if uses else case.message["stop_reason"])
    servers = {b["id"]: b["name"] for b in blocks if b["type"] == "server_tool_use"}
    for block in blocks:  # every server tool result answers a server call before it
        if block["type"].endswith("_tool_result"):
            assert block["tool_use_id"] in servers
    if case.message["stop_reason"] == "stop_sequence":
        assert case.message["stop_sequence"]
    assert case.response == case.message


# --- the official SDK as oracle ----------------------------------------------------------------

def sdk_rebuild(chunks):
    """The message the official SDK's accumulator builds from these events (pings skipped:
    the SDK's stream class drops them before they reach the accumulator)."""
    snapshot, buffers = None, {}
    for chunk in non_pings(chunks):
        EVENT.validate_python(chunk)
        snapshot = accumulate_event(event=copy.deepcopy(chunk), current_snapshot=snapshot,
                                    json_bufs=buffers)
    return snapshot.model_dump(mode="json")


def assert_contains(got, want, where="block"):
    """Every field of `want` is in `got` with the same value (the SDK adds optional fields
    as None: a citation's `file_id`, a block's `caller`, ...)."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        for key, value in want.items():
            assert key in got, f"{where}.{key}"
            assert_contains(got[key], value, f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for number, (a, b) in enumerate(zip(got, want)):
            assert_contains(a, b, f"{where}[{number}]")
    else:
        assert got == want, where


def assert_same_as_sdk(rebuilt, message):
    """Compare every field both define (the SDK adds `citations`, `stop_details`, ...)."""
    for key in ("id", "type", "role", "model", "stop_reason", "stop_sequence"):
        assert rebuilt[key] == message[key], key
    assert len(rebuilt["content"]) == len(message["content"])
    for got, want in zip(rebuilt["content"], message["content"]):
        assert_contains(got, want)
    for key in ("input_tokens", "output_tokens", "cache_creation_input_tokens",
                "cache_read_input_tokens"):
        assert rebuilt["usage"].get(key) == message["usage"].get(key), key


@MANY
@given(wire.cases(quirks=wire.QUIRKS - {CUT}))
def test_the_sdk_rebuilds_every_message_from_its_events(case):
    # Not max-tokens-open-call: the SDK's accumulator parses the unfinished input JSON with
    # jiter's partial mode (anthropic/lib/streaming/_messages.py, `accumulate_event`,
    # `from_json(json_buf, partial_mode=True)`), so it holds the keys that were complete,
    # where the truth keeps the text and reports an error call (mcs_reference `_parse_input`).
    Message.model_validate(case.message)
    assert_same_as_sdk(sdk_rebuild(case.chunks), case.message)


@SOME
@given(wire.messages().flatmap(lambda m: wire.chunkings(m).map(lambda c: wire.case_of(m, c))))
def test_chunkings_of_a_given_message(case):
    check_stream_shape(case)
    check_blocks_rebuild_from_their_deltas(case)
    assert_same_as_sdk(sdk_rebuild(case.chunks), case.message)


# --- shrinking ---------------------------------------------------------------------------------

def test_a_case_with_a_call_shrinks_to_a_tiny_stream():
    case = find(wire.cases(), lambda c: len(c.calls) >= 1, settings=SHRINK)
    assert len(case.message["content"]) == 1
    assert case.calls[0].arguments == {}
    assert len(case.chunks) <= 6  # start, block start, one delta at most, stop, delta, stop


def _is_cut(event):
    piece = event.get("delta", {}).get("partial_json", "")
    return piece not in ("", "{}") and not piece.endswith("}")


def _cut_call(case):
    """The index of a client call whose input is cut mid-JSON, or None."""
    return next((e["index"] for e in case.chunks if _is_cut(e)
                 and case.message["content"][e["index"]]["type"] == "tool_use"), None)


def test_a_cut_argument_shrinks_to_two_pieces():
    case = find(wire.cases(), lambda c: _cut_call(c) is not None and CUT not in c.quirks,
                settings=SHRINK)
    index = _cut_call(case)
    fragments = [e["delta"]["partial_json"] for e in case.chunks
                 if e["type"] == "content_block_delta" and e["index"] == index]
    assert len([f for f in fragments if f]) == 2
    assert len(json.dumps(case.message["content"][index]["input"])) <= 16
    # the shrinker usually deletes every other block; sometimes one small call survives
    # (which one depends on the constants Hypothesis collects from the project's source)
    others = [b for i, b in enumerate(case.message["content"]) if i != index]
    assert len(others) <= 1 and all(len(json.dumps(b.get("input"))) <= 16 for b in others)


# --- the reference reassembles every case ------------------------------------------------------


# --- quirks and provider errors ----------------------------------------------------------------

@SOME
@given(wire.cases(quirks=frozenset()))
def test_no_quirks_draws_the_provider_own_shape(case):
    assert case.quirks == frozenset() == wire.quirks_of(case.chunks)
    assert all(chunk["type"] != "ping" for chunk in case.chunks)


@SOME
@given(wire.cases(quirks={"pings"}))
def test_named_quirks_are_the_only_ones_drawn(case):
    assert case.quirks <= {"pings"}


@MANY
@given(wire.cases(errors=True))
def test_error_cases_end_in_an_error_event_the_reference_raises(case):
    from mcs_reference.errors import ProviderError
    assert case.chunks[case.error_at] == {"type": "error", "error": case.error}
    assert case.error_at == len(case.chunks) - 1
    assert all(c["type"] != "message_stop" for c in case.chunks)
    Message.model_validate(uncut(case.message))  # what came before the error
    for chunk in case.chunks:
        assert schema.errors(chunk, CHUNK) == [], chunk
    strategy = AnthropicMessagesStrategy()
    buffer = LLMStreamBuffer([strategy])
    for chunk in copy.deepcopy(case.chunks[:case.error_at]):
        buffer.add(chunk)
    with pytest.raises(ProviderError) as raised:
        buffer.add(copy.deepcopy(case.chunks[case.error_at]))
    assert case.error["message"] in str(raised.value)
    assert buffer.as_dict() == case.message
    assert strategy.extract(buffer.as_dict()) == case.calls
    assert strategy.content_text(buffer.as_dict()) == case.text


# --- max-tokens-open-call: the last tool_use cut by max_tokens -----------------------------------

ALL = wire.QUIRKS


@st.composite
def cut_cases(draw, errors=False):
    """Cases whose last tool_use is cut (the wire draws it in 1 in 10 eligible cases): a
    drawn message, with a streamed tool_use appended when it does not end in one."""
    message, streams = draw(wire._content(0, 2, (8, ALL), ALL))
    if not wire._cuttable(message, streams):
        call = {**draw(wire._tool_uses(False)), "id": "toolu_01cut"}
        stream = draw(wire._block_stream(call, 8, frozenset()))
        message = {**message, "content": [*message["content"], call]}
        streams = [*streams, stream]
    assert wire._cuttable(message, streams)
    message, streams = draw(wire._cut_by_max_tokens(message, streams))
    chunks = draw(wire._events(message, streams, True, ALL, True))
    return draw(wire._error_case(message, chunks)) if errors else wire.case_of(message, chunks)


def test_the_cut_is_drawn_and_tagged_when_allowed():
    case = find(wire.cases(quirks={CUT}), lambda c: CUT in c.quirks, settings=SHRINK)
    assert case.quirks == {CUT}
    assert [c["type"] for c in case.chunks] == [
        "message_start", "content_block_start", "content_block_delta", "message_delta",
        "message_stop"]
    assert case.message["content"][0]["input"] == "{" and case.calls[0].error


@SOME
@given(wire.cases(quirks=ALL - {CUT}, min_calls=1))
def test_the_cut_is_not_drawn_when_not_allowed(case):
    assert CUT not in case.quirks and case.message["stop_reason"] == "tool_use"
    stops = {c["index"] for c in case.chunks if c["type"] == "content_block_stop"}
    starts = {c["index"] for c in case.chunks if c["type"] == "content_block_start"}
    assert starts == stops


@SOME
@given(cut_cases())
def test_a_cut_case_keeps_its_promises_and_the_reference_assembles_its_truth(case):
    assert CUT in case.quirks == wire.quirks_of(case.chunks)
    check_stream_shape(case)
    check_blocks_rebuild_from_their_deltas(case)
    check_case_truth(case)
    for chunk in non_pings(case.chunks):
        EVENT.validate_python(chunk)
        assert schema.errors(chunk, CHUNK) == [], chunk
    strategy = AnthropicMessagesStrategy()
    buffer = LLMStreamBuffer([strategy])
    shown = "".join(buffer.add(chunk) for chunk in copy.deepcopy(case.chunks))
    assert buffer.as_dict() == case.message == case.response
    assert strategy.extract(buffer.as_dict()) == case.calls
    assert shown == case.text and buffer.is_done()


@SOME
@given(cut_cases(errors=True))
def test_an_error_after_a_cut_keeps_the_cut_call(case):
    from mcs_reference.errors import ProviderError
    strategy = AnthropicMessagesStrategy()
    buffer = LLMStreamBuffer([strategy])
    for chunk in copy.deepcopy(case.chunks[:case.error_at]):
        buffer.add(chunk)
    with pytest.raises(ProviderError):
        buffer.add(copy.deepcopy(case.chunks[case.error_at]))
    assert buffer.as_dict() == case.message
    assert strategy.extract(buffer.as_dict()) == case.calls


def test_quirks_of_reads_the_cut_from_the_events_alone():
    head = {"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1}}}
    tool = {"type": "content_block_start", "index": 0, "content_block": {
        "type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}}
    delta = {"type": "content_block_delta", "index": 0,
             "delta": {"type": "input_json_delta", "partial_json": '{"a": '}}
    stop = {"type": "content_block_stop", "index": 0}

    def end(reason):
        return [{"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None},
                 "usage": {"output_tokens": 9}}, {"type": "message_stop"}]

    assert wire.quirks_of([head, tool, delta, *end("max_tokens")]) == {CUT}
    assert wire.quirks_of([head, tool, delta, stop, *end("max_tokens")]) == frozenset()
    assert wire.quirks_of([head, tool, delta, *end("tool_use")]) == frozenset()


def test_every_anthropic_quirk_is_drawn():
    from mcs_conformance.wires import quirk_names
    assert wire.QUIRKS == quirk_names(wire.NAME)


@SOME
@given(cut_cases())
def test_history_lossless_takes_any_object_for_a_cut_input(case):
    from mcs_conformance.clauses._history import _anthropic
    from mcs_reference import ToolCallRecord
    strategy = AnthropicMessagesStrategy()
    records = [ToolCallRecord(c.name, c.arguments, error=c.error, tool_call_id=c.id)
               for c in case.calls]
    history = strategy.result_messages(copy.deepcopy(case.message), records)
    assert history[0]["content"][-1]["input"] == {}  # a request's input is an object
    assert _anthropic(case, history) is None
    history[0]["content"].pop()  # the cut call dropped from the turn
    assert _anthropic(case, history) is not None

"""The body decoder: recorded or live SSE / NDJSON bytes to chunks."""
import json

import pytest
from hypothesis import given, strategies as st

from mcs_reference import END_OF_STREAM, LLMStreamBuffer, MalformedChunk, ProviderError
from mcs_reference.sse import BodyDecoder, decode_body, iter_chunks

EVENTS = [{"type": "ping"}, {"a": "é\n", "b": [1, 2]}, {"c": "data: [DONE]"}]


def sse(events, *, newline="\n", done=True, comment=True, event_first=True):
    blocks = []
    for event in events:
        lines = [f"data: {json.dumps(event)}"]
        lines = (["event: x"] + lines) if event_first else (lines + ["event: x"])
        if comment:
            lines.insert(0, ": keep-alive")
        blocks.append(newline.join(lines) + newline)
    if done:
        blocks.append("data: [DONE]" + newline)
    return newline.join(blocks).encode()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("event_first", [True, False])
def test_sse_fields_comments_crlf_and_done(newline, event_first):
    decoder = BodyDecoder()
    chunks = decoder.feed(sse(EVENTS, newline=newline, event_first=event_first)) + decoder.close()
    assert chunks == EVENTS
    assert decoder.done and decoder.format == "sse"


def test_multi_line_data_joins_with_newlines():
    body = b'data: {"a":\ndata: 1}\n\n'
    assert decode_body(body) == [{"a": 1}]


def test_data_without_space_and_trailing_padding():
    assert decode_body(b'data:{"a": 1}   \n\n') == [{"a": 1}]


def test_ndjson_is_detected_and_blank_lines_skipped():
    body = b'\n{"a": 1}\n\n{"b": 2}'
    decoder = BodyDecoder()
    assert decoder.feed(body) + decoder.close() == [{"a": 1}, {"b": 2}]
    assert decoder.format == "ndjson"


@given(st.lists(st.integers(1, 9), min_size=1, max_size=40))
def test_any_network_cut_gives_the_same_chunks(sizes):
    body = sse(EVENTS)
    pieces, start = [], 0
    for size in sizes * (len(body) // sum(sizes) + 1):
        pieces.append(body[start:start + size])
        start += size
    assert list(iter_chunks(pieces)) == [*EVENTS, END_OF_STREAM]
    assert decode_body(pieces) == EVENTS


def test_text_input_is_accepted():
    assert decode_body(sse(EVENTS).decode()) == EVENTS


def test_non_json_event_names_its_position():
    with pytest.raises(MalformedChunk) as info:
        decode_body(b'data: {"a": 1}\n\ndata: {oops\n\n')
    assert info.value.index == 1 and "not JSON" in str(info.value) and "chunk 1" in str(info.value)


def test_non_utf8_line_is_a_malformed_chunk():
    with pytest.raises(MalformedChunk, match="not UTF-8"):
        decode_body(b"data: \xff\xfe\n\n")


def test_good_events_before_a_bad_one_in_the_same_read_are_kept():
    decoder = BodyDecoder(format="ndjson")
    assert decoder.feed(b'{"a": 1}\n{bad\n') == [{"a": 1}]
    with pytest.raises(MalformedChunk):
        decoder.close()


def test_unknown_format_is_refused():
    with pytest.raises(ValueError, match="format must be"):
        BodyDecoder(format="xml")


def _chat(delta, **extra):
    return {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}], **extra}


# A Snowflake-like stream: no finish_reason anywhere; only `[DONE]` says it is complete.
NO_FINISH = [_chat({"role": "assistant", "content": ""}), _chat({"content": "Hello"})]


def test_the_end_signal_reaches_the_buffer_so_is_done_tells_complete_from_cut():
    whole, cut = sse(NO_FINISH, comment=False), sse(NO_FINISH, comment=False, done=False)
    assert list(iter_chunks(whole)) == [*NO_FINISH, END_OF_STREAM]
    assert decode_body(whole) == NO_FINISH == decode_body(cut)
    complete, truncated = LLMStreamBuffer(), LLMStreamBuffer()
    for chunk in iter_chunks(whole):
        complete.add(chunk)
    for chunk in iter_chunks(cut):
        truncated.add(chunk)
    assert complete.is_done() and not truncated.is_done()
    assert complete.chunk_count == 2 and complete.as_dict() == truncated.as_dict()


def test_the_end_signal_after_a_provider_error_leaves_the_stream_not_done():
    failed = _chat({}, error={"message": "overloaded", "type": "server_error"})
    buffer = LLMStreamBuffer()
    with pytest.raises(ProviderError):
        for chunk in iter_chunks(sse([NO_FINISH[0], failed], comment=False)):
            buffer.add(chunk)
    buffer.add(END_OF_STREAM)
    assert not buffer.is_done()


# Gemini's raw body: `data: <record>` with Google's own JSON spacing, each record followed by
# CRLF CRLF; no `[DONE]`: the body just ends, and the record's finishReason says it is done.
GEMINI_RECORDS = [
    {"candidates": [{"content": {"parts": [{"text": "The capital"}], "role": "model"}, "index": 0}],
     "modelVersion": "gemini-3-pro-preview"},
    {"candidates": [{"content": {"parts": [{"text": ""}], "role": "model"}, "finishReason": "STOP",
                     "index": 0}], "usageMetadata": {"promptTokenCount": 257}},
]
GEMINI_BODY = "".join(
    "data: " + json.dumps(record, separators=(",", ": ")) + "\r\n\r\n" for record in GEMINI_RECORDS
).encode()


@given(st.lists(st.integers(1, 7), min_size=1, max_size=30))
def test_a_gemini_body_decodes_whatever_the_network_cuts(sizes):
    pieces, start = [], 0
    while start < len(GEMINI_BODY):  # cuts fall anywhere, between \r and \n too
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(GEMINI_BODY[start:start + size])
        start += size
    assert list(iter_chunks(pieces)) == GEMINI_RECORDS  # no END_OF_STREAM: there is no [DONE]
    decoder = BodyDecoder()
    assert decoder.feed(GEMINI_BODY) + decoder.close() == GEMINI_RECORDS
    assert decoder.format == "sse" and not decoder.done


def test_a_gemini_body_without_its_last_separator_and_the_buffer_it_feeds():
    body = GEMINI_BODY[:-4]
    assert decode_body(body) == GEMINI_RECORDS
    buffer = LLMStreamBuffer()
    shown = "".join(buffer.add(chunk) for chunk in iter_chunks(body))
    assert shown == "The capital" and buffer.strategy.name == "gemini" and buffer.is_done()

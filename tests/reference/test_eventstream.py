"""The event-stream codec of Bedrock's `converse-stream` bodies, held to botocore's decoder.

botocore's `EventStreamBuffer` is the oracle: every frame it accepts (the recorded `.bin`
bodies of shared/corpora-real when they are there, and whatever our encoder writes) decodes
here to the same headers and payload, and it accepts every frame our encoder writes.
"""
from __future__ import annotations

import json
import struct
import zlib
from pathlib import Path

import pytest
from botocore.eventstream import EventStreamBuffer
from hypothesis import given, strategies as st

from mcs_reference import (StreamError, encode_chunk_frame, encode_event_frame,
                           encode_exception_frame)
from mcs_reference.eventstream import FrameDecoder, encode_frame
from mcs_reference.sse import BodyDecoder, decode_body, iter_chunks

RECORDINGS = Path(__file__).parents[2].parent / "shared" / "corpora-real" / "bedrock"
BINS = sorted(RECORDINGS.glob("*.bin")) if RECORDINGS.is_dir() else []
CHUNKS = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Héllo ☃"}, "p": "abc"}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"messageStop": {"stopReason": "end_turn"}},
    {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
                  "metrics": {"latencyMs": 5}}},
]
BODY = b"".join(encode_chunk_frame(chunk) for chunk in CHUNKS)


def botocore_frames(body: bytes) -> list[tuple[dict, bytes]]:
    buffer = EventStreamBuffer()
    buffer.add_data(body)
    return [(message.headers, message.payload) for message in buffer]


def our_frames(*pieces: bytes) -> list[tuple[dict, bytes]]:
    decoder = FrameDecoder()
    frames = [frame for piece in pieces for frame in decoder.feed(piece)]
    decoder.close()
    return [(frame.headers, frame.payload) for frame in frames]


def frame_offsets(body: bytes) -> list[int]:
    offsets, at = [], 0
    while at < len(body):
        offsets.append(at)
        at += struct.unpack_from(">I", body, at)[0]
    return offsets


def test_the_encoder_round_trips_through_both_decoders():
    assert decode_body(BODY, format="eventstream") == CHUNKS
    assert [(headers[":event-type"], json.loads(payload))
            for headers, payload in botocore_frames(BODY)] == [
        (name, payload) for chunk in CHUNKS for name, payload in chunk.items()]
    assert our_frames(BODY) == botocore_frames(BODY)


def test_event_and_exception_frames_carry_the_documented_headers():
    [(event, _)] = our_frames(encode_event_frame("messageStart", {"role": "assistant"}))
    assert event == {":event-type": "messageStart", ":content-type": "application/json",
                     ":message-type": "event"}
    frame = encode_exception_frame("throttlingException", {"message": "slow down"})
    [(headers, payload)] = our_frames(frame)
    assert headers == {":exception-type": "throttlingException",
                       ":content-type": "application/json", ":message-type": "exception"}
    assert json.loads(payload) == {"message": "slow down"}
    assert frame == encode_chunk_frame({"throttlingException": {"message": "slow down"}})
    assert decode_body(frame, format="eventstream") == [
        {"throttlingException": {"message": "slow down"}}]
    with pytest.raises(ValueError):
        encode_event_frame("x", {}, message_type="error")


@pytest.mark.skipif(not BINS, reason=f"no recorded .bin bodies in {RECORDINGS}")
@pytest.mark.parametrize("path", BINS, ids=lambda path: path.name)
def test_every_recorded_frame_decodes_as_botocore_decodes_it(path):
    body = path.read_bytes()
    expected = botocore_frames(body)
    assert expected and our_frames(body) == expected
    assert our_frames(*[body[at:at + 7] for at in range(0, len(body), 7)]) == expected
    assert len(decode_body(body)) == len(expected)  # a NUL first byte: an event stream


HEADER_VALUES = st.one_of(
    st.text(max_size=20), st.binary(max_size=20), st.booleans(),
    st.tuples(st.just(2), st.integers(-2 ** 7, 2 ** 7 - 1)),
    st.tuples(st.just(3), st.integers(-2 ** 15, 2 ** 15 - 1)),
    st.tuples(st.just(4), st.integers(-2 ** 31, 2 ** 31 - 1)),
    st.tuples(st.just(5), st.integers(-2 ** 63, 2 ** 63 - 1)),
    st.tuples(st.just(8), st.integers(-2 ** 63, 2 ** 63 - 1)),
    st.tuples(st.just(9), st.binary(min_size=16, max_size=16)),
)
HEADERS = st.dictionaries(st.text(min_size=1, max_size=12).filter(
    lambda name: len(name.encode()) < 256), HEADER_VALUES, max_size=6)


@given(st.lists(st.tuples(HEADERS, st.binary(max_size=60)), min_size=1, max_size=4),
       st.lists(st.integers(1, 13), min_size=1, max_size=10))
def test_any_frames_our_encoder_writes_botocore_reads_and_so_do_we(frames, sizes):
    body = b"".join(encode_frame(headers, payload) for headers, payload in frames)
    expected = botocore_frames(body)
    assert [payload for _, payload in expected] == [payload for _, payload in frames]
    pieces, at = [], 0
    while at < len(body):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(body[at:at + size])
        at += size
    assert our_frames(*pieces) == expected


def test_every_cut_of_a_small_body_decodes_the_same():
    for cut in range(len(BODY) + 1):
        assert decode_body([BODY[:cut], BODY[cut:]], format="eventstream") == CHUNKS, cut
    for second in range(1, 40):  # two cuts, inside the first prelude and its CRCs
        for first in range(second):
            pieces = [BODY[:first], BODY[first:second], BODY[second:]]
            assert decode_body(pieces, format="eventstream") == CHUNKS
    decoder = BodyDecoder(format="eventstream")
    got = [chunk for byte in range(len(BODY)) for chunk in decoder.feed(BODY[byte:byte + 1])]
    assert got + decoder.close() == CHUNKS
    assert list(iter_chunks(iter([BODY[:5], BODY[5:]]))) == CHUNKS  # detected: NUL first


def _corrupt(at: int, value: bytes) -> bytes:
    return BODY[:at] + value + BODY[at + len(value):]


def _flip(at: int) -> bytes:
    return _corrupt(at, bytes([BODY[at] ^ 0x40]))


def _relength(start: int, total: int, headers: int) -> bytes:
    """The frame at `start` with a prelude of other lengths, its prelude CRC made valid."""
    prelude = struct.pack(">II", total, headers)
    return _corrupt(start, prelude + struct.pack(">I", zlib.crc32(prelude)))


SECOND = frame_offsets(BODY)[1]
THIRD = frame_offsets(BODY)[2]


@pytest.mark.parametrize("body, offset, said", [
    (_flip(SECOND + 9), SECOND, "prelude CRC32"),  # a bit of the prelude CRC itself
    (_flip(SECOND + 2), SECOND, "prelude CRC32"),  # a bit of the total length
    (_flip(THIRD + 20), THIRD, "message CRC32"),  # a bit of a header
    (_flip(THIRD - 1), SECOND, "message CRC32"),  # a bit of the message CRC
    (_relength(SECOND, 15, 0), SECOND, "cannot be"),  # shorter than prelude + CRC
    (_relength(SECOND, 40, 30), SECOND, "cannot be"),  # headers longer than the frame
    (_relength(SECOND, 40, 200 * 1024), SECOND, "cannot be"),  # beyond botocore's limits
    (_relength(SECOND, 30 * 1024 * 1024, 10), SECOND, "cannot be"),
])
def test_a_corrupt_frame_names_its_byte_offset(body, offset, said):
    decoder = BodyDecoder(format="eventstream")
    with pytest.raises(StreamError) as caught:
        assert decoder.feed(body[:SECOND]) == CHUNKS[:1]  # the good first frame comes out
        decoder.feed(body[SECOND:])  # a good frame before the bad one comes out too
        decoder.close()
    assert f"frame at byte {offset}: " in str(caught.value) and said in str(caught.value)
    assert caught.value.index == (1 if offset == SECOND else 2)
    with pytest.raises(Exception):  # botocore refuses it too
        botocore_frames(body)


def test_good_frames_before_a_bad_one_in_the_same_read_are_not_lost():
    decoder = BodyDecoder(format="eventstream")
    assert decoder.feed(_flip(THIRD + 2)) == CHUNKS[:2]
    with pytest.raises(StreamError, match=f"frame at byte {THIRD}: prelude CRC32"):
        decoder.close()


@pytest.mark.parametrize("headers, payload, said", [
    ({":message-type": "event", ":event-type": "x"}, b"{not json", "payload is not JSON"),
    ({":message-type": "event"}, b"{}", "without a :event-type"),
    ({":message-type": "error", ":error-code": "InternalFailure"}, b"", "'error'"),
])
def test_frames_that_are_no_chunk_raise_naming_their_offset(headers, payload, said):
    body = BODY[:SECOND] + encode_frame(headers, payload)
    with pytest.raises(StreamError, match=f"frame at byte {SECOND}: .*{said}"):
        decode_body(body, format="eventstream")


def test_an_unknown_header_type_or_a_header_twice_is_malformed():
    good = encode_frame({"a": "b"}, b"{}")
    unknown = bytearray(good)
    unknown[12 + 2] = 10  # the type byte of header "a"
    twice = _with_raw_headers(b"\x01a\x07\x00\x01b" * 2)
    for body, said in ((_fix_crcs(bytes(unknown)), "has type 10"), (twice, "comes twice")):
        with pytest.raises(StreamError, match=f"frame at byte 0: .*{said}"):
            our_frames(body)


def _fix_crcs(frame: bytes) -> bytes:
    prelude = frame[:8] + struct.pack(">I", zlib.crc32(frame[:8]))
    body = prelude + frame[12:-4]
    return body + struct.pack(">I", zlib.crc32(body))


def _with_raw_headers(raw: bytes) -> bytes:
    return _fix_crcs(struct.pack(">II", 16 + len(raw), len(raw)) + b"\0" * 4 + raw + b"\0" * 4)


@pytest.mark.parametrize("cut", [3, 12, SECOND - 1, SECOND + 5])
def test_a_body_ending_inside_a_frame_raises_at_close(cut):
    decoder = BodyDecoder(format="eventstream")
    decoder.feed(BODY[:cut])
    start = 0 if cut < SECOND else SECOND
    with pytest.raises(StreamError, match=f"frame at byte {start}: the body ends inside"):
        decoder.close()


def test_an_empty_payload_is_an_empty_event_and_format_names_are_checked():
    empty = encode_frame({":message-type": "event", ":event-type": "x"}, b"")
    assert decode_body(empty, format="eventstream") == [{"x": {}}]
    with pytest.raises(ValueError, match="eventstream"):
        BodyDecoder(format="binary")

"""Replay one recorded body through a chain and describe what a client gets: the outcome.

The outcome is what a corpus snapshot pins: the wire, the native message the buffer assembled
(and the whole `stream=false` body where it differs), the display text, whether the stream
ended, the calls a `BaseDriver` finds in the message through the chain (text fall-through
included), and the history after each call ran once with a sample result; or the
`StreamError` raised and the message assembled before it.

`replay` also replays the body re-chunked (bytes in random pieces, fragment events merged,
fragment events split) and reports every variant whose outcome differs. Chunk positions are
the only thing allowed to change, so errors are compared without them.
"""
from __future__ import annotations

import copy
import difflib
import json
import random
import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from mcs_reference.buffer import LLMStreamBuffer
from mcs_reference.driver import BaseDriver
from mcs_reference.errors import ProviderError, StreamError
from mcs_reference.sse import BodyDecoder
from mcs_conformance.corpora import _rechunk as rechunk

__all__ = ["Mismatch", "comparable", "decode", "outcome", "replay", "wire_labels"]

MakeChain = Callable[[], Any]
_CHUNK_INDEX = re.compile(r"\bchunk \d+")


# -- decoding ----------------------------------------------------------------------------------
def decode(body: bytes, format: str | None = None) -> tuple[list, StreamError | None]:
    """The chunks of `body` and the error that stopped decoding (None if it did not stop).

    Fed one line at a time, so every event before a bad one is kept.
    """
    decoder = BodyDecoder(format=format)
    chunks: list = []
    try:
        for line in body.splitlines(keepends=True):
            chunks += decoder.feed(line)
        chunks += decoder.close()
    except StreamError as exc:
        return chunks, exc
    return chunks, None


def _then(chunks: Iterable, error: StreamError | None) -> Iterator:
    yield from chunks
    if error is not None:
        raise error


def _pieces(pieces: Iterable[bytes]) -> Iterator:
    """Chunks as a live client gets them: decoded from each piece as it arrives."""
    decoder = BodyDecoder()
    for piece in pieces:
        yield from decoder.feed(piece)
    yield from decoder.close()


# -- one outcome -------------------------------------------------------------------------------
def _name(strategy: Any) -> str | None:
    if strategy is None:
        return None
    return getattr(strategy, "name", None) or type(strategy).__name__


def _error(error: StreamError, during: str) -> dict:
    record = {"type": type(error).__name__, "message": str(error), "chunk": error.index,
              "during": during}
    if isinstance(error, ProviderError):
        record["provider_error"] = error.error
    return record


def _sample_tool(name: str) -> Callable[..., Any]:
    """A tool for any kind: keyword arguments (function), raw input (custom), or the call."""
    def tool(*args: Any, **arguments: Any) -> str:
        return f"sample result of {name}"

    return tool


def _call(call: Any) -> dict:
    """A call as the snapshot pins it; `kind` and `input` only for a non-function call, so
    the snapshots of function calls stay as they were."""
    record = {"name": call.name, "arguments": call.arguments, "id": call.id,
              "error": call.error, "raw_arguments": call.raw_arguments}
    kind = getattr(call, "kind", "function")
    if kind != "function":
        record["kind"] = kind
        record["input"] = getattr(call, "input", None)
    return record


def _run(stream: str, chunks: Iterable, make_chain: MakeChain) -> tuple[dict, StreamError | None]:
    buf = LLMStreamBuffer(make_chain())
    deltas: list[str] = []
    error: StreamError | None = None
    try:
        for chunk in chunks:
            deltas.append(buf.add(chunk))
    except StreamError as exc:
        error = exc
    message = buf.as_dict()
    result: dict[str, Any] = {"stream": stream, "wire": _name(buf.strategy), "done": buf.is_done(),
                              "display": "".join(deltas), "message": message}
    if error is not None:
        result["error"] = _error(error, "stream")
        return result, error
    response = buf.response()
    if response != message:
        result["response"] = response
    try:
        reader = make_chain().resolve(copy.deepcopy(message))
        found = BaseDriver(chain=make_chain(), foreign_calls="ignore").process_llm_response(
            copy.deepcopy(message))
        tools = {call.name: _sample_tool(call.name) for call in found.calls
                 if getattr(call, "kind", "function") in ("function", "custom")}
        handlers = {call.kind: _sample_tool(call.kind) for call in found.calls
                    if getattr(call, "kind", "function") not in ("function", "custom")}
        ran = BaseDriver(tools, chain=make_chain(), handlers=handlers).process_llm_response(
            copy.deepcopy(message))
    except StreamError as exc:
        result["error"] = _error(exc, "extraction")
        return result, exc
    result["read_by"] = _name(reader)
    result["calls"] = [_call(call) for call in found.calls]
    result["history"] = ran.messages
    return result, None


def outcome(stream: str, chunks: Iterable, make_chain: MakeChain,
            error: StreamError | None = None) -> dict:
    """The outcome of feeding `chunks` to a buffer, then failing with `error` (a decoding
    error that stopped the body) if one is given."""
    return _run(stream, _then(chunks, error), make_chain)[0]


def wire_labels(result: dict, make_chain: MakeChain) -> set[str]:
    """Names the outcome's wire may go by: the buffer's, and `text` when a text strategy read
    the stream or reads its message (text travels inside OpenAI Chat content deltas)."""
    labels = {result["wire"]} if result.get("wire") else set()
    chain = make_chain()
    text_names = {_name(s) for s in chain.text_strategies()}
    reader = result.get("read_by")
    if reader is None and result.get("message"):  # an error stream: who would read it so far
        try:
            reader = _name(chain.resolve(copy.deepcopy(result["message"])))
        except Exception:  # a strategy that cannot even look at it names no wire
            reader = None
    if result.get("wire") in text_names or reader in text_names:
        labels.add("text")
    return labels


# -- re-chunked replays ------------------------------------------------------------------------
@dataclass(frozen=True)
class Mismatch:
    """A re-chunked replay whose outcome differs from the plain replay."""

    how: str
    diff: list[str]

    def lines(self) -> list[str]:
        return [f"re-chunked ({self.how}), the outcome changes:", *self.diff]


def comparable(result: dict) -> dict:
    """The outcome without chunk positions (they move when events are merged or split)."""
    result = copy.deepcopy(result)
    error = result.get("error")
    if isinstance(error, dict):
        error.pop("chunk", None)
        error["message"] = _CHUNK_INDEX.sub("chunk N", error["message"])
    return result


def _diff(expected: dict, got: dict, limit: int = 60) -> list[str]:
    def dump(value: dict) -> list[str]:
        return json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False, default=repr).splitlines()

    lines = list(difflib.unified_diff(dump(expected), dump(got), "plain replay", "re-chunked",
                                      lineterm="", n=2))
    return lines if len(lines) <= limit else lines[:limit] + [f"... ({len(lines) - limit} more lines)"]


def replay(stream: str, body: bytes, make_chain: MakeChain) -> tuple[dict, list[Mismatch]]:
    """The outcome of `body` (SSE or NDJSON, detected), and the re-chunked replays that
    disagree with it.

    Events are only merged and split before the event that failed (the accepted prefix), so
    an error stream must fail the same way with the same message assembled before it.
    """
    chunks, decode_error = decode(body)
    result, error = _run(stream, _then(chunks, decode_error), make_chain)
    accepted, tail = chunks, []
    if error is not None and error is not decode_error and result["error"]["during"] == "stream":
        cut = error.index if error.index is not None else len(chunks)
        accepted, tail = chunks[:cut], chunks[cut:]
    rng = random.Random(stream)
    piece_rng = random.Random(f"bytes:{stream}")
    merged = rechunk.merged(accepted)
    split = rechunk.split(accepted, rng)
    variants = [
        ("the body fed to BodyDecoder in 1-16 byte pieces",
         _pieces(rechunk.byte_pieces(body, piece_rng))),
        (f"adjacent fragment events merged, {len(accepted)} -> {len(merged)} events",
         _then(merged + tail, decode_error)),
        (f"fragment events split in two, {len(accepted)} -> {len(split)} events",
         _then(split + tail, decode_error)),
    ]
    expected = comparable(result)
    mismatches = []
    for how, variant in variants:
        got = comparable(_run(stream, variant, make_chain)[0])
        if got != expected:
            mismatches.append(Mismatch(how, _diff(expected, got)))
    return result, mismatches

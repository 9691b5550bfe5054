"""Each wire's hot path (`_hot_path`, the fold of its commonest chunk, tried before the
general path) folds exactly as the general path, and a chunk that raises leaves no trace.

A strategy with its hot path and one with it switched off are fed the same chunks: they must
give the same display text or the same error at every chunk, and show the same message
after it; a chunk that raises must change nothing either shows. The chunks are every
single change of a chunk the hot path takes (each value replaced, each key deleted, a key
added to each object), after streams that leave the strategy in each state the hot path
looks at, and streams drawn from the kit's generators of the wire, spoiled in one place or
not.
"""
from __future__ import annotations

from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcs_conformance.wires import get_wire
from mcs_reference import bedrock_converse, gemini, ollama_chat, openai_chat
from mcs_reference._json import copy_json
from mcs_reference.errors import StreamError


def chat(*choices: dict, **top: Any) -> dict:
    return {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
            "choices": list(choices), **top}


def choice(delta: dict, index: int = 0) -> dict:
    return {"index": index, "delta": delta, "logprobs": None, "finish_reason": None}


CHAT_START = [chat(choice({"role": "assistant", "content": "Hi"})),
              chat(choice({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
                                           "function": {"name": "f", "arguments": ""}}]}))]
MORE_CONTENT = chat(choice({"content": " there"}), system_fingerprint="fp")
MORE_ARGUMENTS = chat(choice({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}))


def record(*parts: dict, **candidate: Any) -> dict:
    return {"candidates": [{"content": {"parts": list(parts), "role": "model"}, **candidate}],
            "usageMetadata": {"totalTokenCount": 9}, "modelVersion": "gemini-2.5-flash"}


MORE_TEXT = record({"text": " there"}, index=0)


def event(kind: str, **payload: Any) -> dict:
    return {kind: payload}


def delta(index: int, **value: Any) -> dict:
    return event("contentBlockDelta", contentBlockIndex=index, delta=value)


TOOL_START = [event("messageStart", role="assistant"),
              event("contentBlockStart", contentBlockIndex=0,
                    start={"toolUse": {"toolUseId": "t", "name": "f"}})]
TEXT_START = [event("messageStart", role="assistant"), delta(0, text="Hi")]
MORE_INPUT = delta(0, toolUse={"input": "{}"})


def ollama(content: str, done: bool = False, **top: Any) -> dict:
    return {"model": "m", "created_at": "2025-01-01T00:00:00Z",
            "message": {"role": "assistant", "content": content}, "done": done, **top}


# wire -> (module, strategy, scenes: (chunks before, a chunk the hot path may take)); the
# first scenes' chunks are the hot path's, the others' are refused for the state before.
HOT = {
    "openai-chat": (openai_chat, openai_chat.OpenAIChatStrategy, [
        (CHAT_START, MORE_CONTENT),
        (CHAT_START, MORE_ARGUMENTS),
        ([chat(choice({"content": "Hi"}), model="")], MORE_CONTENT),  # header still open
        (CHAT_START + [chat(choice({"content": "Hi"}, 1))], chat(choice({"content": "!"}, 1))),
    ]),
    "gemini": (gemini, gemini.GeminiStrategy, [
        ([record({"text": "Hi"})], MORE_TEXT),
        ([record({"text": "Hi", "thoughtSignature": "c2ln"})], MORE_TEXT),
        ([record({"text": "Hmm", "thought": True})], MORE_TEXT),
        ([record({"functionCall": {"name": "f", "willContinue": True}})], MORE_TEXT),
        ([record({"functionCall": {"name": "f", "args": {}}})], MORE_TEXT),
    ]),
    "bedrock-converse": (bedrock_converse, bedrock_converse.BedrockConverseStrategy, [
        (TOOL_START, MORE_INPUT),
        (TEXT_START, delta(0, text=" there")),
        (TOOL_START, delta(0, text=" there")),
        (TEXT_START, MORE_INPUT),
        (TEXT_START + [event("contentBlockStop", contentBlockIndex=0)], delta(0, text="!")),
        (TOOL_START + [event("messageStop", stopReason="tool_use")], MORE_INPUT),
        (TOOL_START + [event("metadata", usage={})], MORE_INPUT),
    ]),
    "ollama-chat": (ollama_chat, ollama_chat.OllamaChatStrategy, [
        ([ollama("Hi")], ollama(" there")),
        ([ollama("Hi"), ollama("", done=True)], ollama(" there")),
    ]),
}
HOT_SCENES = {"openai-chat": 2, "gemini": 1, "bedrock-converse": 2, "ollama-chat": 1}
VALUES = [None, True, False, 0, 1, -1, 2, 0.0, "", "x", [], {}, [{}]]


def places(value: Any, path: tuple = ()) -> list[tuple]:
    """The path of every value inside `value`, itself first."""
    found = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            found += places(item, (*path, key))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            found += places(item, (*path, position))
    return found


def at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def changes(chunk: dict, keys: list[str]) -> list:
    """Every chunk one change away from `chunk`: a value replaced, a key deleted, a key
    added to an object."""
    found = []
    for path in places(chunk):
        for value in VALUES:
            changed = copy_json(chunk)
            if path:
                at(changed, path[:-1])[path[-1]] = value
            else:
                changed = value
            found.append(changed)
        target = at(chunk, path)
        if path and isinstance(at(chunk, path[:-1]), dict):
            changed = copy_json(chunk)
            del at(changed, path[:-1])[path[-1]]
            found.append(changed)
        if isinstance(target, dict):
            for key in keys:
                for value in (None, "x", {}, 1):
                    changed = copy_json(chunk)
                    at(changed, path)[key] = value
                    found.append(changed)
    return found


def shown_by(strategy: Any, acc: Any) -> tuple:
    """All a strategy shows of a stream so far."""
    read = getattr(strategy, "as_response", strategy.as_message)
    return read(acc), strategy.forming_name_of(acc)


def outcomes(strategy: Any, chunks: list) -> list:
    """What each chunk gave (its display text or its error) and what the strategy shows
    after it; a chunk that raises must leave what it shows as it was."""
    acc = strategy.new_accumulator()
    seen = []
    for number, chunk in enumerate(chunks):
        before = shown_by(strategy, acc)
        try:
            seen.append(strategy.accumulate(acc, chunk))
        except StreamError as exc:
            seen.append((type(exc).__name__, str(exc)))
            assert shown_by(strategy, acc) == before, f"chunk {number} raised and left a trace"
        seen.append(shown_by(strategy, acc))
    return seen


def same_with_and_without(wire: str, chunks: list) -> None:
    module, strategy_class, _ = HOT[wire]
    with_hot_path = outcomes(strategy_class(), chunks)
    with mock.patch.object(module, "_hot_path", lambda acc, chunk: None):
        without = outcomes(strategy_class(), chunks)
    assert with_hot_path == without, chunks[-1]


@pytest.mark.parametrize("wire", sorted(HOT))
def test_the_hot_path_takes_the_commonest_chunks(wire):
    module, strategy_class, scenes = HOT[wire]
    real = module._hot_path
    for before, chunk in scenes[:HOT_SCENES[wire]]:
        strategy = strategy_class()
        acc = strategy.new_accumulator()
        for earlier in before:
            strategy.accumulate(acc, earlier)
        assert real(acc, copy_json(chunk)) is not None, chunk


@pytest.mark.parametrize("wire", sorted(HOT))
def test_every_change_of_a_hot_chunk_folds_as_the_general_path_and_leaves_no_trace(wire):
    _, _, scenes = HOT[wire]
    keys = sorted({place[-1] for before, chunk in scenes for earlier in [*before, chunk]
                   for place in places(earlier) if place and isinstance(place[-1], str)})
    for before, chunk in scenes:
        same_with_and_without(wire, [*before, chunk])
        for changed in changes(chunk, keys):
            same_with_and_without(wire, [*before, changed])


@st.composite
def spoiled_streams(draw, wire: str) -> list:
    """A stream the kit draws for `wire`, often with one value replaced or deleted."""
    chunks = [copy_json(chunk) for chunk in draw(get_wire(wire).cases()).chunks]
    if chunks and draw(st.integers(0, 2)):
        number = draw(st.integers(0, len(chunks) - 1))
        path = draw(st.sampled_from(places(chunks[number])))
        if not path:
            chunks[number] = draw(st.sampled_from(VALUES))
        elif draw(st.booleans()) and isinstance(at(chunks[number], path[:-1]), dict):
            del at(chunks[number], path[:-1])[path[-1]]
        else:
            at(chunks[number], path[:-1])[path[-1]] = draw(st.sampled_from(VALUES))
    return chunks


@pytest.mark.parametrize("wire", sorted(HOT))
def test_drawn_streams_fold_as_the_general_path_and_bad_chunks_leave_no_trace(wire):
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(spoiled_streams(wire))
    def check(chunks):
        same_with_and_without(wire, chunks)

    check()

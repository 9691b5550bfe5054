"""The OpenAI Chat Completions wire: assistant messages and the chunk streams that carry them.

The native message is `choices[0].message` as `stream=false` returns it: `role`, `content`,
`refusal`, `annotations`, and `tool_calls` only when there are calls (arguments kept as the
exact JSON text). A stream is a role chunk, content or refusal deltas, tool-call deltas, the
finish chunk, and optionally a usage-only trailing chunk (`choices: []`). The quirks of real
servers are drawn too: the first tool delta with `arguments: ""` or the whole arguments
(Groq, xAI), id and name in separate deltas (vLLM), continuations echoing `id: ""` (Alibaba),
parallel calls interleaved by index, several fragments in one chunk, empty deltas, the finish
reason on the last content chunk, usage on the finish chunk (DeepSeek), `obfuscation`.
"""
from __future__ import annotations

import copy
import json
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall

from ._base import Case, Wire, check_options, native_wire, pieces
from ._content import BASE62, arguments, json_texts, prose, token, tool_names, unique_tokens

__all__ = ["NAME", "case_of", "cases", "chunkings", "make_wire", "messages"]

NAME = "openai-chat"
MODELS = ("gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18", "gpt-5-2025-08-07", "deepseek-chat",
          "llama-3.3-70b-versatile", "qwen3-max")
REFUSALS = ("I'm sorry, I can't help with that.", "I can’t assist with that request.")


@st.composite
def _tool_calls(draw: Callable, count: int) -> list[dict]:
    ids = unique_tokens(draw, count, "call_", BASE62, 24)
    calls = []
    for call_id in ids:
        name = draw(tool_names())
        text = draw(json_texts(draw(arguments())))
        calls.append({"id": call_id, "type": "function",
                      "function": {"name": name, "arguments": text}})
    return calls


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3) -> dict:
    """Assistant messages as `stream=false` returns them: text, a refusal, or 1..n calls
    (with content `None`, `""` or text beside them)."""
    check_options(min_calls, max_calls)
    text = draw(prose())  # drawn first, so that shrinking the calls away keeps the text
    count = draw(st.integers(min_calls, max_calls))
    content: str | None = text
    refusal = None
    if count:
        content = draw(st.sampled_from((None, text, "")))
    elif draw(st.integers(0, 3)) == 3:  # a refusal, now and then
        content = None
        refusal = draw(st.one_of(st.sampled_from(REFUSALS), prose().filter(bool)))
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal,
                               "annotations": []}
    if count:
        message["tool_calls"] = draw(_tool_calls(count))
    return message


@st.composite
def _envelopes(draw: Callable) -> dict:
    """The fields every chunk of one stream repeats."""
    env: dict[str, Any] = {
        "id": "chatcmpl-" + draw(token(BASE62, 29)),
        "object": "chat.completion.chunk",
        "created": draw(st.integers(1_700_000_000, 1_900_000_000)),
        "model": draw(st.sampled_from(MODELS)),
    }
    if draw(st.booleans()):
        env["system_fingerprint"] = draw(st.one_of(st.none(), token(BASE62, 10).map("fp_".__add__)))
    if draw(st.booleans()):
        env["service_tier"] = "default"
    return env


@st.composite
def _usages(draw: Callable) -> dict:
    prompt, completion = draw(st.integers(1, 100_000)), draw(st.integers(1, 10_000))
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
    if draw(st.booleans()):
        usage["prompt_tokens_details"] = {"cached_tokens": 0, "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": 0, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
        }
    return usage


@st.composite
def _call_deltas(draw: Callable, calls: list[dict], max_cuts: int) -> list[dict]:
    """Tool-call deltas for `calls`, each `{"tool_calls": [entries]}`, in stream order."""
    if not calls:
        return []
    style = draw(st.sampled_from(("header-empty", "whole", "split")))
    echo = draw(st.booleans())  # continuations repeat `id: ""` and `type` (Alibaba)
    queues = []
    for index, call in enumerate(calls):
        name, text = call["function"]["name"], call["function"]["arguments"]
        if style == "whole":
            queue = [{"index": index, "id": call["id"], "type": "function",
                      "function": {"name": name, "arguments": text}}]
        else:
            if style == "header-empty":
                queue = [{"index": index, "id": call["id"], "type": "function",
                          "function": {"name": name, "arguments": ""}}]
            else:  # vLLM: id and type first, then the name alone
                queue = [{"index": index, "id": call["id"], "type": "function"},
                         {"index": index, "function": {"name": name}}]
            for part in draw(pieces(text, max_cuts=max_cuts)):
                entry: dict[str, Any] = {"index": index, "function": {"arguments": part}}
                if echo:
                    entry.update(id="", type="function")
                queue.append(entry)
        queues.append(queue)
    order = [entry for queue in queues for entry in queue]
    if len(calls) > 1 and draw(st.booleans()):  # interleave; a call starts after the previous
        order, taken, started = [], [0] * len(queues), 0
        while len(order) < sum(map(len, queues)):
            open_ = [i for i in range(min(started + 1, len(queues))) if taken[i] < len(queues[i])]
            pick = open_[draw(st.integers(0, len(open_) - 1))]
            order.append(queues[pick][taken[pick]])
            taken[pick] += 1
            started = max(started, pick + 1)
    group = draw(st.booleans())
    deltas: list[dict] = []
    for entry in order:
        if group and deltas and draw(st.booleans()):
            deltas[-1]["tool_calls"].append(entry)
        else:
            deltas.append({"tool_calls": [entry]})
    return deltas


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8) -> list[dict]:
    """The `chat.completion.chunk`s of one stream that carries `message`, cut at drawn points."""
    env = draw(_envelopes())
    usage_mode = draw(st.sampled_from(("none", "trailing", "finish")))
    usage = draw(_usages()) if usage_mode != "none" else None
    obfuscation = draw(token(BASE62, 16)) if draw(st.booleans()) else None
    content, refusal = message.get("content"), message.get("refusal")
    calls = message.get("tool_calls") or []
    if calls:
        reason = "tool_calls"
    elif refusal is not None:
        reason = "stop"
    else:
        reason = draw(st.sampled_from(("stop", "length")))

    role: dict[str, Any] = {"role": "assistant"}
    role["content"] = draw(st.sampled_from(("", None))) if content else content
    if refusal is not None:
        if draw(st.booleans()):
            role["refusal"] = ""
    elif draw(st.booleans()):
        role["refusal"] = None
    deltas: list[dict] = []
    if content:
        deltas += [{"content": part} for part in draw(pieces(content, max_cuts=max_cuts))]
    if refusal:
        deltas += [{"refusal": part} for part in draw(pieces(refusal, max_cuts=max_cuts))]
    deltas += draw(_call_deltas(calls, max_cuts))
    empties = ({}, {"content": ""}) if isinstance(content, str) else ({},)
    for _ in range(draw(st.integers(0, 2))):
        deltas.insert(draw(st.integers(0, len(deltas))), dict(draw(st.sampled_from(empties))))
    if deltas and draw(st.booleans()):  # role and first delta in one chunk (gpt-4o, Zhipu)
        role = {**role, **deltas.pop(0)}
    deltas.insert(0, role)

    def chunk(delta: dict, finish: str | None = None) -> dict:
        out = copy.deepcopy(env)
        if usage_mode == "trailing":
            out["usage"] = None
        out["choices"] = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]
        return out

    chunks = [chunk(delta) for delta in deltas]
    if draw(st.booleans()):  # the finish reason rides on the last delta (Mistral, Zhipu)
        chunks[-1]["choices"][0]["finish_reason"] = reason
    else:
        chunks.append(chunk(dict(draw(st.sampled_from(empties))), reason))
    if usage_mode == "finish":
        chunks[-1]["usage"] = copy.deepcopy(usage)
    elif usage_mode == "trailing":
        chunks.append({**copy.deepcopy(env), "choices": [], "usage": copy.deepcopy(usage)})
    if obfuscation is not None:
        for index, item in enumerate(chunks):
            item["obfuscation"] = obfuscation[: 1 + (index * 7) % len(obfuscation)]
    return chunks


def finish_index(chunks: list) -> int:
    """Index of the first chunk carrying a `finish_reason` (the stream's terminal chunk)."""
    for index, item in enumerate(chunks):
        if any(choice.get("finish_reason") for choice in item.get("choices") or ()):
            return index
    raise ValueError("no chunk carries a finish_reason")


def response_of(message: dict, chunks: list) -> dict:
    """The `chat.completion` body that `stream=false` returns for this stream."""
    head = chunks[0]
    done = chunks[finish_index(chunks)]["choices"][0]
    body: dict[str, Any] = {key: head[key] for key in ("id", "created", "model")}
    body["object"] = "chat.completion"
    for key in ("system_fingerprint", "service_tier"):
        if key in head:
            body[key] = head[key]
    body["choices"] = [{"index": 0, "message": copy.deepcopy(message), "logprobs": None,
                        "finish_reason": done["finish_reason"]}]
    usages = [item["usage"] for item in chunks if item.get("usage") is not None]
    if usages:
        body["usage"] = copy.deepcopy(usages[-1])
    return body


def calls_of(message: dict) -> list[ExtractedCall]:
    """What extraction must find: each call with its arguments parsed ("" means {})."""
    return [
        ExtractedCall(call["function"]["name"],
                      json.loads(call["function"]["arguments"] or "{}"), call["id"])
        for call in message.get("tool_calls") or ()
    ]


def case_of(message: dict, chunks: list) -> Case:
    """The `Case` for `message` carried by `chunks`."""
    return Case(
        wire=NAME,
        message=message,
        chunks=chunks,
        done_at=finish_index(chunks),
        calls=calls_of(message),
        text=message.get("content") or "",
        response=response_of(message, chunks),
    )


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8) -> Case:
    """Generated streams with the truth about them."""
    check_options(min_calls, max_calls, max_cuts)
    message = draw(messages(min_calls=min_calls, max_calls=max_calls))
    return case_of(message, draw(chunkings(message, max_cuts=max_cuts)))


def make_wire(**options: Any) -> Wire:
    """The OpenAI Chat wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options)

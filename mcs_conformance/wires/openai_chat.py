"""The OpenAI Chat Completions wire: assistant messages and the chunk streams that carry them.

The native message is `choices[0].message` as `stream=false` returns it: `role`, `content`,
`refusal`, `annotations`, `tool_calls` only when there are calls (arguments kept as the
exact JSON text), and `reasoning_content` where DeepSeek and xAI send it. OpenAI's own
stream (`quirks=frozenset()`) is a role chunk, content or refusal deltas (with `logprobs`
now and then), tool-call deltas (the first with `arguments: ""`), a late `annotations`
delta, the finish chunk, `obfuscation` on every chunk. Every other shape real servers send
is a named quirk (wires/_quirks.py, docs/quirks.md), drawn only when allowed and recorded in
`Case.quirks`. What only some requests get (several choices, the usage-only chunk,
`finish_reason: length`, `logprobs`, web search annotations) is drawn only for a request
asking it (`features`, wires/_features.py). With `errors=True` the stream ends in a provider
error instead.
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import call_from_json_text, ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires._base import (built_once, Case, check_options, draw_pieces,
                                         NATIVE_OPTIONS, native_wire, Tape, tapes, Wire)
from mcs_conformance.wires._content import (BASE62, draw_arguments, draw_opaque, draw_prose,
                                            draw_tool_name, positions, SOME_PROSE, spell,
                                            unique_tokens)
from mcs_conformance.wires._provider_errors import error_objects, error_tail
from mcs_conformance.wires._chat_modes import call_style, finish_mode, usage_place
from mcs_conformance.wires._features import asks, quirks_asked
from mcs_conformance.wires._quirks import allowed_quirks, maybe

__all__ = ["COVERAGE", "NAME", "STREAM_TAPES", "case_of", "cases", "chunkings", "make_wire",
           "messages", "stream"]

NAME = "openai-chat"
MODELS = ("gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18", "gpt-5-2025-08-07", "deepseek-chat",
          "llama-3.3-70b-versatile", "qwen3-max")
REFUSALS = ("I'm sorry, I can't help with that.", "I can’t assist with that request.")
_REFUSALS = st.one_of(st.sampled_from(REFUSALS), SOME_PROSE)
URLS = ("https://example.com/a", "https://en.wikipedia.org/wiki/Paris", "https://example.org/")

#: What this wire draws of the installed SDK's unions, and what it leaves out and why
#: (read by tests/kit/test_union_coverage.py).
COVERAGE = {
    "ChoiceDelta": {
        "drawn": {"role", "content", "refusal", "tool_calls"},
        "excluded": {
            "audio": "audio output is a separate modality (modalities=['audio']), not tool "
                     "calls or text; no recorded tool stream carries it",
            "function_call": "the deprecated functions API, replaced by tool_calls; no current "
                             "server streams it",
        },
    },
    "ChoiceDeltaToolCall": {"drawn": {"index", "id", "type", "function"}, "excluded": {}},
    "Choice": {"drawn": {"delta", "index", "finish_reason", "logprobs"}, "excluded": {}},
    "ChatCompletionChunk": {
        "drawn": {"id", "choices", "created", "model", "object", "moderation", "obfuscation",
                  "service_tier", "system_fingerprint", "usage"},
        "excluded": {},
    },
    "ChatCompletionMessageToolCallUnion": {
        "drawn": {"ChatCompletionMessageFunctionToolCall"},
        "excluded": {
            "ChatCompletionMessageCustomToolCall": "the SDK's stream delta has no form for "
            "it (ChoiceDeltaToolCall.type is Literal['function']) and no recorded stream "
            "carries one, so a streamed custom call has no shape to draw",
        },
    },
    "finish_reason": {
        "drawn": {"stop", "length", "tool_calls"},
        "excluded": {
            "content_filter": "ends a stream like stop; Azure-only, no recording",
            "function_call": "the deprecated functions API",
        },
    },
}


def _tool_calls(draw: Callable, count: int, allowed: frozenset) -> tuple[list[dict], set]:
    """`count` calls and the quirks they hold (drawn inside the message's generator)."""
    ids = unique_tokens(draw, count, "call_", BASE62, 24)
    calls, tags = [], set()
    for call_id in ids:
        name = draw_tool_name(draw)
        value = draw_arguments(draw)
        separators, escaped = draw(_call_styles("unicode-escaped-arguments" in allowed))
        text = json.dumps(value, separators=separators, ensure_ascii=escaped)
        if escaped and text != json.dumps(value, separators=separators, ensure_ascii=False):
            tags.add("unicode-escaped-arguments")
        calls.append({"id": call_id, "type": "function",
                      "function": {"name": name, "arguments": text}})
    return calls, tags


_SEPARATORS = ((", ", ": "), (",", ":"))


@lru_cache(maxsize=None)
def _call_styles(escaping: bool) -> st.SearchStrategy[tuple]:
    """`(separators, ensure_ascii)` of one call's arguments text, drawn as one value."""
    return st.sampled_from([(sep, escaped) for escaped in (False, True)[: 1 + escaping]
                            for sep in _SEPARATORS])


@built_once
@st.composite
def _message_and_tags(draw: Callable, min_calls: int, max_calls: int,
                      allowed: frozenset, features: frozenset | None = None) -> tuple[dict, set]:
    text = draw_prose(draw)  # drawn first, so that shrinking the calls away keeps the text
    count = draw(st.integers(min_calls, max_calls))
    tape = _MESSAGE_TAPES(draw)
    content: str | None = text
    refusal = None
    if count:
        content = tape.pick("content", (None, text, ""))
    elif tape.below("refusal", 4) == 3:  # a refusal, now and then
        content = None
        refusal = draw(_REFUSALS)
    annotations = []
    if content and tape.below("annotation", 6) == 5 and asks(features, "web_search"):
        # web search models cite their sources
        end = draw(positions(len(content)))
        annotations.append({"type": "url_citation", "url_citation": {
            "start_index": draw(positions(end)), "end_index": end,
            "url": tape.pick("url", URLS), "title": draw_prose(draw, max_fragments=2)}})
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal,
                               "annotations": annotations}
    tags: set = set()
    if count:
        message["tool_calls"], tags = _tool_calls(draw, count, allowed)
    if maybe(tape, allowed, "reasoning-content", 3):
        message["reasoning_content"] = draw_prose(draw, min_size=1)
        tags.add("reasoning-content")
    return message, tags


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, quirks=None,
             features: frozenset | None = None) -> dict:
    """Assistant messages as `stream=false` returns them: text, a refusal, or 1..n calls
    (with content `None`, `""` or text beside them); `quirks` and `features` as for `cases`."""
    check_options(min_calls, max_calls)
    allowed = quirks_asked(allowed_quirks(NAME, quirks), NAME, features)
    return draw(_message_and_tags(min_calls, max_calls, allowed, features))[0]


def _envelope(opaque: int, tape: Tape, allowed: frozenset) -> tuple[dict, bool]:
    """`(fields every chunk of one stream repeats, whether they are Snowflake's empty ones)`."""
    if maybe(tape, allowed, "empty-envelope", 6):  # Snowflake
        return {"id": "", "object": "chat.completion.chunk", "created": 0,
                "model": tape.pick("model", MODELS), "service_tier": "",
                "system_fingerprint": ""}, True
    env: dict[str, Any] = {
        "id": "chatcmpl-" + spell(opaque, BASE62, 29),
        "object": "chat.completion.chunk",
        "created": 1_700_000_000 + (opaque >> 8) % 200_000_000,
        "model": tape.pick("model", MODELS),
    }
    fingerprint = tape.below("system_fingerprint", 3)
    if fingerprint:
        env["system_fingerprint"] = "fp_" + spell(opaque >> 16, BASE62, 10) if fingerprint == 2 else None
    if tape.flip("service_tier"):
        env["service_tier"] = "default"
    return env, False


def _usage(opaque: int, detailed: bool) -> dict:
    prompt, completion = 1 + opaque % 100_000, 1 + (opaque >> 24) % 10_000
    usage: dict[str, Any] = {"prompt_tokens": prompt, "completion_tokens": completion,
                             "total_tokens": prompt + completion}
    if detailed:
        usage["prompt_tokens_details"] = {"cached_tokens": 0, "audio_tokens": 0}
        usage["completion_tokens_details"] = {
            "reasoning_tokens": 0, "audio_tokens": 0,
            "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0,
        }
    return usage


TURNS = 16  # slots for the turns of interleaved calls, reused round the clock beyond
# The small decisions of one message, and of one stream (or of one more choice in it).
_MESSAGE_TAPES = tapes(("content", "refusal", "annotation", "url", "reasoning-content"))
STREAM_TAPES = tapes((
    "empty-envelope", "model", "system_fingerprint", "usage-details", "service_tier", "usage", "obfuscation",
    "logprobs", "n-choices", "more-choices", "finish-reason", "no-object-field",
    "finish-reason-first-chunk", "role-content", "role-refusal", "no-index", "call-style",
    "empty-id-continuations", "empty-name-continuations", "empty-fragments",
    "interleaved-calls", "fragments-same-chunk", "empty-deltas", "role-merged", "finish",
    "finish-reason-twice", "x-groq-usage", "moderation-chunk", "azure-empty-first-chunk",
    "empty-fragment-at", "more-empty-deltas", "empty-delta-0-at", "empty-delta-0",
    "empty-delta-1-at", "empty-delta-1", *(f"turn-{turn}" for turn in range(TURNS))))


def _whole(index: int | None, call: dict) -> dict:
    entry = {"index": index, "id": call["id"], "type": "function",
             "function": dict(call["function"])}
    if index is None:
        del entry["index"]
    return entry


def _call_deltas(draw: Callable, calls: list[dict], max_cuts: int, allowed: frozenset,
                 tags: set, tape: Tape) -> list[dict]:
    """Tool-call deltas for `calls`, each `{"tool_calls": [entries]}`, in stream order."""
    if not calls:
        return []
    # Cut whatever the tape decides: a decision shrunk to the plainest then shifts no draw.
    cuts = [draw_pieces(draw, call["function"]["arguments"], max_cuts=max_cuts) for call in calls]
    style = call_style(tape, allowed)
    no_index = style == "no-index"
    if no_index:
        tags.add("no-index")
        queues = [[_whole(None, call)] for call in calls]
    else:
        echo_id = maybe(tape, allowed, "empty-id-continuations", 3)  # Alibaba
        echo_name = maybe(tape, allowed, "empty-name-continuations", 4)  # GLM
        empty = maybe(tape, allowed, "empty-fragments", 4)  # vLLM
        queues = []
        for index, call in enumerate(calls):
            name, parts = call["function"]["name"], cuts[index]
            if style == "whole-call-one-delta":
                tags.add(style)
                queues.append([_whole(index, call)])
                continue
            if style == "header-empty":
                queue = [{"index": index, "id": call["id"], "type": "function",
                          "function": {"name": name, "arguments": ""}}]
            else:
                tags.add(style)
                queue = [{"index": index, "id": call["id"], "type": "function"},
                         {"index": index, "function": {"name": name}}]
            if empty:
                parts.insert(tape.below("empty-fragment-at", len(parts) + 1), "")
                tags.add("empty-fragments")
            for part in parts:
                entry: dict[str, Any] = {"index": index, "function": {"arguments": part}}
                if echo_id:
                    entry.update(id="", type="function")
                    tags.add("empty-id-continuations")
                if echo_name:
                    entry["function"] = {"name": "", "arguments": part}
                    tags.add("empty-name-continuations")
                queue.append(entry)
            queues.append(queue)
    order = [entry for queue in queues for entry in queue]
    if len(calls) > 1 and not no_index and maybe(tape, allowed, "interleaved-calls"):
        # a call starts after the previous one did
        order, taken, started = [], [0] * len(queues), 0
        while len(order) < sum(map(len, queues)):
            open_ = [i for i in range(min(started + 1, len(queues))) if taken[i] < len(queues[i])]
            pick = open_[tape.below(f"turn-{len(order) % TURNS}", len(open_))]
            order.append(queues[pick][taken[pick]])
            taken[pick] += 1
            started = max(started, pick + 1)
        if [entry.get("index") for entry in order] != sorted(e.get("index") for e in order):
            tags.add("interleaved-calls")
    group = maybe(tape, allowed, "fragments-same-chunk")
    deltas: list[dict] = []
    for entry in order:
        if group and deltas and tape.flip(f"turn-{len(deltas) % TURNS}"):
            deltas[-1]["tool_calls"].append(entry)
            tags.add("fragments-same-chunk")
        else:
            deltas.append({"tool_calls": [entry]})
    return deltas


def _logprobs(part: str) -> dict:
    """One content token's log probability (values need not be drawn: no client reads them)."""
    token_ = {"token": part, "logprob": -round(0.013 * len(part), 4),
              "bytes": list(part.encode("utf-8", "surrogatepass")), "top_logprobs": []}
    return {"content": [token_], "refusal": None}


def _choice_deltas(draw: Callable, message: dict, max_cuts: int, allowed: frozenset,
                   tags: set, with_logprobs: bool, tape: Tape) -> list[tuple[dict, dict | None]]:
    """`(delta, logprobs)` pairs of one choice, its role delta first."""
    content, refusal = message.get("content"), message.get("refusal")
    role: dict[str, Any] = {"role": "assistant"}
    role["content"] = tape.pick("role-content", ("", None)) if content else content
    if refusal is not None:
        if tape.flip("role-refusal"):
            role["refusal"] = ""
    elif tape.flip("role-refusal"):
        role["refusal"] = None
    deltas: list[tuple[dict, dict | None]] = []
    reasoning = message.get("reasoning_content")
    if reasoning:
        deltas += [({"reasoning_content": part}, None)
                   for part in draw_pieces(draw, reasoning, max_cuts=max_cuts, allow_empty=False)]
    if content:
        deltas += [({"content": part}, _logprobs(part) if with_logprobs else None)
                   for part in draw_pieces(draw, content, max_cuts=max_cuts)]
    if refusal:
        deltas += [({"refusal": part}, None) for part in draw_pieces(draw, refusal, max_cuts=max_cuts)]
    deltas += [(delta, None) for delta in _call_deltas(draw, message.get("tool_calls") or [],
                                                       max_cuts, allowed, tags, tape)]
    if message.get("annotations"):
        deltas.append(({"annotations": copy_json(message["annotations"])}, None))
    if maybe(tape, allowed, "empty-deltas", 3):
        empties = ({}, {"content": ""}) if isinstance(content, str) else ({},)
        for number in range(1 + tape.below("more-empty-deltas", 2)):
            deltas.insert(tape.below(f"empty-delta-{number}-at", len(deltas) + 1),
                          (dict(tape.pick(f"empty-delta-{number}", empties)), None))
        tags.add("empty-deltas")
    if deltas and tape.flip("role-merged"):  # role and first delta in one chunk (gpt-4o, Zhipu)
        first, logprobs = deltas.pop(0)
        deltas.insert(0, ({**role, **first}, logprobs))
    else:
        deltas.insert(0, (role, None))
    return deltas


def _reason(tape: Tape, message: dict, features: frozenset | None) -> str:
    if message.get("tool_calls"):
        return "tool_calls"
    if message.get("refusal") is not None:
        return "stop"
    reason = tape.pick("finish-reason", ("stop", "length"))
    return reason if asks(features, "max_tokens") else "stop"


def _moderation() -> dict:
    results = {"type": "moderation_results", "model": "omni-moderation-latest", "results": []}
    return {"input": dict(results), "output": dict(results)}


def stream(draw: Callable, message: dict, max_cuts: int, allowed: frozenset,
           max_calls: int = 3, tape: Tape | None = None, features: frozenset | None = None
           ) -> tuple[list[dict], set, list[dict], list]:
    """`(chunks, quirks, messages of every choice, finish reasons)` of one stream carrying
    `message`, drawing only the `allowed` quirks and what a request asking `features` gets
    (the text wire uses it too); `tape` holds the stream's small decisions (None: drawn
    here). A function of `draw`, not a generator: one built for each message would be
    validated by Hypothesis each time."""
    tags: set = set()
    tape = tape or STREAM_TAPES(draw)
    # Drawn whatever the tape decides, so that shrinking a decision shifts no later draw.
    opaque = draw_opaque(draw)
    env, empty_envelope = _envelope(opaque, tape, allowed)
    if empty_envelope:
        tags.add("empty-envelope")
    usage_mode = usage_place(tape, allowed)
    usage = _usage(opaque, tape.flip("usage-details")) if usage_mode != "none" else None
    obfuscation = spell(opaque >> 64, BASE62, 16) if tape.flip("obfuscation") else None
    with_logprobs = tape.below("logprobs", 6) == 5 and asks(features, "logprobs")
    choices, tapes_ = [message], [tape]
    if maybe(tape, allowed, "n-choices", 8):
        for _ in range(1 + tape.below("more-choices", 2)):
            other, other_tags = draw(_message_and_tags(0, max_calls, allowed, features))
            choices.append(other)
            tapes_.append(STREAM_TAPES(draw))
            tags |= other_tags
        tags.add("n-choices")
    reasons = [_reason(lane, choice, features) for lane, choice in zip(tapes_, choices)]
    no_object = maybe(tape, allowed, "no-object-field", 6)

    def chunk(index: int, delta: dict, finish: str | None = None,
              logprobs: dict | None = None) -> dict:
        out = dict(env)  # the envelope's values are strings and numbers: a flat copy will do
        if no_object:
            out.pop("object", None)
        if usage_mode == "usage-only-chunk":
            out["usage"] = None
        out["choices"] = [{"index": index, "delta": delta, "logprobs": logprobs,
                           "finish_reason": finish}]
        return out

    ending = finish_mode(tape, allowed, len(choices) == 1)
    if ending == "finish-reason-first-chunk":  # Zhipu: the whole answer and finish reason at once
        delta: dict[str, Any] = {"role": "assistant"}
        for key in ("reasoning_content", "content", "refusal"):
            if message.get(key) is not None:
                delta[key] = message[key]
        if message.get("tool_calls"):
            delta["tool_calls"] = [_whole(i, call) for i, call in enumerate(message["tool_calls"])]
        if message.get("annotations"):
            delta["annotations"] = copy_json(message["annotations"])
        chunks = [chunk(0, delta, reasons[0])]
        tags.add("finish-reason-first-chunk")
    else:
        lanes = [_choice_deltas(draw, choice, max_cuts, allowed, tags, with_logprobs, lane)
                 for lane, choice in zip(tapes_, choices)]
        chunks = []
        taken, started = [0] * len(lanes), 0
        while any(taken[i] < len(lane) for i, lane in enumerate(lanes)):  # choice i+1 starts
            open_ = [i for i in range(min(started + 1, len(lanes)))  # after choice i did
                     if taken[i] < len(lanes[i])]
            pick = open_[draw(positions(len(open_) - 1))] if len(open_) > 1 else open_[0]
            delta, logprobs = lanes[pick][taken[pick]]
            taken[pick] += 1
            started = max(started, pick + 1)
            chunks.append(chunk(pick, delta, None, logprobs))
        if ending == "finish-reason-on-last-delta":
            chunks[-1]["choices"][0]["finish_reason"] = reasons[0]
            tags.add(ending)
        elif ending == "no-finish-reason":
            tags.add(ending)
            reasons = [None]
        else:
            for index, reason in enumerate(reasons):
                chunks.append(chunk(index, {}, reason))
    if len(choices) == 1 and "no-finish-reason" not in tags and maybe(
            tape, allowed, "finish-reason-twice", 6):
        again = {"role": "assistant", "content": ""} if isinstance(message["content"], str) else {}
        chunks.append(chunk(0, again, reasons[0]))
        tags.add("finish-reason-twice")
    if usage_mode == "usage-on-finish-chunk":
        chunks[-1]["usage"] = copy_json(usage)
        tags.add(usage_mode)
        if maybe(tape, allowed, "x-groq-usage", 3):
            chunks[-1]["x_groq"] = {"id": "req_" + spell(opaque >> 32, BASE62, 26),
                                    "usage": copy_json(usage)}
            tags.add("x-groq-usage")
    elif usage_mode == "usage-only-chunk":
        chunks.append({**dict(env), "choices": [], "usage": copy_json(usage)})
        tags.add(usage_mode)
        if maybe(tape, allowed, "moderation-chunk", 4):  # gpt-5
            chunks.append({**dict(env), "choices": [], "moderation": _moderation(),
                           "usage": None})
            tags.add("moderation-chunk")
        if no_object:
            for item in chunks[-2:]:
                item.pop("object", None)
    if no_object:
        tags.add("no-object-field")
    if obfuscation is not None:
        for index, item in enumerate(chunks):
            item["obfuscation"] = obfuscation[: 1 + (index * 7) % len(obfuscation)]
    if maybe(tape, allowed, "azure-empty-first-chunk", 8):
        chunks.insert(0, _azure_first())
        tags.add("azure-empty-first-chunk")
    return chunks, tags, choices, reasons


def _azure_first() -> dict:
    safe = {"filtered": False, "severity": "safe"}
    return {"choices": [], "created": 0, "id": "", "model": "", "object": "",
            "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {
                "hate": dict(safe), "self_harm": dict(safe), "sexual": dict(safe),
                "violence": dict(safe), "jailbreak": {"filtered": False, "detected": False}}}]}


@st.composite
def chunkings(draw: Callable, message: dict, *, max_cuts: int = 8, quirks=None,
              features: frozenset | None = None) -> list[dict]:
    """The `chat.completion.chunk`s of one stream that carries `message`, cut at drawn points
    (with `n-choices`, other choices are drawn beside it); `features` as for `cases`."""
    allowed = quirks_asked(allowed_quirks(NAME, quirks), NAME, features)
    return stream(draw, message, max_cuts, allowed, features=features)[0]


def finish_index(chunks: list) -> int:
    """Index of the first chunk carrying a `finish_reason` (the stream's terminal chunk);
    `len(chunks)` when none does: the end is the `[DONE]` after the chunks (Snowflake)."""
    for index, item in enumerate(chunks):
        if any(choice.get("finish_reason") for choice in item.get("choices") or ()):
            return index
    return len(chunks)


_HEAD = ("id", "created", "model")


def response_of(message: dict, chunks: list, choices: list | None = None,
                reasons: list | None = None) -> dict:
    """The `chat.completion` body that `stream=false` returns for this stream."""
    head = next((c for c in chunks if c.get("choices") or c.get("id")), chunks[0])
    body: dict[str, Any] = {key: head[key] for key in _HEAD}
    body["object"] = "chat.completion"
    for key in ("system_fingerprint", "service_tier"):
        if key in head:
            body[key] = head[key]
    for item in chunks:
        if not item.get("choices"):
            for key in ("moderation", "prompt_filter_results"):
                if item.get(key) is not None:
                    body[key] = copy_json(item[key])
    choices = choices or [message]
    if reasons is None:
        done = finish_index(chunks)
        reasons = [chunks[done]["choices"][0]["finish_reason"] if done < len(chunks) else None]
    logs: dict[int, Any] = {}
    for item in chunks:
        for choice in item.get("choices") or ():
            if choice.get("logprobs") is not None:
                slot = logs.setdefault(choice["index"], {"content": [], "refusal": None})
                slot["content"] += copy_json(choice["logprobs"]["content"])
    body["choices"] = [{"index": i, "message": copy_json(m), "logprobs": logs.get(i),
                        "finish_reason": reasons[i]} for i, m in enumerate(choices)]
    usages = [item["usage"] for item in chunks if item.get("usage") is not None]
    if usages:
        body["usage"] = copy_json(usages[-1])
    return body


def _call_of(call: dict) -> ExtractedCall:
    return call_from_json_text(call["function"]["name"], call["function"]["arguments"] or "{}",
                               call["id"])


def calls_of(message: dict) -> list[ExtractedCall]:
    """What extraction must find: each call with its arguments parsed ("" means {})."""
    return [_call_of(call) for call in message.get("tool_calls") or ()]


def case_of(message: dict, chunks: list, *, quirks: frozenset = frozenset(),
            choices: list | None = None, reasons: list | None = None) -> Case:
    """The `Case` for `message` carried by `chunks` (`choices`: every choice's message)."""
    return Case(
        wire=NAME,
        message=message,
        chunks=chunks,
        done_at=finish_index(chunks),
        calls=calls_of(message),
        text=message.get("content") or "",
        response=response_of(message, chunks, choices, reasons),
        quirks=frozenset(quirks),
    )


def _assembled(chunks: list) -> dict:
    """Choice 0's message as far as `chunks` carry it (what a stream cut by an error holds)."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None,
                               "annotations": []}
    calls: list[dict] = []
    for item in chunks:
        for choice in item.get("choices") or ():
            if choice["index"]:
                continue
            for key, value in choice["delta"].items():
                if key in ("content", "refusal", "reasoning_content") and value is not None:
                    message[key] = (message.get(key) or "") + value
                elif key == "annotations":
                    message["annotations"] += copy_json(value)
                elif key == "tool_calls":
                    for entry in value:
                        index = entry.get("index", len(calls))
                        if index == len(calls):
                            calls.append({"id": None, "type": "function",
                                          "function": {"name": "", "arguments": ""}})
                        call, function = calls[index], entry.get("function") or {}
                        call["id"] = call["id"] or entry.get("id") or None
                        call["function"]["name"] += function.get("name") or ""
                        call["function"]["arguments"] += function.get("arguments") or ""
    if calls:
        message["tool_calls"] = calls
    return message


def _error_case(draw: Callable, case: Case) -> Case:
    """`case` cut after a drawn prefix of its chunks and ended by a provider error (a plain
    function of `draw`: a generator built for each case would cost more than its draws)."""
    cut = draw(positions(min(case.done_at, len(case.chunks))))
    prefix = case.chunks[:cut]
    form, error = draw(error_objects(NAME))
    tail, error = error_tail(NAME, form, error, last=(prefix or case.chunks)[-1])
    message = _assembled(prefix)
    text = message.get("content") or ""
    chunks = copy_json(prefix) + tail
    return Case(wire=NAME, message=message, chunks=chunks, done_at=cut, calls=calls_of(message),
                text=text, response=None,
                quirks=case.quirks, error=error, error_at=cut)


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          quirks=None, errors: bool = False, features: frozenset | None = None) -> Case:
    """Generated streams with the truth about them. `quirks`: None allows every quirk of
    this wire, a set only those named (`frozenset()`: OpenAI's own stream); `features`: what
    the request can ask (wires/_features.py; None: every shape); `errors=True` ends every
    stream in a provider error after a drawn prefix."""
    check_options(min_calls, max_calls, max_cuts)
    allowed = quirks_asked(allowed_quirks(NAME, quirks), NAME, features)
    # Drawn first: Hypothesis fills what its first test cases do not draw at random with
    # the simplest choices, so decided after the message a quirk came out absent on some seeds.
    tape = STREAM_TAPES(draw)
    message, tags = draw(_message_and_tags(min_calls, max_calls, allowed, features))
    chunks, more, choices, reasons = stream(draw, message, max_cuts, allowed, max_calls, tape,
                                            features)
    case = case_of(message, chunks, quirks=tags | more, choices=choices, reasons=reasons)
    return _error_case(draw, case) if errors else case


def make_wire(**options: Any) -> Wire:
    """The OpenAI Chat wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       allowed=NATIVE_OPTIONS | {"quirks", "errors", "features"})

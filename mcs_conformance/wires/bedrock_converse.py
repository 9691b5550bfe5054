"""The Bedrock Converse wire: Converse responses and the `converse-stream` events that carry them.

The native message is the whole `Converse` response: `output.message` (`role: assistant`,
`content` blocks in order: reasoning (`reasoningContent`, its text and signature, or
redacted), text, `toolUse` with `input` an object), `stopReason`, `usage`, `metrics`. A
chunk is one decoded event as boto3's `converse_stream()` yields it, `{event type: payload}`;
the body carries each as a binary `application/vnd.amazon.eventstream` frame
(`wires/_framing.py`). A stream is `messageStart`, per block its deltas (a `contentBlockStart`
only for tool blocks) and `contentBlockStop`, then `messageStop` and the terminal `metadata`.
What differs between the models behind Converse is a named quirk (wires/_quirks.py,
docs/quirks.md): Claude's `""` first input delta and `type: tool_use`, Nova's whole input in
one delta, gpt-oss's lone empty text block, Kimi's `functions.NAME:N` ids, live servers' `p`
padding, a tool block with no delta at all. Reasoning and a stop at `max_tokens` are drawn
only for a request asking them (`features`, wires/_features.py). With `errors=True` the
stream ends in an exception event instead.
"""
from __future__ import annotations

import base64
import json
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import call_from_object, ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires._base import (Case, check_options, draw_pieces, NATIVE_OPTIONS,
                                         native_wire, Tape, tapes, Wire)
from mcs_conformance.wires._content import (BASE64, draw_arguments, draw_opaque, draw_prose,
                                            draw_tool_name, positions, spell)
from mcs_conformance.wires._features import asks
from mcs_conformance.wires._provider_errors import error_objects, error_tail
from mcs_conformance.wires._quirks import allowed_quirks, maybe

__all__ = ["COVERAGE", "NAME", "case_of", "cases", "chunkings", "make_wire", "messages"]

NAME = "bedrock-converse"
_ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

#: What this wire draws of botocore's service model (`bedrock-runtime`), and what it leaves
#: out and why (read by tests/kit/test_union_coverage.py).
COVERAGE = {
    "ConverseStreamOutput": {
        "drawn": {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
                  "messageStop", "metadata", "internalServerException",
                  "modelStreamErrorException", "validationException", "throttlingException",
                  "serviceUnavailableException"},
        "excluded": {},
    },
    "ContentBlock": {
        "drawn": {"text", "toolUse", "reasoningContent"},
        "excluded": {
            "image": "image output needs an image model, which takes no tools",
            "document": "a request-side block (a document the user sends)",
            "video": "a request-side block",
            "audio": "a request-side block",
            "toolResult": "in an answer only for server tools (Nova's code interpreter), "
                          "which the kit's requests never declare",
            "guardContent": "a request-side block (content a guardrail evaluates)",
            "cachePoint": "a request-side marker",
            "citationsContent": "needs citations enabled on a document the request sends",
            "searchResult": "a request-side block",
            "toolAddition": "a request-side block",
            "toolRemoval": "a request-side block",
        },
    },
    "ContentBlockDelta": {
        "drawn": {"text", "toolUse", "reasoningContent"},
        "excluded": {
            "toolResult": "server tools only, as toolResult blocks",
            "citation": "needs citations enabled on a document the request sends",
            "image": "image output, as above",
        },
    },
    "ContentBlockStart": {
        "drawn": {"toolUse"},
        "excluded": {"toolResult": "server tools only, as toolResult blocks",
                     "image": "image output, as above"},
    },
    "ReasoningContentBlockDelta": {"drawn": {"text", "signature", "redactedContent"},
                                   "excluded": {}},
    "ConverseStreamMetadataEvent": {
        "drawn": {"usage", "metrics"},
        "excluded": {"trace": "sent with a guardrail or trace enabled in the request",
                     "performanceConfig": "sent for a latency-optimized request only",
                     "serviceTier": "sent for a request naming a service tier only"},
    },
    "MessageStopEvent": {
        "drawn": {"stopReason"},
        "excluded": {"additionalModelResponseFields": "answers fields the request asks for "
                                                      "by name (additionalModelResponseFieldPaths)"},
    },
}

_TAPES = tapes((
    "empty-first-input-delta", "whole-input-one-delta", "tool-use-no-deltas", "tool-use-type",
    "padding-field", "empty-text-block", "kimi-tool-ids", "reasoning", "redacted",
    "signature", "stop-reason", "cache-usage", "padding-size"))


def _reasoning(draw: Callable, tape: Tape, opaque: int, asked: bool) -> list[dict]:
    """Zero or one reasoning block (only when the request `asked` for reasoning): its text
    and signature, or redacted content."""
    if not (tape.below("reasoning", 3) == 2 and asked):
        return []
    if tape.flip("redacted"):  # as recorded: base64 of the provider's own ASCII token
        token = spell(opaque % 64 ** 32, BASE64, 32).encode("ascii")
        return [{"reasoningContent": {"redactedContent": base64.b64encode(token).decode("ascii")}}]
    text = draw_prose(draw, min_size=1)
    reasoning: dict[str, Any] = {"text": text}
    if tape.below("signature", 4):
        reasoning["signature"] = spell((opaque >> 8) % 64 ** 40, BASE64, 40)
    return [{"reasoningContent": {"reasoningText": reasoning}}]


def _tool_id(opaque: int, number: int, name: str, kimi: bool) -> str:
    if kimi:  # as Kimi K2 names its calls behind Converse
        return f"functions.{name}:{number}"
    return "tooluse_" + spell(((opaque >> (30 * (number % 5))) + number) % 64 ** 22,
                              _ID_ALPHABET, 22)


def _body(draw: Callable, min_calls: int, max_calls: int, allowed: frozenset,
          features: frozenset | None = None) -> tuple[dict, set, Tape]:
    """A Converse response, the quirks it holds, and the tape of its stream's decisions;
    only what a request asking `features` gets."""
    tags: set = set()
    count = min_calls + draw(positions(max_calls - min_calls))
    tape = _TAPES(draw)
    opaque = draw_opaque(draw)
    text = draw_prose(draw)
    calls = [(draw_tool_name(draw), draw_arguments(draw)) for _ in range(count)]
    blocks: list[dict] = []
    if maybe(tape, allowed, "empty-text-block", 4):  # gpt-oss: a lone empty block first
        tags.add("empty-text-block")
        blocks.append({"text": ""})
    blocks += _reasoning(draw, tape, opaque, asks(features, "reasoning"))
    if text or not calls:
        blocks.append({"text": text})
    kimi = maybe(tape, allowed, "kimi-tool-ids")
    typed = maybe(tape, allowed, "tool-use-type")
    for number, (name, args) in enumerate(calls):
        tool: dict[str, Any] = {"toolUseId": _tool_id(opaque, number, name, kimi), "name": name,
                                "input": args}
        if typed:
            tool["type"] = "tool_use"
        blocks.append({"toolUse": tool})
    if calls:
        tags |= {"kimi-tool-ids"} if kimi else set()
        tags |= {"tool-use-type"} if typed else set()
    usage: dict[str, Any] = {"inputTokens": 10 + opaque % 900,
                             "outputTokens": 1 + (opaque >> 10) % 400}
    usage["totalTokens"] = usage["inputTokens"] + usage["outputTokens"]
    if tape.flip("cache-usage"):
        usage.update({"cacheReadInputTokens": 0, "cacheWriteInputTokens": 0})
    body = {"output": {"message": {"role": "assistant", "content": blocks}},
            "stopReason": "tool_use" if calls else tape.pick("stop-reason", (
                "end_turn", "max_tokens") if asks(features, "max_tokens") else ("end_turn",)),
            "usage": usage, "metrics": {"latencyMs": 100 + (opaque >> 20) % 5000}}
    return body, tags, tape


@st.composite
def messages(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, quirks=None,
             features: frozenset | None = None) -> dict:
    """Whole Converse responses: reasoning, text, 0..n tool blocks, usage and metrics;
    `features` as for `cases`."""
    check_options(min_calls, max_calls)
    return _body(draw, min_calls, max_calls, allowed_quirks(NAME, quirks), features)[0]


def _block_events(draw: Callable, tape: Tape, index: int, block: dict, max_cuts: int,
                  allowed: frozenset, tags: set) -> list[dict]:
    """The events of one content block: its start (tool blocks only), deltas and stop."""
    def delta(body: dict) -> dict:
        return {"contentBlockDelta": {"contentBlockIndex": index, "delta": body}}

    events: list[dict] = []
    if "text" in block:
        pieces = draw_pieces(draw, block["text"], max_cuts=max_cuts, allow_empty=False) or [""]
        events += [delta({"text": piece}) for piece in pieces]
    elif "reasoningContent" in block:
        reasoning = block["reasoningContent"]
        if "redactedContent" in reasoning:
            events.append(delta({"reasoningContent": {"redactedContent":
                                                      reasoning["redactedContent"]}}))
        else:
            text = reasoning["reasoningText"]
            events += [delta({"reasoningContent": {"text": piece}})
                       for piece in draw_pieces(draw, text["text"], max_cuts=max_cuts,
                                                allow_empty=False)]
            if "signature" in text:
                events.append(delta({"reasoningContent": {"signature": text["signature"]}}))
    else:
        tool = block["toolUse"]
        start = {key: tool[key] for key in ("toolUseId", "name", "type") if key in tool}
        events.append({"contentBlockStart": {"contentBlockIndex": index,
                                             "start": {"toolUse": start}}})
        events += _input_deltas(draw, tape, tool["input"], max_cuts, allowed, tags, delta)
    events.append({"contentBlockStop": {"contentBlockIndex": index}})
    return events


def _input_deltas(draw: Callable, tape: Tape, args: dict, max_cuts: int, allowed: frozenset,
                  tags: set, delta: Callable) -> list[dict]:
    """A tool block's input as JSON text deltas, as the model behind Converse sends it."""
    if not args and maybe(tape, allowed, "tool-use-no-deltas"):
        tags.add("tool-use-no-deltas")
        return []
    # a malformed call's input is its raw text (wires/_malformed.py), sent as it is
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False) if args else ""
    if args and maybe(tape, allowed, "whole-input-one-delta"):  # Nova, never Claude's "" first
        tags.add("whole-input-one-delta")
        return [delta({"toolUse": {"input": text}})]
    pieces = draw_pieces(draw, text, max_cuts=max_cuts, allow_empty=False) or [""]
    if maybe(tape, allowed, "empty-first-input-delta") and pieces != [""]:  # Claude
        tags.add("empty-first-input-delta")
        pieces = ["", *pieces]
    return [delta({"toolUse": {"input": piece}}) for piece in pieces]


def _padded(events: list[dict], tape: Tape) -> list[dict]:
    """Live servers' `p` field, a run of letters, in every payload (botocore drops it)."""
    size = 1 + tape.below("padding-size", len(_PADDING))
    out = []
    for number, event in enumerate(events):
        (kind, payload), = event.items()
        out.append({kind: {**payload, "p": _PADDING[:1 + (size * (number + 3)) % len(_PADDING)]}})
    return out


def _chunks(draw: Callable, tape: Tape, body: dict, max_cuts: int, allowed: frozenset,
            tags: set) -> tuple[list[dict], list[int]]:
    """The events of one stream carrying `body`, and the positions where no block is open
    (where an error case may cut it)."""
    events = [{"messageStart": {"role": "assistant"}}]
    whole = [1]
    for index, block in enumerate(body["output"]["message"]["content"]):
        events += _block_events(draw, tape, index, block, max_cuts, allowed, tags)
        whole.append(len(events))
    events.append({"messageStop": {"stopReason": body["stopReason"]}})
    events.append({"metadata": {"usage": copy_json(body["usage"]),
                                "metrics": copy_json(body["metrics"])}})
    if maybe(tape, allowed, "padding-field"):
        tags.add("padding-field")
        events = _padded(events, tape)
    return events, whole


@st.composite
def chunkings(draw: Callable, body: dict, *, max_cuts: int = 8, quirks=None,
              features: frozenset | None = None) -> list[dict]:
    """The events of one stream that carries `body`, cut at drawn points
    (`features`: no shape of the stream is tied to one; the body holds them all)."""
    tape = _TAPES(draw)
    return _chunks(draw, tape, body, max_cuts, allowed_quirks(NAME, quirks), set())[0]


def calls_of(body: dict) -> list[ExtractedCall]:
    """The calls of a response as `extract` must return them."""
    return [call_from_object(block["toolUse"]["name"], block["toolUse"]["input"],
                             block["toolUse"]["toolUseId"])
            for block in body["output"]["message"]["content"] if "toolUse" in block]


def text_of(body: dict) -> str:
    return "".join(block["text"] for block in body["output"]["message"]["content"]
                   if "text" in block)


def case_of(body: dict, chunks: list, *, quirks: frozenset = frozenset()) -> Case:
    """The `Case` for `body` carried by `chunks` (the terminal event: `metadata`)."""
    done_at = next((i for i, chunk in enumerate(chunks) if "metadata" in chunk), len(chunks))
    return Case(wire=NAME, message=body, chunks=chunks, done_at=done_at, calls=calls_of(body),
                text=text_of(body), response=copy_json(body), quirks=frozenset(quirks))


def _error_case(draw: Callable, case: Case, whole: list[int]) -> Case:
    """`case` cut where no block is open, then an exception event."""
    cut = whole[draw(positions(len(whole) - 1))]
    prefix = copy_json(case.chunks[:cut])
    form, error = draw(error_objects(NAME))
    tail, error = error_tail(NAME, form, error)
    blocks = case.message["output"]["message"]["content"][:whole.index(cut)]
    body = {"output": {"message": {"role": "assistant", "content": copy_json(blocks)}}}
    return Case(wire=NAME, message=body, chunks=prefix + tail, done_at=cut,
                calls=calls_of(body), text=text_of(body), response=None,
                quirks=case.quirks, error=error, error_at=cut)


@st.composite
def cases(draw: Callable, *, min_calls: int = 0, max_calls: int = 3, max_cuts: int = 8,
          quirks=None, errors: bool = False, features: frozenset | None = None) -> Case:
    """Generated streams with the truth about them. `quirks`: None allows every Converse
    quirk, a set only those named (`frozenset()`: Claude on Converse without them);
    `features`: what the request can ask (wires/_features.py; None: every shape);
    `errors=True` ends every stream in an exception event after a drawn prefix."""
    check_options(min_calls, max_calls, max_cuts)
    allowed = allowed_quirks(NAME, quirks)
    body, tags, tape = _body(draw, min_calls, max_calls, allowed, features)
    chunks, whole = _chunks(draw, tape, body, max_cuts, allowed, tags)
    case = case_of(body, chunks, quirks=tags)
    return _error_case(draw, case, whole) if errors else case


def make_wire(**options: Any) -> Wire:
    """The Bedrock Converse wire; `options` become defaults of `messages` and `cases`."""
    return native_wire(NAME, messages, cases, options,
                       allowed=NATIVE_OPTIONS | {"quirks", "errors", "features"})

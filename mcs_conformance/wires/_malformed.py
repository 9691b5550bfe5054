"""Streams and messages with one call whose arguments are not a JSON object.

Drawn by `extract.malformed` (a strategy must surface the call with its error set) and by
`client.malformed` (a client must surface the raw string or an error); one module so both
judge the same malformed calls.
"""
from __future__ import annotations

import json

from hypothesis import strategies as st

from mcs_reference.calls import ExtractedCall
from mcs_conformance.base import copy_json
from mcs_conformance.wires._base import draw_pieces
from mcs_conformance.wires._content import one_of_these, positions
from mcs_conformance.wires._handmade import simple_calls

__all__ = ["BAD_TEXTS", "bad_call", "cut_by_max_tokens", "malformed_message"]

BAD_TEXTS = ('{"city": ', "not json", "[1, 2]", '"text"', '{"a": 1}}', "null", "{'a': 1}")


def bad_call(name: str, id: str | None) -> ExtractedCall:
    """The call as extract() must surface it: no arguments, its error set."""
    return ExtractedCall(name, {}, id, error="malformed arguments")


@st.composite
def malformed_message(draw, wire_) -> tuple:
    """A native message with one call whose arguments are not a JSON object (Gemini: an
    answer stopped with `MALFORMED_FUNCTION_CALL`, whose failed call has no name)."""
    case = draw(wire_.cases())
    message = copy_json(case.message)
    name, bad = draw(simple_calls(max_size=1))[0].name, draw(one_of_these(tuple(BAD_TEXTS)))
    expected = list(case.calls)
    if wire_.name == "openai-chat":
        entries = message.get("tool_calls") or []
        at = draw(positions(len(entries)))
        entries.insert(at, {"id": "call_bad", "type": "function",
                            "function": {"name": name, "arguments": bad}})
        message["tool_calls"] = entries
        expected.insert(at, bad_call(name, "call_bad"))
    elif wire_.name == "openai-responses":
        output = message["output"]
        at = draw(positions(len(output)))
        output.insert(at, {"type": "function_call", "id": "fc_bad", "status": "completed",
                           "arguments": bad, "call_id": "call_bad", "name": name})
        # the calls before it: every client-run kind counts (case.calls keeps their order)
        before = sum(1 for item in output[:at] if item.get("call_id") in
                     {call.id for call in case.calls})
        expected.insert(before, bad_call(name, "call_bad"))
    elif wire_.name == "bedrock-converse":  # the input's JSON text, as streamed, is broken
        content = message["output"]["message"]["content"]
        at = draw(positions(len(content)))
        content.insert(at, {"toolUse": {"toolUseId": "tooluse_bad", "name": name, "input": bad}})
        message["stopReason"] = "tool_use"
        before = sum(1 for block in content[:at] if "toolUse" in block)
        expected.insert(before, bad_call(name, "tooluse_bad"))
    elif wire_.name == "gemini":  # no call comes: the answer stops MALFORMED_FUNCTION_CALL
        candidate = message["candidates"][0]
        kept = [p for p in candidate["content"].get("parts", []) if "functionCall" not in p]
        candidate["content"].pop("parts", None)
        if kept:
            candidate["content"]["parts"] = kept
        candidate["finishReason"] = "MALFORMED_FUNCTION_CALL"
        candidate["finishMessage"] = f"Malformed function call: {name}({bad})"
        expected = [bad_call("", None)]
    else:  # ollama-chat: arguments are an object; a string that is not JSON is malformed
        entries = message["message"].setdefault("tool_calls", [])
        function = {"name": name, "arguments": bad}
        if any("index" in e.get("function", {}) for e in entries):
            function["index"] = len(entries)
        entry = {"function": function}
        if any("id" in e for e in entries):
            entry = {"id": "call_bad", "function": function}
        entries.append(entry)
        expected.append(bad_call(name, entry.get("id")))
    return message, expected, bad


@st.composite
def cut_by_max_tokens(draw, wire_) -> tuple:
    """An Anthropic stream whose tool_use input is cut by max_tokens: no content_block_stop,
    invalid partial JSON, then message_delta (stop_reason max_tokens) and message_stop."""
    case = draw(wire_.cases())
    start = copy_json(case.chunks[0])
    index = len(start["message"]["content"])
    call = draw(simple_calls(max_size=1))[0]
    text = json.dumps(call.arguments or {"city": "Paris"})
    cut = text[: draw(st.integers(1, len(text) - 1))]
    call_id = "toolu_01" + "A" * 22
    events = [start, {"type": "content_block_start", "index": index,
                      "content_block": {"type": "tool_use", "id": call_id, "name": call.name,
                                        "input": {}}}]
    events += [{"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": part}}
               for part in draw_pieces(draw, cut)]
    events.append({"type": "message_delta",
                   "delta": {"stop_reason": "max_tokens", "stop_sequence": None},
                   "usage": {"output_tokens": 4096}})
    events.append({"type": "message_stop"})
    return events, bad_call(call.name, call_id), cut

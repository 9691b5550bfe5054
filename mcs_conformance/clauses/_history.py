"""History clauses: what `result_messages` appends is a valid request, and loses nothing."""
from __future__ import annotations

import json
from collections import Counter
from typing import Any, Callable

from hypothesis import strategies as st

from mcs_reference.calls import ToolCallRecord
from mcs_conformance.base import copy_json, schema, show
from mcs_conformance.clauses._compare import first_difference
from mcs_conformance.clauses._registry import clause, Subject
from mcs_conformance.clauses._runner import check_each
from mcs_conformance.clauses._subjects import cases_with_calls, wire_name
from mcs_conformance.wires import positions, REWRITABLE

_results = st.one_of(
    st.just("ok"), st.none(), st.booleans(), st.integers(-1000, 1000),
    st.text(max_size=12), st.dictionaries(st.sampled_from(("temp", "items", "é")),
                                          st.integers(0, 9), max_size=2),
    st.lists(st.integers(0, 9), max_size=3),
)


@st.composite
def _cases_and_records(draw: Callable, wire_: Any) -> tuple:
    """A case and one record per call: a small JSON result, or now and then an error."""
    case = draw(cases_with_calls(wire_))
    records = []
    for call in case.calls:
        if draw(positions(4)) == 4:
            records.append(ToolCallRecord(call.name, dict(call.arguments), None,
                                          "tool raised ValueError: boom", call.id))
        else:
            records.append(ToolCallRecord(call.name, dict(call.arguments), draw(_results),
                                          None, call.id))
    return case, records


def _has_request_schema(subject: Subject) -> bool:
    return subject.wire is not None and bool(getattr(subject.wire, "request_schema", None))


@clause(
    "history.schema",
    level="MUST",
    meaning="After calls ran, every message result_messages() returns is a valid request "
            "message of the wire (its JSON Schema in the kit).",
    failure_means="The provider rejects the next request with a 400 after the calls ran.",
    typical_bug="The assistant turn sent back in response shape (output-only fields, empty "
                "text blocks, arguments as an object where a string is required); results "
                "without the call id.",
    applies=_has_request_schema,
)
def schema_valid(subject: Subject) -> None:
    strategy = subject.strategy
    request_schema = subject.wire.request_schema
    schema.validator(request_schema)  # a missing schema is the kit's error, raised up front

    def prop(drawn):
        case, records = drawn
        history = strategy.result_messages(copy_json(case.message), records)
        if not isinstance(history, list):
            raise schema_valid.fail(f"result_messages() returned {show(history)}, expected a "
                                    f"list of request messages", case)
        for index, message in enumerate(history):
            problems = schema.errors(message, request_schema)
            if problems:
                raise schema_valid.fail(
                    f"history message {index} {show(message)} is not a valid {subject.wire.name} "
                    f"request message ({request_schema}): {'; '.join(problems[:3])}", case)

    check_each(schema_valid, subject, _cases_and_records(subject.wire), prop)


# -- lossless ------------------------------------------------------------------------------
def _arguments(text: Any) -> Any:
    if isinstance(text, str):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _result_ids(ids: list, found: list, what: str) -> str | None:
    expected, got = Counter(ids), Counter(found)
    if expected != got:
        return (f"expected exactly one {what} per call, with ids {sorted(map(str, ids))}, "
                f"got ids {sorted(map(str, found))}")
    return None


def _openai_chat(case: Any, history: list) -> str | None:
    turn, message = history[0], case.message
    content = turn.get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    if (content or "") != case.text:
        return f"the assistant turn's content is {show(content)}, expected {show(case.text)}"
    if message.get("refusal") is not None and turn.get("refusal") != message["refusal"]:
        return f"the assistant turn's refusal is {show(turn.get('refusal'))}, expected " \
               f"{show(message['refusal'])}"

    def views(entries: Any) -> list:
        return [{"id": e.get("id"), "name": e.get("function", {}).get("name"),
                 "arguments": _arguments(e.get("function", {}).get("arguments"))}
                for e in entries or []]

    found = first_difference(views(message.get("tool_calls")), views(turn.get("tool_calls")),
                             "assistant turn.tool_calls")
    if found:
        return found
    return _result_ids([c.id for c in case.calls],
                       [m.get("tool_call_id") for m in history[1:] if m.get("role") == "tool"],
                       "tool message")


def _anthropic_view(block: Any) -> Any:
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    fields = {"text": ("text",), "thinking": ("thinking", "signature"),
              "redacted_thinking": ("data",), "tool_use": ("id", "name", "input")}.get(kind)
    if fields is None:
        return block
    return {"type": kind, **{key: block.get(key) for key in fields}}


def _not_empty_text(block: Any) -> bool:
    return not (isinstance(block, dict) and block.get("type") == "text" and not block.get("text"))


def _anthropic(case: Any, history: list) -> str | None:
    turn = history[0]
    content = turn.get("content")
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    expected = [_anthropic_view(b) for b in case.message["content"] if _not_empty_text(b)]
    got = [_anthropic_view(b) for b in content or [] if _not_empty_text(b)]
    for want, have in zip(expected, got):
        # a tool_use cut by max_tokens keeps its unfinished JSON as text, which a request
        # cannot hold (its input is an object): any object goes back in its place
        if (isinstance(want, dict) and want["type"] == "tool_use"
                and isinstance(want["input"], str) and isinstance(have, dict)
                and have["type"] == "tool_use" and isinstance(have["input"], dict)):
            have["input"] = want["input"]
    found = first_difference(expected, got, "assistant turn.content")
    if found:
        return found
    results = [b.get("tool_use_id") for m in history[1:] if isinstance(m.get("content"), list)
               for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    return _result_ids([c.id for c in case.calls], results, "tool_result block")


def _responses_view(item: Any) -> Any:
    if not isinstance(item, dict):
        return item
    kind = item.get("type")
    if kind == "reasoning":
        view = {"type": kind, "id": item.get("id"),
                "summary": [p.get("text") for p in item.get("summary") or []]}
        if "encrypted_content" in item:
            view["encrypted_content"] = item["encrypted_content"]
        return view
    if kind == "message":
        return {"type": kind, "content": [(p.get("type"), p.get("text", p.get("refusal")))
                                          for p in item.get("content") or []]}
    if kind == "function_call":
        return {"type": kind, "call_id": item.get("call_id"), "name": item.get("name"),
                "arguments": _arguments(item.get("arguments"))}
    return item


def _responses(case: Any, history: list) -> str | None:
    # the turn is the output echoed; the results follow it, one output item per record
    turn = history[:len(case.message["output"])]
    expected = [_responses_view(item) for item in case.message["output"]]
    found = first_difference(expected, [_responses_view(item) for item in turn],
                             "history items")
    if found:
        return found
    results = [item.get("id" if item.get("type") == "local_shell_call_output" else "call_id")
               for item in history[len(turn):] if str(item.get("type")).endswith("_output")]
    return _result_ids([c.id for c in case.calls], results, "output item")


def _ollama(case: Any, history: list) -> str | None:
    turn, message = history[0], case.message["message"]
    if turn.get("content") != message.get("content"):
        return f"the assistant turn's content is {show(turn.get('content'))}, expected " \
               f"{show(message.get('content'))}"
    if message.get("thinking") and turn.get("thinking") != message["thinking"]:
        return f"the assistant turn's thinking is {show(turn.get('thinking'))}, expected " \
               f"{show(message['thinking'])}"

    def views(entries: Any) -> list:
        return [{"name": e.get("function", {}).get("name"),
                 "arguments": e.get("function", {}).get("arguments") or {}}
                for e in entries or []]

    found = first_difference(views(message.get("tool_calls")), views(turn.get("tool_calls")),
                             "assistant turn.tool_calls")
    if found:
        return found
    results = [m for m in history[1:] if m.get("role") == "tool"]
    if len(results) != len(case.calls):
        return f"expected exactly one tool message per call ({len(case.calls)}), got " \
               f"{len(results)}"
    for call, result in zip(case.calls, results):
        if "tool_name" in result and result["tool_name"] != call.name:
            return f"the tool message {show(result)} answers {result['tool_name']!r}, " \
                   f"expected {call.name!r}"
        if call.id is not None and "tool_call_id" in result and result["tool_call_id"] != call.id:
            return f"the tool message {show(result)} answers id {result['tool_call_id']!r}, " \
                   f"expected {call.id!r}"
    return None


def _text(case: Any, history: list) -> str | None:
    turn = history[0]
    if turn.get("content") != case.message.get("content"):
        return f"the assistant turn's content is {show(turn.get('content'))}, expected the " \
               f"whole text {show(case.message.get('content'))}"
    if case.calls and len(history) < 2:
        return f"no result message follows the assistant turn for {len(case.calls)} call(s)"
    return None


def _gemini(case: Any, history: list) -> str | None:
    # the model's content echoed with its signatures; one user content of functionResponses
    parts = case.message["candidates"][0]["content"].get("parts", [])
    turn = history[0]
    if turn.get("role") != "model" or turn.get("parts") != parts:
        return f"the model turn is {show(turn)}, expected role 'model' and the parts " \
               f"{show(parts)} unchanged (thoughtSignature included)"
    responses = [p.get("functionResponse") for m in history[1:] for p in m.get("parts") or ()
                 if isinstance(p, dict) and "functionResponse" in p]
    if len(responses) != len(case.calls):
        return f"expected one functionResponse per call ({len(case.calls)}), got {len(responses)}"
    for call, response in zip(case.calls, responses):
        if not isinstance(response, dict) or response.get("name") != call.name:
            return f"the functionResponse {show(response)} answers another call than {call.name!r}"
        if call.id is not None and response.get("id") != call.id:
            return f"the functionResponse {show(response)} answers id {response.get('id')!r}, " \
                   f"expected {call.id!r}"
    return None


def _bedrock(case: Any, history: list) -> str | None:
    # the assistant turn is the answer's blocks as they came; one user turn of toolResults
    blocks = case.message["output"]["message"]["content"]
    turn = history[0]
    if turn.get("role") != "assistant" or turn.get("content") != blocks:
        return f"the assistant turn is {show(turn)}, expected role 'assistant' and the blocks " \
               f"{show(blocks)} unchanged (reasoning signatures included)"
    results = [b["toolResult"].get("toolUseId") for m in history[1:]
               for b in m.get("content") or () if isinstance(b, dict) and "toolResult" in b]
    return _result_ids([c.id for c in case.calls], results, "toolResult block")


_CHECKS = {"openai-chat": _openai_chat, "anthropic-messages": _anthropic,
           "openai-responses": _responses, "ollama-chat": _ollama, "gemini": _gemini,
           "bedrock-converse": _bedrock}


def _knows_history(subject: Subject) -> bool:
    if subject.wire is None:
        return False
    return subject.is_text or wire_name(subject) in REWRITABLE


@clause(
    "history.lossless",
    level="MUST",
    meaning="The assistant turn in the history keeps all of the message (text, thinking with "
            "signatures, redacted thinking, reasoning items, every call with id, name and "
            "arguments), followed by exactly one result per call with the matching id.",
    failure_means="The next request loses the model's reasoning (rejected, or answered worse), "
                  "or the provider cannot match results to calls.",
    typical_bug="A thinking block's signature dropped; reasoning items left out; the assistant "
                "turn rebuilt from extracted calls only; results keyed by name.",
    applies=_knows_history,
)
def lossless(subject: Subject) -> None:
    strategy = subject.strategy
    check = _text if subject.is_text else _CHECKS[wire_name(subject)]

    def prop(drawn):
        case, records = drawn
        history = strategy.result_messages(copy_json(case.message), records)
        if not isinstance(history, list) or not history or not all(
                isinstance(m, dict) for m in history):
            raise lossless.fail(f"result_messages() returned {show(history)}, expected a "
                                f"non-empty list of messages", case)
        why = check(case, history)
        if why:
            raise lossless.fail(f"result_messages(): {why}", case)

    check_each(lossless, subject, _cases_and_records(subject.wire), prop)


# -- output kinds ---------------------------------------------------------------------------
# The Responses input item that answers each client-run call kind, and its id field.
_OUTPUT_OF_KIND = {
    "function": ("function_call_output", "call_id"),
    "custom": ("custom_tool_call_output", "call_id"),
    "computer": ("computer_call_output", "call_id"),
    "local_shell": ("local_shell_call_output", "id"),
    "shell": ("shell_call_output", "call_id"),
    "apply_patch": ("apply_patch_call_output", "call_id"),
}


@st.composite
def _kinds_and_records(draw: Callable, wire_: Any) -> tuple:
    """A case with calls of several kinds, and one record per call naming its kind."""
    case = draw(cases_with_calls(wire_).filter(
        lambda case: any(getattr(call, "kind", "function") != "function"
                         for call in case.calls)))
    records = [ToolCallRecord(call.name, dict(call.arguments), draw(_results), None, call.id,
                              kind=call.kind) for call in case.calls]
    return case, records


@clause(
    "history.output-kinds",
    level="MUST",
    meaning="result_messages() answers each call with its kind's output item "
            "(function_call_output, custom_tool_call_output, computer_call_output, "
            "local_shell_call_output, shell_call_output, apply_patch_call_output) carrying "
            "the call's id.",
    failure_means="The next request is refused (a custom tool answered as a function), or "
                  "the model never sees the result of its computer, shell or patch call.",
    typical_bug="Every result written as function_call_output; the output item's id left "
                "out or taken from the item id instead of the call id.",
    applies=lambda subject: wire_name(subject) == "openai-responses",
)
def output_kinds(subject: Subject) -> None:
    strategy = subject.strategy

    def prop(drawn):
        case, records = drawn
        history = strategy.result_messages(copy_json(case.message), records)
        if not isinstance(history, list):
            raise output_kinds.fail(f"result_messages() returned {show(history)}", case)
        keys = {kind: key for kind, key in _OUTPUT_OF_KIND.values()}
        written = {(item.get("type"), item.get(keys.get(item.get("type"), "call_id")))
                   for item in history if isinstance(item, dict)}
        for record in records:
            wanted, key = _OUTPUT_OF_KIND[record.kind]
            if (wanted, record.tool_call_id) not in written:
                found = [item for item in history if isinstance(item, dict)
                         and record.tool_call_id in (item.get("call_id"), item.get("id"))
                         and item.get("type", "").endswith("_output")]
                raise output_kinds.fail(
                    f"the result of the {record.kind} call {record.tool_call_id!r} must go back "
                    f"as a {wanted} with {key} {record.tool_call_id!r}; result_messages() wrote "
                    f"{show(found) if found else 'no output item for it'}", case)

    check_each(output_kinds, subject, _kinds_and_records(subject.wire), prop)

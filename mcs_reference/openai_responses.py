"""`OpenAIResponsesStrategy`: the OpenAI Responses API (`/v1/responses`) as a format expert.

A stream is a sequence of typed events; the native message is the whole `Response` object
that `response.completed` carries. Until that event arrives the strategy builds the same
object from the deltas: each output item sits at its `output_index`, streamed strings
(text, refusals, reasoning, arguments) are kept as lists of fragments and joined only when a
message is asked for. A `*.done` event carries its value whole and replaces what the deltas
built; `output_item.done` replaces the item; `response.completed` replaces everything.

This module holds the strategy and what it reads from and writes to a whole `Response`
(calls out, results back as input items); the per-stream item model is in
`_responses_items`, and one handler per event type in `_responses_events`.
"""
from __future__ import annotations

import json
from typing import Any

from ._json import copy_json, short_repr
from ._responses_events import _EVENTS
from ._responses_items import _CLIENT_KINDS, _Acc, _call_name, _hosted, _name_of, _typed
from .calls import ExtractedCall, ToolCallRecord, call_from_json_text, call_from_object
from .errors import EventOutOfOrder, MalformedChunk, ProviderError
from .strategy import ExtractionStrategy

__all__ = ["OpenAIResponsesStrategy"]

_END_TYPES = ("response.completed", "response.incomplete")
# The input item that answers each kind (see `result_messages`).
_OUTPUT_TYPES = {
    "function": "function_call_output",
    "custom": "custom_tool_call_output",
    "computer": "computer_call_output",
    "local_shell": "local_shell_call_output",
    "shell": "shell_call_output",
    "apply_patch": "apply_patch_call_output",
}
# Item keys that identify or track a built-in call; the rest is what a handler needs.
_BOOKKEEPING = frozenset({"type", "id", "call_id", "status", "created_by", "caller"})


def _output_of(message: Any) -> list[dict]:
    """The output items of a Response (or of any dict with an `output` list)."""
    output = message.get("output") if isinstance(message, dict) else None
    if not isinstance(output, list):
        raise MalformedChunk(f"not a Responses message: {short_repr(message)}",
                             expected="a Response object with an output list")
    for position, item in enumerate(output):
        _typed(item, f"output item {position}")
    return output


def _result_text(record: ToolCallRecord) -> str:
    if record.error is not None:
        return f"Error: {record.error}"
    if isinstance(record.result, str):
        return record.result
    return json.dumps(record.result, ensure_ascii=False, default=str)


class OpenAIResponsesStrategy(ExtractionStrategy):
    """OpenAI Responses: typed `response.*` events in, the whole `Response` object out."""

    name = "openai-responses"
    leaks_into_text = True

    def recognizes(self, shape: Any) -> bool:
        if not isinstance(shape, dict):
            return False
        kind = shape.get("type")
        if isinstance(kind, str):
            if kind.startswith("response."):
                return True
            if kind == "error":  # Anthropic's error event nests `error` and has no sequence
                if "error" in shape:
                    return "sequence_number" in shape
                return "code" in shape or "message" in shape
            return False
        output = shape.get("output")
        if not isinstance(output, list):
            return False
        if shape.get("object") == "response":
            return True
        return bool(output) and all(
            isinstance(item, dict) and isinstance(item.get("type"), str) for item in output
        )

    def new_accumulator(self) -> _Acc:
        return _Acc()

    def accumulate(self, acc: _Acc, chunk: Any) -> str:
        if not isinstance(chunk, dict):
            raise MalformedChunk(f"a Responses event must be an object, got {short_repr(chunk)}",
                                 expected="a JSON object with a type")
        kind = chunk.get("type")
        handler = _EVENTS.get(kind) if type(kind) is str else None
        if handler is not None:
            if acc.final is not None:
                raise EventOutOfOrder(f"{kind} after the response ended",
                                      expected="nothing after response.completed")
            return handler(acc, chunk)
        if kind == "error":
            error = chunk.get("error")
            raise ProviderError(error if isinstance(error, dict) else chunk)
        if type(kind) is str and kind.startswith("response."):
            return ""  # an event type newer than this code: the .done events will carry it
        raise MalformedChunk(f"not a Responses event: type {short_repr(kind)}",
                             expected="a type starting with 'response.', or 'error'")

    def as_message(self, acc: _Acc) -> dict:
        if acc.final is not None:
            return copy_json(acc.final)
        if acc.response is None:
            message: dict = {"object": "response", "status": "in_progress"}
        else:
            message = copy_json(acc.response)
        message["output"] = [slot.build() for slot in acc.items]
        return message

    def is_done(self, chunk: Any) -> bool:
        return isinstance(chunk, dict) and chunk.get("type") in _END_TYPES

    def extract(self, message: Any) -> list[ExtractedCall]:
        """The client-run calls, in order, each with its kind: `function_call` is
        `function`, `custom_tool_call` is `custom` (its text in `input`), `computer_call`,
        `local_shell_call`, `shell_call` and `apply_patch_call` are `computer`,
        `local_shell`, `shell` and `apply_patch` (named by their kind, their payload as
        `arguments`).

        Provider-run items (hosted tools, MCP, programs, ...) are never calls. Nor is a call
        item the provider already answered: a `shell_call` in a hosted container, or any
        call whose `call_id` has an output item in the same response.
        """
        output = _output_of(message)
        answered = _answered_ids(output)
        calls = []
        for position, item in enumerate(output):
            kind = _CLIENT_KINDS.get(item["type"])
            if kind is None or _provider_ran(item, answered):
                continue
            calls.append(_call_of(item, kind, position))
        return calls

    def content_text(self, message: Any) -> str:
        texts = []
        for item in _output_of(message):
            content = item.get("content") if item["type"] == "message" else None
            for part in content if isinstance(content, list) else ():
                if isinstance(part, dict) and part.get("type") == "output_text":
                    text = part.get("text")
                    if isinstance(text, str):
                        texts.append(text)
        return "".join(texts)

    def forming_name(self, message: Any) -> str | None:
        """The name of the last function_call item (the call forming, or the last made)."""
        output = message.get("output") if isinstance(message, dict) else None
        return _call_name(output) if isinstance(output, list) else None

    def forming_name_of(self, acc: _Acc) -> str | None:
        return acc.call_name

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """Every output item as it is (provider-run ones included), then one output item per
        record, of the type that answers its call's kind (`function_call_output`,
        `custom_tool_call_output`, `computer_call_output`, `local_shell_call_output`,
        `shell_call_output`, `apply_patch_call_output`), the kind read from the call the
        record's id names. A `computer` result is a screenshot object or an image URL; a
        `shell` result is stdout text, one content dict or the list of contents; a failed
        `apply_patch` call goes back with status `failed`."""
        output = _output_of(message)
        history = [copy_json(item) for item in output]
        answered = _answered_ids(output)
        calls = [item for item in output
                 if item["type"] in _CLIENT_KINDS and not _provider_ran(item, answered)]
        by_id = {_str_or_none(item.get("call_id")): item for item in calls}
        # A record without an id takes the next call of its name that no record claimed.
        claimed = {record.tool_call_id for record in records}
        unclaimed = [item for item in calls
                     if _str_or_none(item.get("call_id")) not in claimed]
        for record in records:
            call_id = record.tool_call_id
            item = by_id.get(call_id) if call_id is not None else None
            if call_id is None:
                for position, candidate in enumerate(unclaimed):
                    if _name_of(candidate) == record.name:
                        item = unclaimed.pop(position)
                        call_id = _str_or_none(item.get("call_id"))
                        break
            kind = _CLIENT_KINDS[item["type"]] if item is not None else record.kind
            history.append(_output_item(kind, call_id, record, item))
        return history


def _answered_ids(output: list[dict]) -> set:
    """The call ids that an output item in the same response already answers."""
    ids = set()
    for item in output:
        kind = item["type"]
        if kind.endswith("_output"):
            key = "id" if kind == "local_shell_call_output" else "call_id"  # the SDK's names
            ids.add(_str_or_none(item.get(key)))
    ids.discard(None)
    return ids


def _provider_ran(item: dict, answered: set) -> bool:
    """A client-run item type that the provider ran this time (see `extract`)."""
    return _str_or_none(item.get("call_id")) in answered or _hosted(item)


def _call_of(item: dict, kind: str, position: int) -> ExtractedCall:
    """One call item as an `ExtractedCall` of `kind`."""
    call_id = _str_or_none(item.get("call_id"))
    if kind in ("function", "custom"):
        name = item.get("name")
        if not isinstance(name, str):
            raise MalformedChunk(f"{item['type']} item {position} has name {short_repr(name)}",
                                 expected="a string")
        if kind == "custom":
            text = item.get("input")
            if isinstance(text, str):
                return ExtractedCall(name, {}, call_id, kind="custom", input=text)
            return ExtractedCall(name, {}, call_id, "custom tool input must be a string, got "
                                 f"{type(text).__name__}", None, kind="custom")
        arguments = item.get("arguments")
        if isinstance(arguments, str):
            return call_from_json_text(name, arguments, call_id)
        return call_from_object(name, arguments, call_id)
    payload = {key: copy_json(value) for key, value in item.items() if key not in _BOOKKEEPING}
    return ExtractedCall(kind, payload, call_id, kind=kind)


def _output_item(kind: str, call_id: str | None, record: ToolCallRecord,
                 call: dict | None) -> dict:
    """The input item that answers a call of `kind` with `record` (the SDK's input params)."""
    failed = record.error is not None
    if kind == "computer":
        result = record.result
        if failed or not isinstance(result, (dict, str)):
            screenshot = {"type": "computer_screenshot"}  # nothing to show: the call failed
        elif isinstance(result, str):
            screenshot = {"type": "computer_screenshot", "image_url": result}
        else:
            screenshot = copy_json(result)
        return {"type": "computer_call_output", "call_id": call_id, "output": screenshot}
    if kind == "local_shell":  # the SDK's param names the call's id `id`
        return {"type": "local_shell_call_output", "id": call_id, "output": _result_text(record)}
    if kind == "shell":
        out = {"type": "shell_call_output", "call_id": call_id, "output": _shell_output(record)}
        action = call.get("action") if call is not None else None
        limit = action.get("max_output_length") if isinstance(action, dict) else None
        if isinstance(limit, int):
            out["max_output_length"] = limit
        return out
    if kind == "apply_patch":
        out = {"type": "apply_patch_call_output", "call_id": call_id,
               "status": "failed" if failed else "completed"}
        if failed or record.result is not None:
            out["output"] = _result_text(record)
        return out
    item_type = _OUTPUT_TYPES.get(kind, "function_call_output")
    return {"type": item_type, "call_id": call_id, "output": _result_text(record)}


def _shell_output(record: ToolCallRecord) -> list:
    """A shell handler's result as `shell_call_output` contents (stdout, stderr, outcome).

    A list is taken as the contents; a dict as one content (exit code 0 unless it says);
    anything else is stdout. A failed record is its error on stderr with exit code 1.
    """
    if record.error is not None:
        return [{"stdout": "", "stderr": f"Error: {record.error}",
                 "outcome": {"type": "exit", "exit_code": 1}}]
    result = record.result
    if isinstance(result, list):
        return copy_json(result)
    if isinstance(result, dict):
        content = {"stdout": "", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
        content.update(copy_json(result))
        return [content]
    text = "" if result is None else _result_text(record)
    return [{"stdout": text, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]


def _str_or_none(value: Any) -> str | None:
    """A call id as the contract has it: a str, or None for a missing or malformed one."""
    return value if isinstance(value, str) else None

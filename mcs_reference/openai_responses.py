"""`OpenAIResponsesStrategy`: the OpenAI Responses API (`/v1/responses`) as a format expert.

A stream is a sequence of typed events; the native message is the whole `Response` object
that `response.completed` carries. Until that event arrives the strategy builds the same
object from the deltas: each output item sits at its `output_index`, streamed strings
(text, refusals, reasoning, arguments) are kept as lists of fragments and joined only when a
message is asked for. A `*.done` event carries its value whole and replaces what the deltas
built; `output_item.done` replaces the item; `response.completed` replaces everything.
"""
from __future__ import annotations

import json
from typing import Any

from ._json import copy_json, short_repr
from .calls import ExtractedCall, ToolCallRecord, call_from_json_text, call_from_object
from .errors import EventOutOfOrder, MalformedChunk, ProviderError
from .strategy import ExtractionStrategy

__all__ = ["OpenAIResponsesStrategy"]

_END_TYPES = ("response.completed", "response.incomplete")

# The one streamed string field of an item type, and the events that grow or finish it.
_ITEM_FIELD = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "mcp_call": "arguments",
    "code_interpreter_call": "code",
}
_ITEM_DELTAS = {
    "response.function_call_arguments": "function_call",
    "response.custom_tool_call_input": "custom_tool_call",
    "response.mcp_call_arguments": "mcp_call",
    "response.code_interpreter_call_code": "code_interpreter_call",
}
# The streamed string field of a part type (content parts and reasoning summary parts).
_PART_FIELD = {"output_text": "text", "refusal": "refusal", "reasoning_text": "text",
               "summary_text": "text"}
# Part events: event prefix -> (the item's list holding the part, its index key, part type).
_PART_DELTAS = {
    "response.output_text": ("content", "content_index", "output_text"),
    "response.refusal": ("content", "content_index", "refusal"),
    "response.reasoning_text": ("content", "content_index", "reasoning_text"),
    "response.reasoning_summary_text": ("summary", "summary_index", "summary_text"),
}

# Client-run call items: item type -> the wire-independent kind of `ExtractedCall`.
_CLIENT_KINDS = {
    "function_call": "function",
    "custom_tool_call": "custom",
    "computer_call": "computer",
    "local_shell_call": "local_shell",
    "shell_call": "shell",
    "apply_patch_call": "apply_patch",
}
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
# Events that only move a hosted tool's item through its statuses (item type, status).
_STATUS_EVENTS = {
    f"response.{event}.{status}": (item_type, status)
    for event, item_type, statuses in (
        ("web_search_call", "web_search_call", ("in_progress", "searching", "completed")),
        ("file_search_call", "file_search_call", ("in_progress", "searching", "completed")),
        ("code_interpreter_call", "code_interpreter_call",
         ("in_progress", "interpreting", "completed")),
        ("image_generation_call", "image_generation_call",
         ("in_progress", "generating", "completed")),
        ("mcp_call", "mcp_call", ("in_progress", "completed", "failed")),
    )
    for status in statuses
}


def _typed(value: Any, what: str) -> dict:
    """`value` if it is a dict with a string `type` (an output item or a part)."""
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        raise MalformedChunk(f"{what} is {short_repr(value)}",
                             expected="an object with a string type")
    return value


class _Part:
    """One content or summary part: the part as announced, and its string as fragments."""

    __slots__ = ("part", "type", "field", "frags", "annotations", "logprobs")

    def __init__(self, part: dict):
        self.part = part  # a private shallow copy, never changed
        self.type = part["type"]
        self.field = _PART_FIELD.get(self.type)
        start = part.get(self.field) if self.field else None
        self.frags = [start] if isinstance(start, str) else []
        self.annotations: list | None = None  # own list once annotation.added arrives
        self.logprobs: list | None = None  # own list once a delta brings logprobs

    def build(self) -> dict:
        part = copy_json(self.part)
        if self.field is not None:
            part[self.field] = "".join(self.frags)
        if self.annotations is not None:
            part["annotations"] = copy_json(self.annotations)
        if self.logprobs is not None:
            part["logprobs"] = copy_json(self.logprobs)
        return part


class _Item:
    """One output item: the item as announced, its streamed field and its part lists."""

    __slots__ = ("item", "id", "type", "frags", "lists", "done", "status", "commands")

    def __init__(self, item: dict, done: bool = False):
        self.item = item  # a private shallow copy, never changed
        self.id = item.get("id")
        self.type = item["type"]
        field = _ITEM_FIELD.get(self.type)
        start = item.get(field) if field else None
        self.frags = [start] if isinstance(start, str) else None
        self.lists: dict[str, list[_Part]] = {}  # "content" / "summary" once parts arrive
        self.done = done
        self.status: str | None = None  # set by a hosted tool's status events
        self.commands: list[list[str]] | None = None  # a shell_call's streamed commands

    def parts(self, key: str) -> list[_Part]:
        """The item's `content` or `summary` parts, started from what the item announced."""
        parts = self.lists.get(key)
        if parts is None:
            given = self.item.get(key)
            if given is not None and not isinstance(given, list):
                raise MalformedChunk(f"item {key} is {short_repr(given)}", expected="a list")
            parts = self.lists[key] = [_Part(dict(_typed(p, f"{key} part"))) for p in given or ()]
        return parts

    def build(self) -> dict:
        item = copy_json(self.item)
        if self.done:
            return item
        if self.frags is not None:
            item[_ITEM_FIELD[self.type]] = "".join(self.frags)
        for key, parts in self.lists.items():
            item[key] = [part.build() for part in parts]
        if self.status is not None:
            item["status"] = self.status
        if self.commands is not None:
            action = item.get("action")
            item["action"] = action = action if isinstance(action, dict) else {}
            action["commands"] = ["".join(command) for command in self.commands]
        return item


class _Acc:
    """Per-stream state: the response skeleton, the output items, the final response."""

    __slots__ = ("response", "items", "final", "call_name")

    def __init__(self) -> None:
        self.response: dict | None = None  # from response.created / in_progress / failed
        self.items: list[_Item] = []
        self.final: dict | None = None  # from response.completed / incomplete
        self.call_name: str | None = None  # name of the last client-run call item so far

    def place(self, slot: _Item) -> None:
        """Append an output item, keeping `call_name` current (forming_name_of is O(1))."""
        self.items.append(slot)
        if _forms_a_call(slot.item):
            self.call_name = _name_of(slot.item)


def _item_at(acc: _Acc, chunk: dict) -> _Item:
    """The open item an event names by `output_index`, cross-checked with its `item_id`."""
    index = chunk.get("output_index")
    items = acc.items
    if type(index) is not int or not -1 < index < len(items):
        raise EventOutOfOrder(
            f"{chunk['type']} for output_index {short_repr(index)}, but {len(items)} output "
            f"item(s) were announced",
            expected="response.output_item.added for that output_index first",
        )
    slot = items[index]
    item_id = chunk.get("item_id")
    if item_id is not None and item_id != slot.id and slot.id is not None:
        raise EventOutOfOrder(
            f"{chunk['type']} names item_id {short_repr(item_id)} at output_index {index}, "
            f"where item {slot.id!r} sits",
            expected="item_id and output_index of the same item",
        )
    if slot.done:
        raise EventOutOfOrder(
            f"{chunk['type']} for output_index {index} after its response.output_item.done",
            expected="every event of an item before its output_item.done",
        )
    return slot


def _part_at(acc: _Acc, chunk: dict, key: str, index_key: str, part_type: str) -> _Part:
    slot = _item_at(acc, chunk)
    parts = slot.parts(key)
    index = chunk.get(index_key)
    if type(index) is not int or not -1 < index < len(parts):
        raise EventOutOfOrder(
            f"{chunk['type']} for {index_key} {short_repr(index)}, but item "
            f"{chunk['output_index']} has {len(parts)} {key} part(s)",
            expected="the part's .added event first",
        )
    part = parts[index]
    if part.type != part_type:
        raise EventOutOfOrder(
            f"{chunk['type']} for a {part.type!r} part", expected=f"a {part_type!r} part"
        )
    return part


def _text_of(chunk: dict, field: str) -> str:
    value = chunk.get(field)
    if type(value) is not str:
        raise MalformedChunk(f"{chunk['type']} has {field} {short_repr(value)}",
                             expected="a string")
    return value


# Event handlers: (acc, chunk) -> display delta. The hot ones come first.

def _on_text_delta(acc: _Acc, chunk: dict) -> str:
    # The hottest event: checked inline; anything unusual takes the careful path below.
    index = chunk.get("output_index")
    items = acc.items
    if type(index) is int and -1 < index < len(items):
        slot = items[index]
        parts = slot.lists.get("content")
        at = chunk.get("content_index")
        item_id = chunk.get("item_id")
        delta = chunk.get("delta")
        if (parts is not None and type(at) is int and -1 < at < len(parts) and not slot.done
                and (item_id == slot.id or item_id is None) and type(delta) is str):
            part = parts[at]
            if part.type == "output_text":
                part.frags.append(delta)
                if chunk.get("logprobs"):
                    _add_logprobs(part, chunk["logprobs"])
                return delta
    part = _part_at(acc, chunk, "content", "content_index", "output_text")
    delta = _text_of(chunk, "delta")
    part.frags.append(delta)
    if chunk.get("logprobs"):
        _add_logprobs(part, chunk["logprobs"])
    return delta


def _add_logprobs(part: _Part, logprobs: Any) -> None:
    if not isinstance(logprobs, list):
        raise MalformedChunk(f"logprobs is {short_repr(logprobs)}", expected="a list")
    if part.logprobs is None:
        given = part.part.get("logprobs")
        part.logprobs = list(given) if isinstance(given, list) else []
    part.logprobs.extend(logprobs)


def _item_delta(item_type: str):
    def handler(acc: _Acc, chunk: dict) -> str:
        index = chunk.get("output_index")
        items = acc.items
        if type(index) is int and -1 < index < len(items):  # inline fast path
            slot = items[index]
            item_id = chunk.get("item_id")
            delta = chunk.get("delta")
            if (slot.type == item_type and slot.frags is not None and not slot.done
                    and (item_id == slot.id or item_id is None) and type(delta) is str):
                slot.frags.append(delta)
                return ""
        slot = _item_at(acc, chunk)
        if slot.type != item_type:
            raise EventOutOfOrder(
                f"{chunk['type']} for a {slot.type!r} item", expected=f"a {item_type!r} item"
            )
        delta = _text_of(chunk, "delta")
        if slot.frags is None:
            slot.frags = [delta]
        else:
            slot.frags.append(delta)
        return ""
    return handler


def _item_value_done(item_type: str):
    field = _ITEM_FIELD[item_type]

    def handler(acc: _Acc, chunk: dict) -> str:
        slot = _typed_slot(acc, chunk, item_type)
        slot.frags = [_text_of(chunk, field)]  # the whole value again: it wins
        return ""
    return handler


def _part_delta(key: str, index_key: str, part_type: str):
    def handler(acc: _Acc, chunk: dict) -> str:
        part = _part_at(acc, chunk, key, index_key, part_type)
        delta = chunk.get("delta")
        if type(delta) is not str:
            raise MalformedChunk(f"{chunk['type']} delta is {short_repr(delta)}",
                                 expected="a string")
        part.frags.append(delta)
        return ""
    return handler


def _part_value_done(key: str, index_key: str, part_type: str):
    field = _PART_FIELD[part_type]

    def handler(acc: _Acc, chunk: dict) -> str:
        _part_at(acc, chunk, key, index_key, part_type).frags = [_text_of(chunk, field)]
        return ""
    return handler


def _part_added(key: str, index_key: str):
    def handler(acc: _Acc, chunk: dict) -> str:
        parts = _item_at(acc, chunk).parts(key)
        part = _typed(chunk.get("part"), f"{chunk['type']} part")
        index = chunk.get(index_key)
        if type(index) is not int or index != len(parts):
            raise EventOutOfOrder(
                f"{chunk['type']} at {index_key} {short_repr(index)}",
                expected=f"the next free {index_key}, {len(parts)}",
            )
        parts.append(_Part(dict(part)))
        return ""
    return handler


def _part_done(key: str, index_key: str):
    def handler(acc: _Acc, chunk: dict) -> str:
        parts = _item_at(acc, chunk).parts(key)
        part = _typed(chunk.get("part"), f"{chunk['type']} part")
        index = chunk.get(index_key)
        if type(index) is not int or not -1 < index < len(parts):
            raise EventOutOfOrder(
                f"{chunk['type']} at {index_key} {short_repr(index)}, but the item has "
                f"{len(parts)} {key} part(s)",
                expected="the part's .added event first",
            )
        if parts[index].type != part["type"]:
            raise EventOutOfOrder(
                f"{chunk['type']} turns a {parts[index].type!r} part into {part['type']!r}",
                expected="the type announced by the part's .added event",
            )
        parts[index] = _Part(dict(part))
        return ""
    return handler


def _on_annotation(acc: _Acc, chunk: dict) -> str:
    part = _part_at(acc, chunk, "content", "content_index", "output_text")
    annotation = chunk.get("annotation")
    if not isinstance(annotation, dict):
        raise MalformedChunk(f"annotation is {short_repr(annotation)}", expected="an object")
    if part.annotations is None:
        given = part.part.get("annotations")
        part.annotations = list(given) if isinstance(given, list) else []
    part.annotations.append(annotation)
    return ""


def _typed_slot(acc: _Acc, chunk: dict, item_type: str) -> _Item:
    """The open item an event names, checked to be of the type the event is about."""
    slot = _item_at(acc, chunk)
    if slot.type != item_type:
        raise EventOutOfOrder(
            f"{chunk['type']} for a {slot.type!r} item", expected=f"a {item_type!r} item"
        )
    return slot


def _on_status(acc: _Acc, chunk: dict) -> str:
    item_type, status = _STATUS_EVENTS[chunk["type"]]
    index = chunk.get("output_index")
    if type(index) is int and -1 < index < len(acc.items) and acc.items[index].done:
        return ""  # the whole item came already; a late status event carries nothing new
    _typed_slot(acc, chunk, item_type).status = status
    return ""


def _shell_command(acc: _Acc, chunk: dict) -> list[str]:
    """The fragments of the command a `response.shell_call_command.*` event names."""
    slot = _typed_slot(acc, chunk, "shell_call")
    if slot.commands is None:
        action = slot.item.get("action")
        given = action.get("commands") if isinstance(action, dict) else None
        given = given if isinstance(given, list) else []
        slot.commands = [[command] for command in given if isinstance(command, str)]
    commands = slot.commands
    index = chunk.get("command_index")
    added = chunk["type"].endswith(".added")
    if type(index) is not int or not -1 < index < len(commands) + added:
        raise EventOutOfOrder(
            f"{chunk['type']} for command_index {short_repr(index)}, but the shell_call has "
            f"{len(commands)} command(s)",
            expected="response.shell_call_command.added for each command, in order",
        )
    if index == len(commands):
        commands.append([])
    return commands[index]


def _on_command_added(acc: _Acc, chunk: dict) -> str:
    command = _shell_command(acc, chunk)
    command[:] = [_text_of(chunk, "command")]
    return ""


def _on_command_delta(acc: _Acc, chunk: dict) -> str:
    _shell_command(acc, chunk).append(_text_of(chunk, "delta"))
    return ""


def _on_item_added(acc: _Acc, chunk: dict) -> str:
    item = _typed(chunk.get("item"), "response.output_item.added item")
    index = chunk.get("output_index")
    items = acc.items
    if type(index) is not int or index != len(items):
        raise EventOutOfOrder(
            f"response.output_item.added at output_index {short_repr(index)}",
            expected=f"the next free output_index, {len(items)}",
        )
    acc.place(_Item(dict(item)))
    return ""


def _on_item_done(acc: _Acc, chunk: dict) -> str:
    item = _typed(chunk.get("item"), "response.output_item.done item")
    items = acc.items
    index = chunk.get("output_index")
    if type(index) is int and index == len(items):  # a whole item with no .added before it
        acc.place(_Item(dict(item), done=True))
        return ""
    slot = _item_at(acc, chunk)
    given_id = item.get("id")
    if item["type"] != slot.type or (given_id != slot.id and None not in (given_id, slot.id)):
        raise EventOutOfOrder(
            f"response.output_item.done at output_index {index} is a {item['type']!r} item "
            f"{given_id!r}, but a {slot.type!r} item {slot.id!r} was announced there",
            expected="the same item as its output_item.added",
        )
    items[index] = _Item(dict(item), done=True)
    if _forms_a_call(item) and index == _last_call(items):
        acc.call_name = _name_of(item)
    return ""


def _last_call(items: list[_Item]) -> int:
    """Index of the last client-run call item (-1 if none); only run on a call's .done."""
    for index in range(len(items) - 1, -1, -1):
        if _forms_a_call(items[index].item):
            return index
    return -1


def _forms_a_call(item: dict) -> bool:
    """Is this item a client-run call (as far as one item can tell: see `extract`)?"""
    kind = item.get("type")  # garbage may put a list here: only a str names a kind
    return isinstance(kind, str) and kind in _CLIENT_KINDS and not _hosted(item)


def _hosted(item: dict) -> bool:
    """A `shell_call` that runs in the provider's container."""
    environment = item.get("environment") if item.get("type") == "shell_call" else None
    return isinstance(environment, dict) and environment.get("type") == "container_reference"


def _name_of(item: dict) -> str | None:
    """The name a call item goes by: its `name`, or for a built-in tool its kind."""
    kind = _CLIENT_KINDS[item["type"]]
    if kind not in ("function", "custom"):
        return kind
    name = item.get("name")
    return name if isinstance(name, str) else None


def _response_of(acc: _Acc, chunk: dict) -> dict:
    response = chunk.get("response")
    if not isinstance(response, dict):
        raise MalformedChunk(f"{chunk['type']} has response {short_repr(response)}",
                             expected="a Response object")
    known = acc.response.get("id") if acc.response is not None else None
    given = response.get("id")
    if known is not None and given is not None and given != known:
        raise EventOutOfOrder(
            f"{chunk['type']} is for response {short_repr(given)}, this stream is {known!r}",
            expected="one response per stream (reset the buffer between responses)",
        )
    return response


def _on_lifecycle(acc: _Acc, chunk: dict) -> str:
    response = _response_of(acc, chunk)
    output = response.get("output")
    if output and not acc.items:  # a resumed stream: items produced before this point
        if not isinstance(output, list):
            raise MalformedChunk(f"response output is {short_repr(output)}", expected="a list")
        for slot in [_Item(dict(_typed(item, "response output item"))) for item in output]:
            acc.place(slot)
    acc.response = dict(response)
    return ""


def _on_end(acc: _Acc, chunk: dict) -> str:
    final = dict(_response_of(acc, chunk))
    output = final.get("output")
    if output is None:  # some servers leave the items to the earlier events
        final["output"] = [slot.build() for slot in acc.items]
    elif not isinstance(output, list):
        raise MalformedChunk(f"{chunk['type']} has output {short_repr(output)}", expected="a list")
    acc.final = final
    acc.call_name = _call_name(final["output"])
    return ""


def _on_failed(acc: _Acc, chunk: dict) -> str:
    response = _response_of(acc, chunk)
    acc.response = dict(response)  # status "failed" and the error, beside the items so far
    error = response.get("error")
    raise ProviderError(error if isinstance(error, dict) else response)


_EVENTS: dict[str, Any] = {
    "response.output_text.delta": _on_text_delta,
    "response.output_item.added": _on_item_added,
    "response.output_item.done": _on_item_done,
    "response.content_part.added": _part_added("content", "content_index"),
    "response.content_part.done": _part_done("content", "content_index"),
    "response.reasoning_summary_part.added": _part_added("summary", "summary_index"),
    "response.reasoning_summary_part.done": _part_done("summary", "summary_index"),
    "response.output_text.annotation.added": _on_annotation,
    "response.created": _on_lifecycle,
    "response.queued": _on_lifecycle,
    "response.in_progress": _on_lifecycle,
    "response.completed": _on_end,
    "response.incomplete": _on_end,
    "response.failed": _on_failed,
}
_EVENTS.update(dict.fromkeys(_STATUS_EVENTS, _on_status))
_EVENTS["response.shell_call_command.added"] = _on_command_added
_EVENTS["response.shell_call_command.delta"] = _on_command_delta
_EVENTS["response.shell_call_command.done"] = _on_command_added  # the whole command again
for _prefix, _item_type in _ITEM_DELTAS.items():
    _EVENTS[_prefix + ".delta"] = _item_delta(_item_type)
    _EVENTS[_prefix + ".done"] = _item_value_done(_item_type)
for _prefix, _spec in _PART_DELTAS.items():
    _EVENTS.setdefault(_prefix + ".delta", _part_delta(*_spec))
    _EVENTS[_prefix + ".done"] = _part_value_done(*_spec)


def _call_name(output: list) -> str | None:
    for item in reversed(output):
        if isinstance(item, dict) and _forms_a_call(item):
            return _name_of(item)
    return None


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

"""The event handlers of `OpenAIResponsesStrategy`: one function per `response.*` event type.

`_EVENTS` maps an event type to its handler, `(acc, chunk) -> display delta`; a handler
checks its event against the items announced so far and folds it into the `_Acc` (see
`_responses_items`), raising `EventOutOfOrder` or `MalformedChunk` for an event the wire
does not allow there and `ProviderError` for `response.failed`.
"""
from __future__ import annotations

from typing import Any

from ._json import short_repr
from ._responses_items import (
    _ITEM_FIELD, _PART_FIELD, _Acc, _call_name, _forms_a_call, _Item, _name_of, _Part, _typed,
)
from .errors import EventOutOfOrder, MalformedChunk, ProviderError

# The events that grow or finish an item type's streamed string field (`_ITEM_FIELD`).
_ITEM_DELTAS = {
    "response.function_call_arguments": "function_call",
    "response.custom_tool_call_input": "custom_tool_call",
    "response.mcp_call_arguments": "mcp_call",
    "response.code_interpreter_call_code": "code_interpreter_call",
}
# Part events: event prefix -> (the item's list holding the part, its index key, part type).
_PART_DELTAS = {
    "response.output_text": ("content", "content_index", "output_text"),
    "response.refusal": ("content", "content_index", "refusal"),
    "response.reasoning_text": ("content", "content_index", "reasoning_text"),
    "response.reasoning_summary_text": ("summary", "summary_index", "summary_text"),
}
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

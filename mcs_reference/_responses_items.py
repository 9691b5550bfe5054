"""The item model of `OpenAIResponsesStrategy`: per-stream state built from Responses events.

An output item (`_Item`) keeps the item as announced, its one streamed string field and its
content or summary parts (`_Part`) as lists of fragments, joined only by `build()`; `_Acc`
holds the items of one stream beside the response skeleton. The functions at the end tell
a client-run call item from the rest and name it.
"""
from __future__ import annotations

from typing import Any

from ._json import copy_json, short_repr
from .errors import MalformedChunk

# The one streamed string field of an item type.
_ITEM_FIELD = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "mcp_call": "arguments",
    "code_interpreter_call": "code",
}
# The streamed string field of a part type (content parts and reasoning summary parts).
_PART_FIELD = {"output_text": "text", "refusal": "refusal", "reasoning_text": "text",
               "summary_text": "text"}

# Client-run call items: item type -> the wire-independent kind of `ExtractedCall`.
_CLIENT_KINDS = {
    "function_call": "function",
    "custom_tool_call": "custom",
    "computer_call": "computer",
    "local_shell_call": "local_shell",
    "shell_call": "shell",
    "apply_patch_call": "apply_patch",
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


def _call_name(output: list) -> str | None:
    """The name of the last client-run call item of a Response's `output`, or None."""
    for item in reversed(output):
        if isinstance(item, dict) and _forms_a_call(item):
            return _name_of(item)
    return None

"""Vertex AI's streamed call arguments: `partialArgs` entries, each setting one JSON path.

With `streamFunctionCallArguments` on, Vertex sends a call's `args` as entries such as
`{"jsonPath": "$.steps[1].name", "stringValue": "Pre", "willContinue": true}`. Each entry
sets one leaf of the arguments object and creates the objects and arrays on its way; a
string may arrive in several entries. `apply_entry` builds the arguments in place, in time
proportional to the entry (a string's pieces are joined only when the arguments are read by
`render`), and logs what it changed so that `undo` can take back a chunk found bad later on.
"""
from __future__ import annotations

import json
import re
from typing import Any

from .errors import MalformedChunk

__all__ = ["ArgString", "apply_entry", "read_entry", "render", "undo"]

_ENTRY = ("a partialArgs entry {jsonPath, exactly one of stringValue, numberValue, boolValue, "
         "nullValue, and an optional boolean willContinue}")
_PATH = 'a JSON path: "$" then steps .name, [N] or ["any key"]'
_VALUES = ("stringValue", "numberValue", "boolValue", "nullValue")
_NAME_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")
_INDEX_STEP = re.compile(r"\[(0|[1-9][0-9]*)\]")
_DECODER = json.JSONDecoder()
_MISSING = object()


class ArgString:
    """A string argument arriving in pieces; `open` while its last entry said willContinue."""

    __slots__ = ("pieces", "open")

    def __init__(self, first: str) -> None:
        self.pieces = [first]
        self.open = True

    def text(self) -> str:
        pieces = self.pieces
        if len(pieces) > 1:
            pieces[:] = ["".join(pieces)]
        return pieces[0]


def _bad_path(path: str, why: str) -> MalformedChunk:
    return MalformedChunk(f"partialArgs jsonPath {path!r} {why}", expected=_PATH)


def parse_path(path: str) -> tuple:
    """The steps of `path`: a str for a key, an int for an array index."""
    if not path.startswith("$"):
        raise _bad_path(path, "does not start with '$'")
    steps: list[Any] = []
    position, end = 1, len(path)
    while position < end:
        if path[position] == ".":
            match = _NAME_STEP.match(path, position)
            if match is None:
                raise _bad_path(path, f"has no name after the '.' at {position}")
            steps.append(match.group(1))
            position = match.end()
        elif path.startswith('["', position):
            try:
                key, position = _DECODER.raw_decode(path, position + 1)
            except ValueError:
                raise _bad_path(path, f"has a bad quoted key at {position}") from None
            if not path.startswith("]", position):
                raise _bad_path(path, f"has no ']' after the quoted key at {position}")
            steps.append(key)
            position += 1
        else:
            match = _INDEX_STEP.match(path, position)
            if match is None:
                raise _bad_path(path, f"has an unexpected {path[position]!r} at {position}")
            steps.append(int(match.group(1)))
            position = match.end()
    if not steps:
        raise _bad_path(path, "names the arguments object itself, not one of its members")
    return tuple(steps)


def read_entry(entry: Any) -> tuple[str, tuple, Any, bool, bool]:
    """Check one entry: (its path, the path's steps, the value, is it a string, willContinue).

    `nullValue` ("NULL_VALUE") is JSON null.
    """
    if not isinstance(entry, dict):
        raise MalformedChunk(f"a partialArgs entry is a {type(entry).__name__}", expected=_ENTRY)
    path = entry.get("jsonPath")
    if not isinstance(path, str):
        raise MalformedChunk("a partialArgs entry has no string jsonPath", expected=_ENTRY)
    given = [key for key in _VALUES if key in entry]
    if len(given) != 1:
        raise MalformedChunk(f"partialArgs entry {path!r} has {len(given)} values "
                             f"({', '.join(given) or 'none'})", expected=_ENTRY)
    key = given[0]
    value = entry[key]
    if key == "stringValue":
        good = type(value) is str
    elif key == "numberValue":
        good = type(value) in (int, float)
    elif key == "boolValue":
        good = type(value) is bool
    else:
        good, value = value in ("NULL_VALUE", None), None
    more = entry.get("willContinue")
    if not good or (more is not None and type(more) is not bool):
        wrong = "willContinue" if good else key
        raise MalformedChunk(f"partialArgs entry {path!r} has a bad {wrong}: "
                             f"{entry.get(wrong)!r}", expected=_ENTRY)
    return path, parse_path(path), value, key == "stringValue", more is True


def _what(value: Any) -> str:
    """The JSON kind of a value already in the arguments, for error messages."""
    if isinstance(value, (str, ArgString)):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, bool):
        return "a boolean"
    return "null" if value is None else "a number"


def _child(container: Any, step: Any, path: str) -> Any:
    """The member of `container` at `step`; `_MISSING` for a new key or the next index.

    A key step always meets an object: the root is one, and `apply_entry` checks each
    container on the way against the step that follows it.
    """
    if type(step) is str:
        return container.get(step, _MISSING)
    if type(container) is not list:
        raise MalformedChunk(f"partialArgs {path!r} names index {step} in {_what(container)}",
                             expected="an index step only inside an array")
    if step < len(container):
        return container[step]
    if step == len(container):
        return _MISSING
    raise MalformedChunk(f"partialArgs {path!r} sets index {step} of an array of "
                         f"{len(container)} items", expected="no gap: the next index at most")


def _put(container: Any, step: Any, value: Any, log: list) -> None:
    if type(container) is list and step == len(container):
        container.append(value)
        log.append((container, step, _MISSING))
        return
    log.append((container, step, container.get(step, _MISSING) if type(container) is dict
                else container[step]))
    container[step] = value


def apply_entry(args: dict, entry: tuple, log: list) -> None:
    """Set one checked entry (from `read_entry`) in `args`; log each change for `undo`.

    A string entry appends to the string at its path when that string's last entry said
    willContinue; otherwise it sets the value.
    """
    path, steps, value, is_string, more = entry
    container: Any = args
    for position in range(len(steps) - 1):
        step = steps[position]
        child = _child(container, step, path)
        wants = dict if type(steps[position + 1]) is str else list
        if child is _MISSING:
            child = wants()
            _put(container, step, child, log)
        elif type(child) is not wants:
            needed = "an object" if wants is dict else "an array"
            raise MalformedChunk(f"partialArgs {path!r} goes through {_what(child)} where it "
                                 f"needs {needed}", expected="objects and arrays on the way")
        container = child
    last = steps[-1]
    current = _child(container, last, path)
    if is_string and type(current) is ArgString and current.open:
        log.append((current, len(current.pieces), True))
        current.pieces.append(value)
        current.open = more
        return
    _put(container, last, ArgString(value) if is_string and more else value, log)


def undo(log: list) -> None:
    """Take back the changes `apply_entry` logged, newest first."""
    for target, where, before in reversed(log):
        if type(target) is ArgString:
            del target.pieces[where:]
            target.open = before
        elif before is not _MISSING:
            target[where] = before
        elif type(target) is list:
            target.pop()
        else:
            del target[where]
    log.clear()


def render(value: Any) -> Any:
    """A fresh JSON copy of streamed arguments, each string's pieces joined."""
    if type(value) is dict:
        return {key: render(item) for key, item in value.items()}
    if type(value) is list:
        return [render(item) for item in value]
    if type(value) is ArgString:
        return value.text()
    return value

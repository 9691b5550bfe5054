"""Private helpers for JSON-shaped wire data, shared by every module of the reference.

`copy_json` is the one deep copy of chunks and messages (strategies hand out fresh objects
and never keep the caller's); `shorten` and `short_repr` are the one way a value is quoted
in an error message, cut so that a huge chunk does not drown the message; `one_open` is
the quick answer of `is_done` for the commonest chunk.
"""
from __future__ import annotations

from typing import Any


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (much cheaper than `copy.deepcopy`).

    Dicts and lists are copied all the way down; anything else (strings and numbers are
    immutable) is shared.
    """
    if isinstance(value, dict):
        return {key: copy_json(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copy_json(item) for item in value]
    return value


def shorten(text: str, limit: int = 80, keep: int = 77) -> str:
    """`text`, or its first `keep` characters and "..." when it is longer than `limit`."""
    return text if len(text) <= limit else text[:keep] + "..."


def short_repr(value: Any, limit: int = 80, keep: int = 77) -> str:
    """`repr(value)`, cut as `shorten` cuts."""
    return shorten(repr(value), limit, keep)


def one_open(chunk: Any, listed: str, end: str) -> bool:
    """Is `chunk[listed]` a list of one object whose `end` field is null or absent?

    The commonest chunk of a wire whose end is a field of its only choice or candidate:
    `is_done` answers it without a loop, and looks further only when this is False.
    """
    try:
        [item] = chunk[listed]
    except (KeyError, TypeError, ValueError):
        return False
    return type(item) is dict and item.get(end) is None

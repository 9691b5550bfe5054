"""Private helpers for JSON-shaped wire data, shared by every module of the reference.

`copy_json` is the one deep copy of chunks and messages (strategies hand out fresh objects
and never keep the caller's); `shorten` and `short_repr` are the one way a value is quoted
in an error message, cut so that a huge chunk does not drown the message; `one_open` is
the quick answer of `is_done` for the commonest chunk; `FINITE_JSON` decodes only what JSON
can hold and `is_finite_json` tells whether a parsed value holds only that.
"""
from __future__ import annotations

import json
import math
from typing import Any


def _reject_constant(word: str) -> Any:
    raise ValueError(f"{word} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise ValueError(f"the number {text[:40]} overflows a double")
    return value


# Python's decoder reads NaN, Infinity and -Infinity, and 1e400 as inf: none is JSON a tool
# can be given (json.dumps writes them back as the non-JSON words), so they raise here.
FINITE_JSON = json.JSONDecoder(parse_constant=_reject_constant, parse_float=_finite_float)


def is_finite_json(value: Any) -> bool:
    """Whether a parsed value holds only what JSON can: no NaN, no infinity (a chunk read
    by a lenient decoder can carry them into a call's arguments)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return True


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

"""Say where a result differs from what was expected: the clauses' failure reasons."""
from __future__ import annotations

import math
from typing import Any

from mcs_conformance.base import show

__all__ = ["call_view", "calls_difference", "first_difference"]


def _kind(value: Any, json_numbers: bool = False) -> str:
    if json_numbers and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "number"
    if value is None or isinstance(value, (bool, int, float, str)):
        return type(value).__name__
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def _identical(expected: Any, got: Any) -> bool:
    """Equal with the same types all the way down (stricter than `first_difference`, which
    calls a list and a tuple alike): then no difference needs looking for."""
    kind = type(expected)
    if kind is not type(got):
        return False
    if kind is dict:
        return expected.keys() == got.keys() and all(
            _identical(item, got[key]) for key, item in expected.items())
    if kind is list:
        return len(expected) == len(got) and all(map(_identical, expected, got))
    return kind in _LEAVES and expected == got


_LEAVES = frozenset({str, int, float, bool, type(None)})


def first_difference(expected: Any, got: Any, path: str = "message", *,
                     json_numbers: bool = False) -> str | None:
    """Where `got` first differs from `expected` (types count: `1` is not `1.0` nor `True`).

    `json_numbers` compares numbers as JSON does, by value as IEEE doubles: `1` equals `1.0`,
    and integers beyond 2**53 equal the double they round to (RFC 8259 section 6: such
    numbers are not interoperable); a bool is still never a number. Client clauses use it,
    since a client in JavaScript cannot tell `1` from `1.0`."""
    if _identical(expected, got):  # the common case, checked without building paths
        return None
    if _kind(expected, json_numbers) != _kind(got, json_numbers):
        return f"{path}: expected {show(expected)}, got {show(got)}"
    if isinstance(expected, dict):
        for key, item in expected.items():
            if key not in got:
                return f"{path}: missing key {key!r} (expected {show(item)})"
            found = first_difference(item, got[key], f"{path}.{key}", json_numbers=json_numbers)
            if found:
                return found
        for key in got:
            if key not in expected:
                return f"{path}: unexpected key {key!r} = {show(got[key])}"
        return None
    if isinstance(expected, (list, tuple)):
        for index, (item, other) in enumerate(zip(expected, got)):
            found = first_difference(item, other, f"{path}[{index}]",
                                     json_numbers=json_numbers)
            if found:
                return found
        if len(expected) != len(got):
            if len(expected) > len(got):
                return (f"{path}: expected {len(expected)} items, got {len(got)} "
                        f"(missing {show(expected[len(got)])})")
            return (f"{path}: expected {len(expected)} items, got {len(got)} "
                    f"(extra {show(got[len(expected)])})")
        return None
    if json_numbers and _kind(expected, True) == "number":
        if _as_double(expected) != _as_double(got):
            return f"{path}: expected {show(expected)}, got {show(got)}"
        return None
    if expected != got:
        return f"{path}: expected {show(expected)}, got {show(got)}"
    return None


def _as_double(number: int | float) -> float:
    """The IEEE double a JSON parser makes of `number` (infinite when too large for one)."""
    try:
        return float(number)
    except OverflowError:
        return math.inf if number > 0 else -math.inf


def call_view(call: Any) -> dict:
    """The fields of an `ExtractedCall` a clause compares."""
    return {
        "name": getattr(call, "name", None),
        "arguments": getattr(call, "arguments", None),
        "id": getattr(call, "id", None),
        "error": getattr(call, "error", None),
    }


def calls_difference(expected: list, got: Any, *, path: str = "calls") -> str | None:
    """Where the extracted calls `got` differ from `expected`, or None.

    Compared: name, arguments (types count), whether `error` is set, and the id wherever
    the expected call has one (text formats carry no ids; a strategy may make its own).
    """
    if not isinstance(got, list):
        return f"{path}: extract() must return a list, got {show(got)}"
    views_e, views_g = [], []
    for index, call in enumerate(expected):
        view = call_view(call)
        view["error"] = view["error"] is not None
        other = call_view(got[index]) if index < len(got) else None
        if other is not None:
            other["error"] = other["error"] is not None
            if view["id"] is None:
                other.pop("id")
            views_g.append(other)
        if view["id"] is None:
            view.pop("id")
        views_e.append(view)
    for call in got[len(expected):]:
        other = call_view(call)
        other["error"] = other["error"] is not None
        views_g.append(other)
    return first_difference(views_e, views_g, path)

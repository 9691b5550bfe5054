"""The outcome a client returns for one case (schemas/outcome.json), and the one it must.

`check_outcome` validates what a client returned, naming the field and the case when it is
not an outcome; `outcome_call` writes a reference `ExtractedCall` the way an outcome holds
calls, so the truth of a `Case` and the reference client read calls alike.
"""
from __future__ import annotations

from typing import Any

from mcs_reference.calls import ExtractedCall

from mcs_conformance.base import schema

__all__ = ["OutcomeError", "check_outcome", "error_outcome", "outcome_call", "truth_calls"]


class OutcomeError(ValueError):
    """Raised when a client returns something that is not an outcome (names field and case)."""


def check_outcome(value: Any, where: str) -> dict:
    """`value` when it is a valid outcome; else `OutcomeError` naming the field and `where`
    (the case's base URL)."""
    if not isinstance(value, dict):
        raise OutcomeError(f"the client returned {type(value).__name__}, not an outcome dict, "
                           f"for the case at {where} (see schemas/outcome.json)")
    problems = schema.errors(value, "outcome.json")
    if problems:
        raise OutcomeError(f"the client's outcome for the case at {where} is invalid: "
                           f"{problems[0]} (see schemas/outcome.json)")
    return value


def error_outcome(error: str) -> dict:
    """The outcome of a request that failed before anything was read."""
    return {"calls": [], "text": "", "message": None, "error": error}


def outcome_call(call: ExtractedCall) -> dict:
    """`call` as an outcome call: the parsed arguments, or the raw text when they are not a
    JSON object (a custom tool's free-form input likewise)."""
    if call.kind == "custom":
        arguments: Any = call.input if call.input is not None else ""
    elif call.error is not None:
        arguments = call.raw_arguments if call.raw_arguments is not None else ""
    else:
        arguments = call.arguments
    return {"name": call.name, "arguments": arguments, "id": call.id}


def truth_calls(calls: list[ExtractedCall]) -> list[dict]:
    """What a correct client reports for these calls, in order."""
    return [outcome_call(call) for call in calls]

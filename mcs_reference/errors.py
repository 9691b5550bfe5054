"""Errors raised for bad streams: one root, `StreamError`, so a caller needs one `except`.

Every message names where the problem is (the chunk's position when known) and what was
expected, so that a user can find the offending chunk in a recording.
"""
from __future__ import annotations

from typing import Any

__all__ = ["StreamError", "UnrecognisedStream", "EventOutOfOrder", "MalformedChunk",
           "ProviderError", "expect"]


class StreamError(ValueError):
    """Raised when a chunk or message is not valid input for the strategy that reads it."""

    def __init__(self, message: str, *, index: int | None = None, expected: str | None = None):
        self.detail = message
        self.index = index
        self.expected = expected
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"chunk {self.index}: " if self.index is not None else ""
        hint = f" (expected {self.expected})" if self.expected else ""
        return f"{where}{self.detail}{hint}"

    def at(self, index: int) -> "StreamError":
        """Attach the chunk position if the raiser did not know it; returns self."""
        if self.index is None:
            self.index = index
            self.args = (self._render(),)
        return self

    def __str__(self) -> str:
        return self._render()


class UnrecognisedStream(StreamError):
    """Raised when no strategy of the chain recognizes the first chunk of a stream."""


class EventOutOfOrder(StreamError):
    """Raised when a well-formed event arrives where the wire does not allow it."""


class MalformedChunk(StreamError):
    """Raised when a chunk has the wrong type, misses a required field, or is not JSON."""


class ProviderError(StreamError):
    """Raised when the provider reports an error inside the stream (after HTTP 200).

    `error` is the provider's own error object, unchanged (Ollama's is a string), and
    `message` its human-readable message; the buffer that raised it still returns what was
    assembled before it from `as_dict()`, and is never `is_done()` afterwards.
    """

    def __init__(self, error: Any, *, index: int | None = None):
        self.error = error
        if isinstance(error, str):
            detail, kind = error, None
        elif isinstance(error, dict):
            kind = error.get("type")
            if kind in (None, "error"):  # Responses' flat error event: its type is "error"
                kind = error.get("code")
            detail = error.get("message")
        else:
            detail = kind = None
        self.message = detail if isinstance(detail, str) else None
        text = ": ".join(str(part) for part in (kind, detail) if part) or repr(error)
        super().__init__(f"provider reported an error mid-stream: {text}", index=index)


def expect(condition: bool, message: str, *, expected: str | None = None) -> None:
    """Raise `MalformedChunk` unless `condition`; the validation used by every strategy."""
    if not condition:
        raise MalformedChunk(message, expected=expected)

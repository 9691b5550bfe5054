"""`ExtractionStrategy`: the protocol every format expert implements (see docs/architecture.md).

A strategy knows one format completely: how to recognize its chunks and assembled messages,
how to fold chunks into the native `stream=false` message, where the calls and the visible
text are, and how to write the history after the calls ran. Third parties may subclass this
or duck-type it; the kit certifies either.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from .calls import ExtractedCall, ToolCallRecord

__all__ = ["ExtractionStrategy"]


class ExtractionStrategy(ABC):
    """Abstract base of the format experts; the contract's fixed members are abstract."""

    name: str = ""
    leaks_into_text: bool = False

    @abstractmethod
    def recognizes(self, shape: Any) -> bool:
        """Is this shape (a raw chunk or an assembled message) of my format?"""

    @abstractmethod
    def new_accumulator(self) -> Any:
        """Fresh per-stream state."""

    @abstractmethod
    def accumulate(self, acc: Any, chunk: Any) -> str:
        """Fold one chunk into `acc` in time proportional to the chunk; return its display text."""

    @abstractmethod
    def as_message(self, acc: Any) -> dict:
        """The native message assembled so far (the `stream=false` shape at the end)."""

    @abstractmethod
    def is_done(self, chunk: Any) -> bool:
        """Is this chunk my stream's completion signal?"""

    @abstractmethod
    def extract(self, message: Any) -> list[ExtractedCall]:
        """The client-run calls in a native message, in order, each with its `kind`;
        calls the provider ran itself (server or hosted tools) are never returned."""

    @abstractmethod
    def content_text(self, message: Any) -> str:
        """The visible text of a native message."""

    @abstractmethod
    def forming_name(self, message: Any) -> str | None:
        """Mid-stream: the name of a call being formed once it is known, else None."""

    @abstractmethod
    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """History to append after running `records`: the whole assistant turn (provider-run
        blocks kept as they came), then each result as its call kind's output."""

    # Optional fast paths. The buffer and driver use them when present so a streaming client
    # pays per chunk, not per message; the defaults are correct but rebuild the message.
    def forming_name_of(self, acc: Any) -> str | None:
        """`forming_name` read straight from the accumulator, without assembling a message."""
        return self.forming_name(self.as_message(acc))

    def as_response(self, acc: Any) -> dict:
        """The whole `stream=false` response body; for most wires it is the message itself."""
        return self.as_message(acc)

"""Driver capabilities: what a client may ask of a driver beyond `process_llm_response`.

A capability is a small mixin that names the members a driver provides. A client never
checks a driver's class: it asks `DriverMeta.resolve_capability(driver, SupportsStreaming)`,
which accepts subclasses and duck-typed drivers alike, and gets the driver back or `None`.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

__all__ = ["Capability", "SupportsNativeTools", "SupportsStreaming", "DriverMeta"]


class Capability(ABC):
    """Base of the capabilities; `members` lists what a driver must have to provide one."""

    members: ClassVar[tuple[str, ...]] = ()


class SupportsNativeTools(Capability):
    """The driver reads native tool calls and may look for calls a model wrote as text.

    `backup_text_strategy` is the text strategy that reads the visible text of a native
    message that claims no call but may hold one written as text (Anthropic, Responses):
    the native -> text fall-through. A driver that sets it to `None` turns the fall-through
    off, so text that looks like a call is only ever text.
    """

    members: ClassVar[tuple[str, ...]] = ("backup_text_strategy",)
    backup_text_strategy: Any


class SupportsStreaming(Capability):
    """The driver accepts an `LLMStreamBuffer` after every chunk of a streamed response.

    `extraction_strategies` is the driver's chain (the one its buffers should resolve wires
    with); `new_stream_buffer()` returns a fresh buffer over that chain.
    """

    members: ClassVar[tuple[str, ...]] = ("extraction_strategies", "new_stream_buffer")

    @property
    @abstractmethod
    def extraction_strategies(self) -> Any:
        """The driver's `ExtractionChain`."""

    @abstractmethod
    def new_stream_buffer(self) -> Any:
        """A fresh `LLMStreamBuffer` over `extraction_strategies`."""


def _has_member(obj: Any, name: str) -> bool:
    # getattr, not hasattr: a property that raises anything means the member is unusable.
    try:
        getattr(obj, name)
    except Exception:
        return False
    return True


class DriverMeta:
    """Questions about a driver that do not depend on its class hierarchy."""

    @staticmethod
    def resolve_capability(driver: Any, capability: type) -> Any | None:
        """`driver` if it provides `capability` (subclass or duck-typed), else `None`.

        Duck typing: a driver that has every member the capability declares provides it,
        even if it never inherited the mixin. Raises `TypeError` when `capability` is not a
        capability class (a typo here should fail loudly, not answer "no").
        """
        if not (isinstance(capability, type) and issubclass(capability, Capability)):
            shown = getattr(capability, "__name__", None) or repr(capability)
            raise TypeError(
                f"resolve_capability needs a capability class such as SupportsNativeTools or "
                f"SupportsStreaming (a subclass of mcs_reference.capabilities.Capability), "
                f"got {shown} of type {type(capability).__name__}"
            )
        if capability is Capability:
            raise TypeError(
                "resolve_capability needs a concrete capability (SupportsNativeTools, "
                "SupportsStreaming, ...), not the Capability base class"
            )
        if isinstance(driver, capability):
            return driver
        if all(_has_member(driver, name) for name in capability.members):
            return driver
        return None

    @staticmethod
    def capabilities_of(driver: Any, candidates: tuple[type, ...] | None = None) -> list[type]:
        """The capabilities among `candidates` (default: the built-in ones) `driver` provides."""
        candidates = candidates or (SupportsNativeTools, SupportsStreaming)
        return [c for c in candidates if DriverMeta.resolve_capability(driver, c) is not None]

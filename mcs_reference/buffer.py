"""`LLMStreamBuffer`: one stream, reassembled into the provider's native `stream=false` shape.

The buffer is bound to no driver: it resolves the wire once, on the first chunk, through the
chain, and from then on only delegates to that strategy's accumulator. The display cursor
(`pop_display` / `hold`) lets a driver keep text that may be a call from reaching the user.
"""
from __future__ import annotations

from typing import Any, Iterable

from ._json import short_repr
from .chain import ExtractionChain, default_chain
from .errors import MalformedChunk, ProviderError, StreamError, UnrecognisedStream
from .sse import END_OF_STREAM

__all__ = ["LLMStreamBuffer", "as_chain", "plain_chunk"]

_BUG_TYPES = (KeyError, IndexError, AttributeError, TypeError, AssertionError, RecursionError)


def plain_chunk(chunk: Any) -> Any:
    """A JSON-like value for `chunk`: dicts and strings pass; SDK objects are dumped.

    Objects of the official SDKs have `to_dict()` (only the fields the server sent) or, as any
    pydantic model, `model_dump()`.
    """
    if isinstance(chunk, (dict, str)):
        return chunk
    to_dict = getattr(chunk, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    model_dump = getattr(chunk, "model_dump", None)
    if callable(model_dump):
        try:
            return model_dump(mode="json", exclude_unset=True, by_alias=True)
        except TypeError:
            return model_dump()
    return chunk


def as_chain(strategies_or_chain: Any) -> ExtractionChain:
    """Accept a chain, one strategy, or an iterable of strategies."""
    if isinstance(strategies_or_chain, ExtractionChain):
        return strategies_or_chain
    if hasattr(strategies_or_chain, "recognizes"):
        return ExtractionChain([strategies_or_chain])
    if isinstance(strategies_or_chain, Iterable):
        return ExtractionChain(strategies_or_chain)
    raise TypeError(
        f"LLMStreamBuffer needs an ExtractionChain or extraction strategies, "
        f"got {type(strategies_or_chain).__name__}"
    )


class LLMStreamBuffer:
    """Reassemble one streamed response; feed it chunks with `add`, read it with `as_dict`."""

    def __init__(self, strategies_or_chain: Any = None):
        if strategies_or_chain is None:
            strategies_or_chain = default_chain()
        self.chain = as_chain(strategies_or_chain)
        self.reset()

    def reset(self) -> None:
        """Forget the stream, its display text and any hold: ready for the next response."""
        self.strategy: Any = None
        self._acc: Any = None
        self._count = 0
        self._done = False
        self._failed = False  # the provider reported an error: the stream never completes
        self._deltas: list[str] = []  # every display delta, in order
        self._shown = 0  # how many of them pop_display has handed out
        self._held = False
        self.error: StreamError | None = None
        self.scratch: dict = {}  # per-driver incremental state, keyed by the driver's choice

    @property
    def chunk_count(self) -> int:
        """How many chunks were added since the last reset."""
        return self._count

    def add(self, chunk: Any) -> str:
        """Fold one chunk in; return the visible text it added ("" if none).

        Raises `StreamError` (naming the chunk's position) for a chunk that is not valid for
        the resolved wire, and `ProviderError` when the provider reported an error.
        `END_OF_STREAM` (what `iter_chunks` yields for `data: [DONE]`) is no chunk: it marks
        the stream done, as the server said it is.
        """
        if chunk is END_OF_STREAM:
            self._done = True
            return ""
        index = self._count
        self._count = index + 1
        self._held = False
        if type(chunk) is not dict:  # the common case skips a call: add() is the hot path
            chunk = plain_chunk(chunk)
        strategy = self.strategy
        if strategy is None:
            strategy = self._resolve(chunk, index)
        try:
            delta = strategy.accumulate(self._acc, chunk)
            if strategy.is_done(chunk):
                self._done = True
        except StreamError as exc:
            self.error = exc.at(index)
            if isinstance(exc, ProviderError):
                self._failed = True
            raise
        except _BUG_TYPES as exc:
            error = MalformedChunk(
                f"{getattr(strategy, 'name', strategy)!s} could not read this chunk "
                f"({type(exc).__name__}: {exc})",
                index=index,
                expected=f"a valid {getattr(strategy, 'name', 'wire')} chunk",
            )
            self.error = error
            raise error from exc
        if delta:
            self._deltas.append(delta)
        return delta

    def _resolve(self, chunk: Any, index: int) -> Any:
        strategy = self.chain.resolve(chunk)
        if strategy is None:
            names = ", ".join(getattr(s, "name", "?") for s in self.chain)
            shown = short_repr(chunk, 120, 117)
            raise UnrecognisedStream(
                f"no extraction strategy recognizes the first chunk {shown}",
                index=index,
                expected=f"a chunk of one of: {names}",
            )
        self.strategy = strategy
        self._acc = strategy.new_accumulator()
        return strategy

    def add_all(self, chunks: Iterable[Any]) -> str:
        """Add every chunk; return the display text they added."""
        return "".join(self.add(chunk) for chunk in chunks)

    def as_dict(self) -> dict:
        """The native message so far: the resolved strategy's `as_message` (never normalised)."""
        if self.strategy is None:
            return {}
        return self.strategy.as_message(self._acc)

    def response(self) -> dict:
        """The whole `stream=false` response body (for OpenAI Chat, the `chat.completion`)."""
        if self.strategy is None:
            return {}
        as_response = getattr(self.strategy, "as_response", None)
        return as_response(self._acc) if as_response else self.strategy.as_message(self._acc)

    def forming_name(self) -> str | None:
        """Name of the call forming now, read incrementally when the strategy allows it."""
        if self.strategy is None:
            return None
        fast = getattr(self.strategy, "forming_name_of", None)
        if fast is not None:
            return fast(self._acc)
        return self.strategy.forming_name(self.as_dict())

    def is_done(self) -> bool:
        """Has the wire's completion signal arrived (or the transport been closed)?

        Never after the provider reported an error: whatever follows the error (OpenAI
        Chat's `[DONE]`, Responses' `response.failed`) ends a stream that did not complete.
        """
        return self._done and not self._failed

    def close(self) -> None:
        """The HTTP body ended: mark the stream done even if its wire sent no end signal.

        Some servers never send one (Snowflake sends no `finish_reason`; a text stream has
        no end marker at all); a client calls `close()` when the body ends.
        """
        self._done = True

    def hold(self) -> None:
        """Veto showing pending text for this round (until the next `add`)."""
        self._held = True

    @property
    def held(self) -> bool:
        return self._held

    def pop_display(self) -> str:
        """Text not yet shown; "" while held. Popped text is never returned again."""
        if self._held or self._shown == len(self._deltas):
            return ""
        text = "".join(self._deltas[self._shown:])
        self._shown = len(self._deltas)
        return text

    def deltas_since(self, position: int) -> tuple[list[str], int]:
        """Display deltas added after `position` and the new position: lets a driver scan
        only what is new on each round instead of the whole text so far."""
        return self._deltas[position:], len(self._deltas)

    def __repr__(self) -> str:
        wire = getattr(self.strategy, "name", None) or "unresolved"
        state = "done" if self._done else "streaming"
        return f"<LLMStreamBuffer {wire} {state} chunks={self._count}>"

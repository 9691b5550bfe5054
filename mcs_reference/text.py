"""`TextStrategy`: calls written as text in a plain-text response, read by a codec.

It claims only text: a `str`, or a dict whose `content` is a `str` and that carries no
native structure (an OpenAI Chat message without a `tool_calls` key is text, which is how a
call written in content is found). It never claims a chunk or message of a native wire.
"""
from __future__ import annotations

from typing import Any

from .calls import ExtractedCall, ToolCallRecord
from .errors import MalformedChunk
from .strategy import ExtractionStrategy
from .text_codecs import HermesCodec, JsonCodec

__all__ = ["HermesCodec", "JsonCodec", "TextStrategy"]

# Keys that mark a native shape: OpenAI Chat calls and bodies, Responses, Anthropic, Ollama,
# Gemini (a record, or a usage-only or blocked-prompt one), Bedrock Converse (a response, or
# an event: one key, its type).
_NATIVE_KEYS = ("tool_calls", "choices", "output", "message", "type", "candidates",
                "usageMetadata", "promptFeedback", "stopReason", "messageStart",
                "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop",
                "metadata")
_EXPECTED = "a str text delta, or a dict with a str 'content' and no native structure"


def _is_text_dict(shape: dict) -> bool:
    if not isinstance(shape.get("content"), str):
        return False
    for key in _NATIVE_KEYS:
        if key in shape:
            return False
    return True


class _TextAcc:
    """The text so far (fragments joined lazily) and, once asked for, the name tracker."""

    __slots__ = ("parts", "tracker")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.tracker: Any = None

    def text(self) -> str:
        parts = self.parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""


class TextStrategy(ExtractionStrategy):
    """Read calls that a model wrote in its text, in the format of `codec` (JSON default)."""

    leaks_into_text = False

    def __init__(self, codec: Any = None):
        self.codec = JsonCodec() if codec is None else codec
        self.name = getattr(self.codec, "name", None) or "text"

    def __repr__(self) -> str:
        return f"TextStrategy({self.codec!r})"

    # -- recognition -------------------------------------------------------------------
    def recognizes(self, shape: Any) -> bool:
        try:
            return isinstance(shape, str) or (isinstance(shape, dict) and _is_text_dict(shape))
        except Exception:  # a hostile mapping must not break resolution
            return False

    # -- streaming ---------------------------------------------------------------------
    def new_accumulator(self) -> _TextAcc:
        return _TextAcc()

    def accumulate(self, acc: _TextAcc, chunk: Any) -> str:
        if isinstance(chunk, str):
            text = chunk
        elif isinstance(chunk, dict) and _is_text_dict(chunk):
            text = chunk["content"]
        else:
            raise MalformedChunk(
                f"a text stream cannot hold a {type(chunk).__name__} chunk", expected=_EXPECTED
            )
        if text:
            acc.parts.append(text)
            if acc.tracker is not None:
                acc.tracker.feed(text)
        return text

    def as_message(self, acc: _TextAcc) -> dict:
        return {"role": "assistant", "content": acc.text()}

    def is_done(self, chunk: Any) -> bool:
        """Never: a raw text stream has no end marker (the buffer's `close()` ends it)."""
        return False

    # -- reading -----------------------------------------------------------------------
    def content_text(self, message: Any) -> str:
        if isinstance(message, str):
            return message
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
        raise MalformedChunk(
            f"not a text message: {type(message).__name__}"
            + (f" with content {type(message.get('content')).__name__}"
               if isinstance(message, dict) else ""),
            expected="a str or a dict with a str 'content'",
        )

    def extract(self, message: Any) -> list[ExtractedCall]:
        return self.codec.decode(self.content_text(message))

    def forming_name(self, message: Any) -> str | None:
        return self.codec.peek_name(self.content_text(message))

    def forming_name_of(self, acc: _TextAcc) -> str | None:
        """Incremental: the codec's tracker follows the text from the first question on,
        so each later question costs only the text added since."""
        tracker = acc.tracker
        if tracker is None:
            make = getattr(self.codec, "tracker", None)
            if make is None:  # a codec without a tracker: peek at the whole text
                return self.codec.peek_name(acc.text())
            tracker = acc.tracker = make()
            tracker.feed(acc.text())
        return tracker.name

    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        """The assistant text, then the results as a user turn in the codec's format:
        plain role/content messages, valid for any provider."""
        encode = getattr(self.codec, "encode_results", None) or JsonCodec().encode_results
        return [
            {"role": "assistant", "content": self.content_text(message)},
            {"role": "user", "content": encode(records)},
        ]


def json_text_strategy() -> TextStrategy:
    """The JSON-codec text strategy, as a zero-argument factory for `pkg:Obj` targets."""
    return TextStrategy(JsonCodec())


def hermes_text_strategy() -> TextStrategy:
    """The Hermes-codec text strategy, as a zero-argument factory for `pkg:Obj` targets."""
    return TextStrategy(HermesCodec())

"""Anthropic: a mid-stream `error` event skipped, the partial message returned as complete.

Mimics accumulators that ignore event types they do not handle, the `error` event among
them: an `overloaded_error` after half a tool call leaves a message that the caller takes
for the whole answer, and runs a call with partial arguments.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import AnthropicMessagesStrategy

CAUGHT_BY = "reassembly.provider-error"
STRATEGY = "SkipsErrorEvent"


class SkipsErrorEvent(AnthropicMessagesStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and chunk.get("type") == "error":
            return ""  # BUG: the provider's error is dropped like an unknown event
        return super().accumulate(acc, chunk)

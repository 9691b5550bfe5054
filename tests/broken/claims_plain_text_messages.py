"""OpenAI Chat: any assistant message with str content is taken for this format's own.

Mimics drivers whose native parser accepts every `{"role": "assistant", "content": str}`
dict (it has the role and content keys, so it looks like a Chat Completions message) instead
of leaving plain text to the text strategy, which finds calls written in content. In a chain
the bug hides while the native strategy comes before the text one; once a str delta has
moved the text strategy to the front, the same message resolves to the other strategy, so
whether a call written as text runs depends on what the session saw before.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy

CAUGHT_BY = "resolve.reorder-invariant"
STRATEGY = "ClaimsPlainTextMessages"


class ClaimsPlainTextMessages(OpenAIChatStrategy):
    def recognizes(self, shape: Any) -> bool:
        # BUG: a message with str content and no tool_calls is text by design, not ours.
        return super().recognizes(shape) or (
            isinstance(shape, dict) and shape.get("role") == "assistant"
            and isinstance(shape.get("content"), str))

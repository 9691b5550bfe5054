"""Anthropic Messages: `chunk["type"]` read without a check, so a bad event raises KeyError.

Mimics event dispatchers written as `handlers[event["type"]](event)` or
`if event["type"] == "content_block_delta" and event["delta"]["type"] == ...`: one event
without a field (a proxy's keep-alive `{}`, a truncated line, a non-object) crashes the
client with a bare KeyError or TypeError instead of a StreamError it could handle.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import AnthropicMessagesStrategy

CAUGHT_BY = "robust.bad-input"
STRATEGY = "KeyErrorOnMissingField"


class KeyErrorOnMissingField(AnthropicMessagesStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        # BUG: subscripts first, validates never.
        if chunk["type"] == "content_block_delta" and chunk["delta"]["type"] == "text_delta":
            chunk["delta"]["text"]
        return super().accumulate(acc, chunk)

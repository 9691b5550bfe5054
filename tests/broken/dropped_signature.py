"""Anthropic Messages: the thinking block goes back into the history without its signature.

Mimics clients that keep only the thinking *text* of a response and rebuild the block for
the next request: Anthropic then rejects the tool-result turn with
`thinking.signature: Field required` (WordPress/ai-provider-for-anthropic#30,
cloudwego/eino-ext#388, RooCodeInc/Roo-Code#10351).
"""
from __future__ import annotations

from typing import Any

from mcs_reference import AnthropicMessagesStrategy

CAUGHT_BY = "history.lossless"
STRATEGY = "DroppedSignature"


class DroppedSignature(AnthropicMessagesStrategy):
    def result_messages(self, message: Any, records: list) -> list[dict]:
        history = super().result_messages(message, records)
        turn = history[0]
        # BUG: thinking blocks rebuilt from their text only.
        turn["content"] = [
            {"type": "thinking", "thinking": block.get("thinking", "")}
            if isinstance(block, dict) and block.get("type") == "thinking" else block
            for block in turn["content"]
        ]
        return history

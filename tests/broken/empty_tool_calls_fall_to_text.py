"""OpenAI Chat: a message with `tool_calls` null or `[]` falls back to reading its content.

Mimics "leak recovery" for models served without a tool template: when `tool_calls` is
empty, look for calls written in the content. But OpenAI-style servers say "no call" with
an empty `tool_calls`, and a model that merely quotes a call (explains the format, shows an
example) then gets it run: the false positive the product's guard exists for.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import HermesCodec, JsonCodec, OpenAIChatStrategy

CAUGHT_BY = "extract.false-positive-guard"
STRATEGY = "EmptyToolCallsFallToText"

_CODECS = (JsonCodec(), HermesCodec())


class EmptyToolCallsFallToText(OpenAIChatStrategy):
    def extract(self, message: Any) -> list:
        calls = super().extract(message)
        if calls:
            return calls
        text = self.content_text(message)
        for codec in _CODECS:  # BUG: an authoritative "no call" is second-guessed
            found = codec.decode(text)
            if found:
                return found
        return []

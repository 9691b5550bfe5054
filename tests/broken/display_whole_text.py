"""OpenAI Chat: the display "delta" is the whole text so far, not what this chunk added.

Mimics clients that confuse the SDK's accumulated snapshot with the delta (or servers and
UIs that expect cumulative text, like Gradio's streaming outputs): every chunk returns all
the text so far, so a streaming client that appends deltas shows "HeHelloHello, world".
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy

CAUGHT_BY = "reassembly.prefix"
STRATEGY = "DisplayWholeText"


class DisplayWholeText(OpenAIChatStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        added = super().accumulate(acc, chunk)
        if not added:
            return added
        # BUG: the snapshot is returned where the delta belongs.
        return "".join(acc.choices[0].texts.get("content", ()))

"""Bedrock Converse: a tool block's input deltas are never read; every call runs with {}.

Mimics adapters that take a tool call's arguments from `contentBlockStart` alone (where
Converse sends only the id and the name) and drop the `toolUse.input` deltas that follow:
every streamed call reaches the tool with empty arguments. Reported as crewAI 6207
(streamed Bedrock tool arguments always `{}`).
"""
from __future__ import annotations

from typing import Any

from mcs_reference import BedrockConverseStrategy

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "InputDeltasIgnored"


class InputDeltasIgnored(BedrockConverseStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        delta = chunk.get("contentBlockDelta") if isinstance(chunk, dict) else None
        if isinstance(delta, dict) and "toolUse" in (delta.get("delta") or {}):
            return ""
        return super().accumulate(acc, chunk)

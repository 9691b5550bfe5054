"""Bedrock Converse: every tool block's input deltas go to the first tool block.

Mimics stream readers that keep one input buffer for "the" tool call and ignore
`contentBlockIndex`: with two tool blocks in one answer, the second call's JSON is appended
to the first's (`{"city": "Paris"}{"city": "Tokyo"}`, which no parser reads) and the second
call runs with nothing. Reported as vercel/ai 3068 (two tools' arguments concatenated on
Bedrock).
"""
from __future__ import annotations

import copy
from typing import Any

from mcs_reference import BedrockConverseStrategy

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "ToolInputsConcatenated"


class ToolInputsConcatenated(BedrockConverseStrategy):
    def new_accumulator(self) -> dict:
        return {"inner": super().new_accumulator(), "first": None}

    def accumulate(self, acc: dict, chunk: Any) -> str:
        start = chunk.get("contentBlockStart") if isinstance(chunk, dict) else None
        if isinstance(start, dict) and "toolUse" in (start.get("start") or {}) \
                and acc["first"] is None:
            acc["first"] = start.get("contentBlockIndex")
        delta = chunk.get("contentBlockDelta") if isinstance(chunk, dict) else None
        if isinstance(delta, dict) and "toolUse" in (delta.get("delta") or {}) \
                and acc["first"] is not None:
            chunk = copy.deepcopy(chunk)
            chunk["contentBlockDelta"]["contentBlockIndex"] = acc["first"]
        return super().accumulate(acc["inner"], chunk)

    def as_message(self, acc: dict) -> dict:
        return super().as_message(acc["inner"])

    def as_response(self, acc: dict) -> dict:
        return super().as_response(acc["inner"])

    def forming_name_of(self, acc: dict) -> str | None:
        return super().forming_name_of(acc["inner"])

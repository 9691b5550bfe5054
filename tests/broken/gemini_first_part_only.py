"""Gemini: only the first part of each streamed record is read; the others are dropped.

Mimics stream parsers that take `candidates[0].content.parts[0]` of every chunk, as if a
record held one part: when Gemini sends several calls in one record (parallel calls on
Gemini 2.0, quirk `calls-in-one-record`), every call after the first vanishes. Fixed in
bigduu/Bamboo-agent#372 and openlit/openlit#1400 (the same `parts[0]` read).
"""
from __future__ import annotations

import copy
from typing import Any

from mcs_reference import GeminiStrategy

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "FirstPartOnly"


class FirstPartOnly(GeminiStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("candidates"), list):
            chunk = copy.deepcopy(chunk)
            for candidate in chunk["candidates"]:
                content = candidate.get("content") if isinstance(candidate, dict) else None
                if isinstance(content, dict) and isinstance(content.get("parts"), list):
                    content["parts"] = content["parts"][:1]
        return super().accumulate(acc, chunk)

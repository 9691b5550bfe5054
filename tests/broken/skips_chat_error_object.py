"""OpenAI Chat: a mid-stream error object skipped, the partial message returned as complete.

Mimics accumulators that only read `choices`: an OpenAI-compatible server that fails after
half a tool call sends a chunk holding a top-level `error` object and no choice, which such
code reads as an empty chunk; the caller then runs a call with partial arguments.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy

CAUGHT_BY = "reassembly.provider-error"
STRATEGY = "SkipsChatErrorObject"


class SkipsChatErrorObject(OpenAIChatStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("error"), dict):
            return ""  # BUG: the provider's error object is dropped like an empty chunk
        return super().accumulate(acc, chunk)

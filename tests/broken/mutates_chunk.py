"""OpenAI Chat: the caller's chunk is normalised in place (`delta.setdefault("content", "")`).

Mimics code ported from SDK objects, where `delta.content` always exists, to raw dicts: the
"fix" writes the missing keys into the chunk it was given. A client that records chunks
(for replay, a cache or a proxy) then stores and forwards chunks the server never sent.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy

CAUGHT_BY = "robust.no-mutation"
STRATEGY = "MutatesChunk"


class MutatesChunk(OpenAIChatStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list):
            for choice in chunk["choices"]:
                delta = choice.get("delta") if isinstance(choice, dict) else None
                if isinstance(delta, dict):
                    delta.setdefault("content", "")  # BUG: writes into the caller's chunk
        return super().accumulate(acc, chunk)

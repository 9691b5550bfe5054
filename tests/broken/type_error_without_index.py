"""OpenAI Chat: a tool-call delta without `index` raises TypeError.

Mimics accumulators that index a list with `delta["index"]` or compare it with `<`: Mistral
and some compatible servers send each call whole with no `index` at all, and such code
crashes (`TypeError: '<' not supported between 'NoneType' and 'int'`) instead of appending.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "TypeErrorWithoutIndex"


class TypeErrorWithoutIndex(OpenAIChatStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        choices = chunk.get("choices") if isinstance(chunk, dict) else None
        for choice in choices if isinstance(choices, list) else ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            entries = delta.get("tool_calls") if isinstance(delta, dict) else None
            for entry in entries if isinstance(entries, list) else ():
                if isinstance(entry, dict) and entry.get("index") < 0:  # BUG: None < 0
                    raise ValueError("negative tool call index")
        return super().accumulate(acc, chunk)

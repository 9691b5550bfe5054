"""OpenAI Chat: each arguments fragment is held back until the next one, and the last is lost.

Mimics stream parsers that buffer a tool call's latest `arguments` fragment (to check the
JSON so far, or to strip a trailing brace) and flush it only when the next fragment of that
call arrives, with no flush at the end of the stream: the final fragment never reaches the
call, so `{"city": "Paris"}` runs as `{"city": "Par` (an error call) or as `""`. The family
of ducks/claux#43 (arguments drained before the last deltas) and of the unflushed streamed
arguments fixed in vllm-project/vllm#53739.
"""
from __future__ import annotations

import copy
from typing import Any

from mcs_reference import OpenAIChatStrategy
from mcs_reference.openai_chat import _Acc

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "LostLastFragment"


class _HoldingAcc(_Acc):
    __slots__ = ("held",)

    def __init__(self) -> None:
        super().__init__()
        self.held: dict[tuple[str, str], str] = {}


class LostLastFragment(OpenAIChatStrategy):
    def new_accumulator(self) -> _HoldingAcc:
        return _HoldingAcc()

    def accumulate(self, acc: _HoldingAcc, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list):
            chunk = copy.deepcopy(chunk)
            for choice in chunk["choices"]:
                delta = choice.get("delta") if isinstance(choice, dict) else None
                entries = delta.get("tool_calls") if isinstance(delta, dict) else None
                for entry in entries if isinstance(entries, list) else ():
                    function = entry.get("function") if isinstance(entry, dict) else None
                    fragment = function.get("arguments") if isinstance(function, dict) else None
                    if isinstance(fragment, str) and fragment:
                        key = (repr(choice.get("index")), repr(entry.get("index")))
                        # BUG: emit the fragment held so far, hold this one; nothing flushes
                        # the last one when the stream finishes.
                        function["arguments"] = acc.held.get(key, "")
                        acc.held[key] = fragment
        return super().accumulate(acc, chunk)

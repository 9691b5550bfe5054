"""OpenAI Chat: tool-call deltas merged by `id` instead of by `index`.

Mimics accumulators that key "is this a new call?" on the presence of an `id` in the delta.
OpenAI sends the id on the first delta only, but Alibaba's DashScope (Qwen) and others echo
`id: ""` on every continuation, which such code reads as a new call with no name; and a
continuation of an interleaved parallel call lands on whichever call came last. Reported
and fixed in symfony/ai#2220, spring-projects/spring-ai#6591 and langchain-ai/langchain#35414.
"""
from __future__ import annotations

import copy
from typing import Any

from mcs_reference import OpenAIChatStrategy
from mcs_reference.openai_chat import _Acc

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "MergedById"


class _IdAcc(_Acc):
    __slots__ = ("ids",)

    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []


class MergedById(OpenAIChatStrategy):
    def new_accumulator(self) -> _IdAcc:
        return _IdAcc()

    def accumulate(self, acc: _IdAcc, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list):
            chunk = copy.deepcopy(chunk)
            for choice in chunk["choices"]:
                delta = choice.get("delta") if isinstance(choice, dict) else None
                entries = delta.get("tool_calls") if isinstance(delta, dict) else None
                for entry in entries if isinstance(entries, list) else ():
                    if not isinstance(entry, dict):
                        continue
                    call_id = entry.get("id")
                    # BUG: any id present (even "") that is not known starts a new call;
                    # a delta without an id continues the last call, whatever its index.
                    if isinstance(call_id, str):
                        if call_id not in acc.ids:
                            acc.ids.append(call_id)
                        entry["index"] = acc.ids.index(call_id)
                    elif acc.ids:
                        entry["index"] = len(acc.ids) - 1
        return super().accumulate(acc, chunk)

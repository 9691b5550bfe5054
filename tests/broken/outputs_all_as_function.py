"""OpenAI Responses: every result sent back as a `function_call_output`.

Mimics drivers that know one output item type: a custom tool's or a shell call's result
goes back as a function result, which the API refuses (or the model never sees the
screenshot, the shell output, the patch outcome it asked for).
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIResponsesStrategy
from mcs_reference.calls import ToolCallRecord

CAUGHT_BY = "history.output-kinds"
STRATEGY = "OutputsAllAsFunction"


class OutputsAllAsFunction(OpenAIResponsesStrategy):
    def result_messages(self, message: Any, records: list[ToolCallRecord]) -> list[dict]:
        history = super().result_messages(message, records)
        out = []
        for item in history:
            if isinstance(item, dict) and str(item.get("type", "")).endswith("_output"):
                # BUG: whatever the call's kind, its result is written as a function's
                item = {"type": "function_call_output",
                        "call_id": item.get("call_id", item.get("id")),
                        "output": item.get("output") if isinstance(item.get("output"), str)
                        else "done"}
            out.append(item)
        return out

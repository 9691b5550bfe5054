"""OpenAI Responses: only `function_call` items extracted; custom and built-in tools dropped.

Mimics every reassembler written before custom tools and the computer, shell and patch
tools existed (the reference itself until issue 14): a recorded `custom_tool_call` named
`write_sql` went through the buffer and the driver ran nothing, silently.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIResponsesStrategy
from mcs_reference.calls import ExtractedCall

CAUGHT_BY = "extract.client-kinds"
STRATEGY = "FunctionCallsOnly"


class FunctionCallsOnly(OpenAIResponsesStrategy):
    def extract(self, message: Any) -> list[ExtractedCall]:
        # BUG: every kind but function is dropped
        return [call for call in super().extract(message) if call.kind == "function"]

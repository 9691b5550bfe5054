"""OpenAI Chat: `chunk["choices"][0]` on the usage-only trailing chunk raises IndexError.

With `stream_options: {"include_usage": true}` (and on Azure, DeepSeek, Fireworks, Bedrock
and others by default) the last chunk has `choices: []` and only `usage`; code indexing
`choices[0]` crashes at the very end of every such stream (pydantic/logfire#64,
AgentOps-AI/agentops#176, pixeltable/pixeltable#1234, awslabs/llmeter#34).
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy

CAUGHT_BY = "reassembly.trailing"
STRATEGY = "UsageChunkIndexError"


class UsageChunkIndexError(OpenAIChatStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("choices"), list):
            chunk["choices"][0]  # BUG: assumes every chunk has a choice
        return super().accumulate(acc, chunk)

"""Anthropic Messages: a call to a tool without parameters (`input: {}`) is dropped.

Anthropic streams a parameterless tool's input as one `partial_json: ""` (or no delta at
all); code that keeps a call only once it has some arguments (`if call.arguments:`) never
runs it. Reported as QwenLM/qwen-code#6249, JohnnyZ93/oai-compatible-copilot#151 and
BerriAI/litellm#11658 (Ollama), langchain-ai/langchainjs#8581.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import AnthropicMessagesStrategy

CAUGHT_BY = "extract.calls"
STRATEGY = "EmptyArgumentsLost"


class EmptyArgumentsLost(AnthropicMessagesStrategy):
    def extract(self, message: Any) -> list:
        # BUG: a call with {} arguments is taken for one whose arguments never came.
        return [call for call in super().extract(message) if call.arguments or call.error]

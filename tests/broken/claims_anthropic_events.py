"""OpenAI Responses: any typed event is taken for a Responses event, Anthropic's included.

Both APIs stream typed SSE events (`{"type": ...}`); a recognizer written as "it has a
string `type`, so it is the Responses API" claims Anthropic's `message_start`,
`content_block_delta` and its `{"type": "message", ...}` answers, and the chain sends a
Claude stream to the wrong expert (the usual failure of "auto-detect the provider" code
in gateways that added the Responses API next to Anthropic's).
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIResponsesStrategy

CAUGHT_BY = "resolve.foreign"
STRATEGY = "ClaimsAnthropicEvents"


class ClaimsAnthropicEvents(OpenAIResponsesStrategy):
    def recognizes(self, shape: Any) -> bool:
        # BUG: a typed object is not necessarily a Responses event.
        return (isinstance(shape, dict) and isinstance(shape.get("type"), str)) or \
            super().recognizes(shape)

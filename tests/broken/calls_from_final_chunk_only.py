"""Ollama chat: tool calls are read from the final `done: true` chunk only.

Older Ollama servers sent a stream's tool calls in its last chunk; since streamed tool
calling (Ollama 0.8) they come whole in a `done: false` chunk before it. Clients written
against the old behaviour keep looking at the final chunk, so with a current server every
call is lost and the turn looks like a plain answer.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OllamaChatStrategy

CAUGHT_BY = "extract.calls"
STRATEGY = "CallsFromFinalChunkOnly"


class CallsFromFinalChunkOnly(OllamaChatStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        message = chunk.get("message") if isinstance(chunk, dict) else None
        if chunk_is_open(chunk) and isinstance(message, dict) and "tool_calls" in message:
            # BUG: calls outside the done:true chunk are not looked at.
            message = {key: value for key, value in message.items() if key != "tool_calls"}
            chunk = {**chunk, "message": message}
        return super().accumulate(acc, chunk)


def chunk_is_open(chunk: Any) -> bool:
    return isinstance(chunk, dict) and chunk.get("done") is False

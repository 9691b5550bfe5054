"""OpenAI Responses: the `error` event skipped and `response.failed` taken as the end.

Mimics code that only looks for a terminal response event: `response.failed` is read like
`response.completed`, so a rate-limited or crashed response comes back as a finished one,
its partial output run and shown as the whole answer.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIResponsesStrategy

CAUGHT_BY = "reassembly.provider-error"
STRATEGY = "FailedAsCompleted"


class FailedAsCompleted(OpenAIResponsesStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and chunk.get("type") == "error":
            return ""  # BUG: the provider's error is dropped
        if isinstance(chunk, dict) and chunk.get("type") == "response.failed":
            chunk = dict(chunk, type="response.completed")  # BUG: failed read as finished
        return super().accumulate(acc, chunk)

    def is_done(self, chunk: Any) -> bool:
        return super().is_done(chunk) or (
            isinstance(chunk, dict) and chunk.get("type") == "response.failed")

"""OpenAI Responses: `is_done` true on a per-item `.done` event, not only at the end.

Mimics clients that treat `response.output_item.done` or
`response.function_call_arguments.done` as "the answer is complete" and run the calls (or
close the stream) there, though more items, the final `response.completed` and its usage
still follow: a second parallel call, the text after a call, the usage are lost, and
`process_llm_response` sees a half-finished response.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIResponsesStrategy

CAUGHT_BY = "reassembly.done"
STRATEGY = "DoneOnItemDone"

_ENDS = ("response.completed", "response.incomplete",
         "response.output_item.done", "response.function_call_arguments.done")


class DoneOnItemDone(OpenAIResponsesStrategy):
    def is_done(self, chunk: Any) -> bool:
        # BUG: an item's completion is taken for the stream's.
        return isinstance(chunk, dict) and chunk.get("type") in _ENDS

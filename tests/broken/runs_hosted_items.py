"""OpenAI Responses: hosted `web_search_call` and `mcp_call` items extracted as calls.

Mimics code that reads any output item ending in `_call` with an id as a call for the client:
the provider-run web search and MCP tool calls (already run on OpenAI's side) are run a
second time by the driver.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIResponsesStrategy
from mcs_reference.calls import ExtractedCall

CAUGHT_BY = "extract.provider-run"
STRATEGY = "RunsHostedItems"


class RunsHostedItems(OpenAIResponsesStrategy):
    def extract(self, message: Any) -> list[ExtractedCall]:
        calls = super().extract(message)
        output = message.get("output") if isinstance(message, dict) else None
        for item in output if isinstance(output, list) else ():
            # BUG: hosted tool items run as if the client owned them.
            if isinstance(item, dict) and item.get("type") in ("web_search_call", "mcp_call"):
                calls.append(ExtractedCall(item.get("name") or item["type"], {}, item.get("id")))
        return calls

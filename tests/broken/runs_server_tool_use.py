"""Anthropic: `server_tool_use` blocks extracted as client calls.

Mimics code that treats every block whose type ends in `tool_use` as a call to run (the
mistake read in an SDK's tool runner): a web search or code execution Anthropic already ran
is run again on the client, or fails on a tool the client never offered.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import AnthropicMessagesStrategy
from mcs_reference.calls import ExtractedCall

CAUGHT_BY = "extract.provider-run"
STRATEGY = "RunsServerToolUse"


class RunsServerToolUse(AnthropicMessagesStrategy):
    def extract(self, message: Any) -> list[ExtractedCall]:
        calls = []
        for block in message.get("content", ()) if isinstance(message, dict) else ():
            # BUG: server_tool_use (and mcp_tool_use) read as the client's calls too.
            if isinstance(block, dict) and str(block.get("type", "")).endswith("tool_use"):
                calls.append(ExtractedCall(block.get("name"), block.get("input") or {},
                                           block.get("id")))
        return calls

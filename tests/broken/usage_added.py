"""Anthropic Messages: `message_delta` usage added to `message_start`'s instead of replacing it.

Anthropic's usage counters are cumulative: `message_delta` repeats the totals (input and
cache counters, the final `output_tokens`). Summing them onto the `message_start` seed
inflates output tokens by the seed and doubles input and cache tokens when they are
repeated. Reported across gateways and SDKs: envoyproxy/ai-gateway#2239,
microsoft/agent-framework#7143, tensorzero/tensorzero#5481, symfony/ai#2178.
"""
from __future__ import annotations

import copy
from typing import Any

from mcs_reference import AnthropicMessagesStrategy

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "UsageAdded"


class UsageAdded(AnthropicMessagesStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if (isinstance(chunk, dict) and chunk.get("type") == "message_delta"
                and isinstance(chunk.get("usage"), dict) and isinstance(acc.usage, dict)):
            chunk = copy.deepcopy(chunk)
            usage = chunk["usage"]
            for key, value in usage.items():
                held = acc.usage.get(key)
                # BUG: counters are totals so far, but they are summed like increments.
                if type(value) is int and type(held) is int:
                    usage[key] = held + value
        return super().accumulate(acc, chunk)

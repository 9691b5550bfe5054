"""Text strategy: claims any dict whose `content` is a str, `tool_calls` key or not.

Mimics "fallback" text parsers placed in a chain that check only `content`: an OpenAI
message with `tool_calls: null` or `[]` (or with real calls) and a str content quoting a
call is taken for plain text, so the chain hands a native message to the text codec and
runs a call the model only talked about, or reads the wrong calls of a native message.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import TextStrategy

CAUGHT_BY = "resolve.text-never-native"
STRATEGY = "TextClaimsNativeDict"


class TextClaimsNativeDict(TextStrategy):
    def recognizes(self, shape: Any) -> bool:
        # BUG: no look at tool_calls, choices, output, type: any str content is "text".
        return isinstance(shape, str) or (
            isinstance(shape, dict) and isinstance(shape.get("content"), str))

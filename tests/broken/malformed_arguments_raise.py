"""OpenAI Chat: `json.loads` on the arguments without a guard, so a malformed call raises.

Models write invalid arguments (truncated by `max_tokens`, single quotes, a trailing
brace); `json.loads(call.function.arguments)` then raises `JSONDecodeError` out of the
client, and the whole turn fails instead of sending the model an error to retry with.
The most common bug of hand-written tool loops.
"""
from __future__ import annotations

import json
from typing import Any

from mcs_reference import ExtractedCall, OpenAIChatStrategy

CAUGHT_BY = "extract.malformed"
STRATEGY = "MalformedArgumentsRaise"


class MalformedArgumentsRaise(OpenAIChatStrategy):
    def extract(self, message: Any) -> list:
        calls = []
        for call in super().extract(message):
            if call.error is not None and call.raw_arguments is not None:
                # BUG: parse again, unguarded: the error call becomes an exception.
                calls.append(ExtractedCall(call.name, json.loads(call.raw_arguments), call.id))
            else:
                calls.append(call)
        return calls

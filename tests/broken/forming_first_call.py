"""OpenAI Chat: `forming_name` names the first call of the message, not the one forming.

Mimics `tool_calls[0]` written where the last started call was meant: while the second of
two parallel calls streams, the UI announces (or pre-warms) the first tool again, and
after the stream the "current tool" is wrong. An easy slip when code was written and
tested against single-call answers.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import OpenAIChatStrategy
from mcs_reference.openai_chat import _message_of, _tool_calls_of

CAUGHT_BY = "extract.forming"
STRATEGY = "FormingFirstCall"


class FormingFirstCall(OpenAIChatStrategy):
    def forming_name(self, message: Any) -> str | None:
        calls = _tool_calls_of(_message_of(message))
        function = calls[0].get("function") if calls and isinstance(calls[0], dict) else None
        name = function.get("name") if isinstance(function, dict) else None  # BUG: [0]
        return name if isinstance(name, str) and name else None

    def forming_name_of(self, acc: Any) -> str | None:
        if not acc.choices or not acc.choices[0].calls:
            return None
        return acc.choices[0].calls[0].name or None  # BUG: the first call, not the last

"""JSON text strategy: any JSON object the model writes is executed as a call.

Mimics "JSON mode" tool-calling shims (put the tools in the prompt, then infer a call from
any JSON in the answer, as early Ollama providers for the Vercel AI SDK did before native
tools, sgomez/ollama-ai-provider#11): when the text holds no `{"tool": ..., "arguments":
...}` object, the first JSON object in it is taken for a call, `name`/`function` for the
tool and the rest for its arguments. A model that answers with data (`{"temp": 21}`) or
shows an example in a code fence then makes the driver run a call nobody made.
"""
from __future__ import annotations

import json
from typing import Any

from mcs_reference import ExtractedCall, JsonCodec, TextStrategy

CAUGHT_BY = "extract.no-phantom"
STRATEGY = "AnyJsonObjectIsACall"

_DECODER = json.JSONDecoder()


class _EagerJsonCodec(JsonCodec):
    def decode(self, text: str) -> list:
        calls = super().decode(text)
        if calls:
            return calls
        # BUG: no call found, so the first JSON object anywhere is taken for one.
        start = text.find("{")
        while start != -1:
            try:
                value, _ = _DECODER.raw_decode(text, start)
            except ValueError:
                start = text.find("{", start + 1)
                continue
            if isinstance(value, dict):
                name = value.get("name", value.get("function", ""))
                arguments: Any = value.get("arguments", value.get("parameters"))
                if not isinstance(arguments, dict):
                    arguments = {k: v for k, v in value.items() if k not in ("name", "function")}
                return [ExtractedCall(name if isinstance(name, str) else "", arguments)]
            start = text.find("{", start + 1)
        return []


class AnyJsonObjectIsACall(TextStrategy):
    def __init__(self) -> None:
        super().__init__(_EagerJsonCodec())

"""JSON text strategy: any JSON object with a string `name` is taken for a call.

Mimics Llama-3-style JSON parsers that look for `{"name": ..., "parameters": ...}` and treat
the parameters as optional: a model answering with a record (`{"name": "Alice", "age": 30}`)
or showing one in a code fence has it executed as a call to a tool named "Alice", with the
record's other fields as arguments (the prose-JSON false positive reported against
vLLM's llama3_json tool parser).
"""
from __future__ import annotations

import json

from mcs_reference import ExtractedCall, JsonCodec, TextStrategy

CAUGHT_BY = "extract.no-phantom"
STRATEGY = "NamedRecordIsACall"

_DECODER = json.JSONDecoder()


class _NameKeyCodec(JsonCodec):
    def decode(self, text: str) -> list:
        calls = list(super().decode(text))
        start = text.find("{")
        while start != -1:
            try:
                value, end = _DECODER.raw_decode(text, start)
            except ValueError:
                start = text.find("{", start + 1)
                continue
            # BUG: a string `name` is enough; the arguments default to the other fields.
            if isinstance(value, dict) and isinstance(value.get("name"), str) and "tool" not in value:
                arguments = value.get("parameters", value.get("arguments"))
                if not isinstance(arguments, dict):
                    arguments = {k: v for k, v in value.items() if k != "name"}
                calls.append(ExtractedCall(value["name"], arguments))
            start = text.find("{", end)
        return calls


class NamedRecordIsACall(TextStrategy):
    def __init__(self) -> None:
        super().__init__(_NameKeyCodec())

"""Mistral calls decoded with Python's json as it comes: NaN and Infinity are numbers.

`json.loads` reads the words NaN, Infinity and -Infinity, which JSON does not have: a model
writing `{"ratio": NaN}` gets a call whose arguments no tool reading JSON can take, instead
of an error call that shows the client what went wrong.
"""
from __future__ import annotations

import json

from mcs_reference import ExtractedCall
from mcs_reference.formats_json_calls import MistralCodec

FORMAT = "mistral"
CODEC = "NanIsANumber"
CAUGHT_BY = "non-finite-literal"


class NanIsANumber(MistralCodec):
    def decode(self, text: str) -> list[ExtractedCall]:
        mark = text.find("[TOOL_CALLS]")
        if mark == -1:
            return []
        start = text.find("[", mark + len("[TOOL_CALLS]"))
        try:
            items, _ = json.JSONDecoder().raw_decode(text, start)  # BUG: NaN read as a number
        except ValueError:
            return MistralCodec().decode(text)
        if not isinstance(items, list):
            return MistralCodec().decode(text)
        return [ExtractedCall(item["name"], item["arguments"], item.get("id"))
                for item in items if isinstance(item, dict) and isinstance(item.get("name"), str)
                and isinstance(item.get("arguments"), dict)]

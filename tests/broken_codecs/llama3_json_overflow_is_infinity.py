"""Llama 3 JSON calls decoded by a JSON reader that refuses NaN but reads 1e400 as inf.

Python's json (and many others) parse a number too large for a double as infinity. Refusing
the NaN and Infinity words is not enough: `{"n": 1e400}` becomes a call whose arguments are
no JSON, which the client serialises back as `Infinity` to a tool that cannot read it.
"""
from __future__ import annotations

import json

from mcs_reference import ExtractedCall
from mcs_reference.formats_json_calls import Llama3JsonCodec

FORMAT = "llama3-json"
CODEC = "OverflowIsInfinity"
CAUGHT_BY = "number-overflow"


def _refuse(word: str) -> float:
    raise ValueError(f"{word} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse)  # BUG: parse_float left as float()


class OverflowIsInfinity(Llama3JsonCodec):
    def decode(self, text: str) -> list[ExtractedCall]:
        calls, pos = [], text.find('{"name"')
        while pos != -1:
            try:
                value, end = _DECODER.raw_decode(text, pos)
            except ValueError:
                pos = text.find('{"name"', pos + 1)
                continue
            if isinstance(value, dict) and isinstance(value.get("name"), str) and \
                    isinstance(value.get("parameters"), dict):
                calls.append(ExtractedCall(value["name"], value["parameters"]))
            pos = text.find('{"name"', end)
        return calls

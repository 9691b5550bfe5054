"""DeepSeek-V3 read with a regex whose name group is `(.*)` up to the newline.

`function<｜tool▁sep｜>(?P<name>.*)\\n```json` takes every character before the newline as the
name: a space or tab the model puts there (a name split in two tokens, an indented line)
becomes part of the name of a call the client is asked to run.
"""
from __future__ import annotations

import json
import re

from mcs_reference import ExtractedCall
from mcs_reference.formats_special import DeepSeekV3Codec

FORMAT = "deepseek-v3"
CODEC = "NameToLineEnd"
CAUGHT_BY = "whitespace-in-head"

_CALL = re.compile("<\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>"
                   "(.*)\n```json\n(.*?)\n```<\uff5ctool\u2581call\u2581end\uff5c>", re.S)


class NameToLineEnd(DeepSeekV3Codec):
    def decode(self, text: str) -> list[ExtractedCall]:
        calls = []
        for part in text.split("<\uff5ctool\u2581call\u2581begin\uff5c>")[1:]:
            match = _CALL.match("<\uff5ctool\u2581call\u2581begin\uff5c>" + part)
            if match is None:
                continue
            try:
                arguments = json.loads(match.group(2), parse_constant=_refuse,
                                       parse_float=_finite)
            except ValueError as exc:
                calls.append(ExtractedCall(match.group(1), {}, None, str(exc), match.group(2)))
                continue
            calls.append(ExtractedCall(match.group(1), arguments))  # BUG: the name unchecked
        return calls


def _refuse(word: str) -> float:
    raise ValueError(f"{word} is not JSON")


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{text} overflows")
    return value

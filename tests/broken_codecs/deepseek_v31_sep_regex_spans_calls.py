"""DeepSeek-V3.1 read with one regex per call, `begin(.*?)sep(.*?)end`, across the text.

Regex tool parsers match the head lazily up to the separator without stopping at the next
call's begin token. When a call's `<｜tool▁sep｜>` is lost, the head runs on through the
next call: a call named with special tokens inside, which no model can write.
"""
from __future__ import annotations

import re

from mcs_reference import ExtractedCall
from mcs_reference.formats_special import DeepSeekV31Codec

FORMAT = "deepseek-v3.1"
CODEC = "SepRegexSpansCalls"
CAUGHT_BY = "delimiter-deleted"

_CALL = re.compile("<\uff5ctool\u2581call\u2581begin\uff5c>(.*?)<\uff5ctool\u2581sep\uff5c>"
                   "(.*?)<\uff5ctool\u2581call\u2581end\uff5c>", re.S)


class SepRegexSpansCalls(DeepSeekV31Codec):
    def decode(self, text: str) -> list[ExtractedCall]:
        calls = []
        for match in _CALL.finditer(text):
            try:
                arguments = DeepSeekV31Codec().decode(  # the reference reads the arguments
                    f"<\uff5ctool\u2581call\u2581begin\uff5c>f<\uff5ctool\u2581sep\uff5c>"
                    f"{match.group(2)}<\uff5ctool\u2581call\u2581end\uff5c>")[0]
            except IndexError:
                continue
            # BUG: the head is whatever lies between the first begin and the next separator
            calls.append(ExtractedCall(match.group(1).strip(), arguments.arguments, None,
                                       arguments.error, arguments.raw_arguments))
        return calls

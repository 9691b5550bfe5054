"""Hermes: a call cut off by the end of the output is reported, but without its text.

The parser knows the call is unterminated and marks it failed, then drops what was written
of it: the client is told a call failed and cannot show what the model wrote or retry it
(max_tokens reached in the middle of the arguments is the everyday case).
"""
from __future__ import annotations

import dataclasses

from mcs_reference import ExtractedCall, HermesCodec

FORMAT = "hermes"
CODEC = "CutCallLosesText"
CAUGHT_BY = "cut-short"


class CutCallLosesText(HermesCodec):
    def decode(self, text: str) -> list[ExtractedCall]:
        return [dataclasses.replace(call, raw_arguments=None)  # BUG: the text thrown away
                if call.error is not None and "unterminated" in call.error else call
                for call in super().decode(text)]

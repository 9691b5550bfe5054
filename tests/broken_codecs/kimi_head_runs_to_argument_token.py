"""Kimi K2 read with `<|tool_call_begin|>(.+?)<|tool_call_argument_begin|>` over the text.

The head is matched from a begin token up to the next argument token, whatever lies between:
a begin token written twice (the model repeating a special token, a stream replayed) puts
the token itself into the call's id and name, which the parser then hands to the client.
vLLM and SGLang match the head with `[^<]+` or `[\\w.]+:\\d+` to avoid exactly this.
"""
from __future__ import annotations

import re

from mcs_reference import ExtractedCall
from mcs_reference.formats_special import KimiK2Codec

FORMAT = "kimi-k2"
CODEC = "HeadRunsToArgumentToken"
CAUGHT_BY = "delimiter-doubled"

_CALL = re.compile(r"<\|tool_call_begin\|>(.+?)<\|tool_call_argument_begin\|>(.*?)"
                   r"(?=<\|tool_call_end\|>|<\|tool_call_begin\|>|\Z)", re.S)


class HeadRunsToArgumentToken(KimiK2Codec):
    def decode(self, text: str) -> list[ExtractedCall]:
        calls = []
        for match in _CALL.finditer(text):
            head = match.group(1).strip()  # BUG: may hold a begin token
            name = head.removeprefix("functions.").rpartition(":")[0] or head
            found = KimiK2Codec().decode(f"<|tool_call_begin|>functions.f:0"
                                         f"<|tool_call_argument_begin|>{match.group(2)}")
            if found:
                calls.append(ExtractedCall(name, found[0].arguments, head, found[0].error,
                                           found[0].raw_arguments))
        return calls

"""Mistral v11 read as: the name runs from `[TOOL_CALLS]` to the next `[ARGS]`.

A parser that splits on the tokens in order (name up to `[ARGS]`, arguments after it)
without checking that no other token stands in the name. When a call's `[ARGS]` and the next
call's `[TOOL_CALLS]` come in the other order, the first name swallows the next marker and
arguments, and the second call's arguments are given to it.
"""
from __future__ import annotations

from mcs_reference import ExtractedCall
from mcs_reference.formats_json_calls import MistralV11Codec

FORMAT = "mistral-v11"
CODEC = "NameRunsToArgsToken"
CAUGHT_BY = "delimiters-swapped"


class NameRunsToArgsToken(MistralV11Codec):
    def decode(self, text: str) -> list[ExtractedCall]:
        calls, mark = [], text.find("[TOOL_CALLS]")
        while mark != -1:
            args = text.find("[ARGS]", mark)
            if args == -1:
                break
            name = text[mark + len("[TOOL_CALLS]"):args]  # BUG: other tokens may stand here
            found = MistralV11Codec().decode("[TOOL_CALLS]f[ARGS]" + text[args + 6:])
            if found:
                calls.append(ExtractedCall(name, found[0].arguments, None, found[0].error,
                                           found[0].raw_arguments))
            mark = text.find("[TOOL_CALLS]", args)
        return calls

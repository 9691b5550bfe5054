"""Deliberately broken tool parsers: each must fail its parser clause (the clauses can fail)."""
from __future__ import annotations

import os
import time

from mcs_reference import ExtractedCall
from mcs_conformance.engines.reference import ReferenceParser


class _Broken(ReferenceParser):
    formats = ("hermes", "json")


class DropsLastFragment(_Broken):
    """Streams every call but leaves the last character of its arguments unsent."""

    def stream(self, deltas, tools):
        out = super().stream(deltas, tools)
        for delta in out:
            for entry in delta.get("tool_calls", ()):
                entry["function"]["arguments"] = entry["function"]["arguments"][:-1]
        return out


class SwallowsContent(_Broken):
    """Loses the prose of every delta that also holds a special token (or any prose at all
    when the format has none)."""

    def parse(self, text, tools):
        message = super().parse(text, tools)
        message["content"] = None
        return message


class JsonInProseIsACall(_Broken):
    """Takes any JSON object in the text for a call."""

    def parse(self, text, tools):
        message = super().parse(text, tools)
        if "{" in text and "tool_calls" not in message:
            message["tool_calls"] = [{"id": "call_0", "type": "function",
                                      "function": {"name": "phantom", "arguments": "{}"}}]
        return message


class DropsMalformed(_Broken):
    """Discards a call whose arguments are not JSON, and its text."""

    def parse(self, text, tools):
        return {"role": "assistant", "content": None}


class OpensOnlyAsTheTemplateDoes(ReferenceParser):
    """Streams prose up to the special token the template's first call opens with, as if
    no model wrote another spelling (Kimi K2 without section markers, Qwen3-Coder without
    `<tool_call>`, Harmony with the recipient in the role header)."""

    formats = ("qwen3-coder", "kimi-k2", "harmony")

    def __init__(self, format):
        super().__init__(format)
        first = self.codec.encode([ExtractedCall("f", {})])
        self.openings = {t for t in self.codec.special_tokens if first.startswith(t)}


class RaisesWhileStreaming(_Broken):
    def stream(self, deltas, tools):
        raise IndexError("list index out of range")


def _factory(cls):
    def make(format):
        return cls(format)
    make.formats = cls.formats
    return make


drops_last_fragment = _factory(DropsLastFragment)
swallows_content = _factory(SwallowsContent)
json_in_prose_is_a_call = _factory(JsonInProseIsACall)
drops_malformed = _factory(DropsMalformed)
raises_while_streaming = _factory(RaisesWhileStreaming)
opens_only_as_the_template_does = _factory(OpensOnlyAsTheTemplateDoes)


class _Hangs(ReferenceParser):
    def parse(self, text, tools):
        time.sleep(3600)


def troubled(format):
    """A parser that hangs on `json`, cannot be built for `qwen3-coder`, takes its process
    down on `mistral`, and is the reference on the other formats (a matrix cell of each
    kind)."""
    if format == "qwen3-coder":
        raise RuntimeError("this engine cannot be built for qwen3-coder")
    if format == "mistral":
        os._exit(3)
    return (_Hangs if format == "json" else ReferenceParser)(format)


troubled.formats = ("json", "hermes", "qwen3-coder", "mistral")

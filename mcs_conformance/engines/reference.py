"""The reference parser: `mcs_reference`'s format codecs behind the engine parser protocol.

The baseline row of the engines matrix, and a model of what an engine's streaming parser
must do: stream the prose as it comes, up to the first special token a call of the format
can open with, in its chat template's spelling or in any spelling real models write
(wires/_spellings.py: Kimi K2 may open with `<|tool_call_begin|>`, no section marker);
none can stand in prose, so the calls start there. Hold the rest; at the end of the stream,
read the held text whole, once, and send the prose left in it and each call, complete.
A format whose call may open with no special token (bare JSON, pythonic lists, Qwen3-Coder
without its `<tool_call>`, Harmony with the recipient in the role header) holds everything
until the end: prose cannot be told from the start of a call before the call is complete.
Linear in the stream: each token is looked at once, and the held text is read once.
"""
from __future__ import annotations

import json
from typing import Any

from mcs_reference.calls import ExtractedCall
from mcs_reference.formats import format_codec, format_names
from mcs_conformance.wires import spelled, spelling_choices, tokenize

__all__ = ["ReferenceParser", "parser"]


def _tool_call(index: int, call: ExtractedCall) -> dict:
    """A call as the server sends it: arguments as JSON text, or the raw text of
    arguments that are not a JSON object (surfaced, for the client to refuse)."""
    arguments = call.raw_arguments if call.error is not None and call.raw_arguments is not None \
        else json.dumps(call.arguments, ensure_ascii=False)
    return {"index": index, "id": call.id or f"call_{index}", "type": "function",
            "function": {"name": call.name, "arguments": arguments}}


def _call_openings(codec: Any) -> frozenset[str] | None:
    """The special tokens a call of `codec`'s format can open with, in the template's
    spelling and in every choice of spellings a model output may hold; None when one of
    them opens a call with no special token."""
    probe = [ExtractedCall("f", {})]
    openings = set()
    for chosen in spelling_choices(codec.name):
        first = tokenize(spelled(codec, probe, chosen), codec.special_tokens)[0]
        if first not in codec.special_tokens:
            return None
        openings.add(first)
    return frozenset(openings)


class ReferenceParser:
    """One catalogue format's reference codec, as an engine's tool parser."""

    def __init__(self, format: str):
        self.codec = format_codec(format)
        self.name = f"mcs_reference {type(self.codec).__name__} ({format})"
        self.openings = _call_openings(self.codec)

    def parse(self, text: str, tools: list[dict]) -> dict:
        """The whole output at once: its prose as `content`, its calls as `tool_calls`."""
        calls = self.codec.decode(text)
        message: dict[str, Any] = {"role": "assistant",
                                   "content": self.codec.content(text) or None}
        if calls:
            message["tool_calls"] = [{k: v for k, v in _tool_call(i, c).items() if k != "index"}
                                     for i, c in enumerate(calls)]
        return message

    def stream(self, deltas: list[list[str]], tools: list[dict]) -> list[dict]:
        """Prose streams until a special token that can open a call; the rest is read once,
        at the end."""
        openings = self.openings
        emitted: list[dict] = []
        held: list[str] | None = None if openings else []
        for delta in deltas:
            shown = []
            for token in delta:
                if held is None and token in openings:
                    held = []
                if held is None:
                    shown.append(token)
                else:
                    held.append(token)
            if shown:
                emitted.append({"role": "assistant", "content": "".join(shown)})
        rest = "".join(held or ())
        if rest:
            prose = self.codec.content(rest)
            if prose:
                emitted.append({"content": prose})
            for index, call in enumerate(self.codec.decode(rest)):
                emitted.append({"tool_calls": [_tool_call(index, call)]})
        return emitted


def parser(format: str) -> ReferenceParser:
    """The reference parser of `format` (`certify --parser
    mcs_conformance.engines.reference:parser --format NAME`)."""
    if format not in format_names():
        raise LookupError(f"{format}: no reference parser; formats: {', '.join(format_names())}")
    return ReferenceParser(format)


parser.formats = tuple(format_names())  # type: ignore[attr-defined]

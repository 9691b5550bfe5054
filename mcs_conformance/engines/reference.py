"""The reference parser: `mcs_reference`'s format codecs behind the engine parser protocol.

The baseline row of the engines matrix, and a model of what an engine's streaming parser
must do: stream the prose as it comes, up to the special token a call of the format opens
with (none can stand in prose, so the calls start there); hold the rest; at the end of the stream,
read the held text whole, once, and send the prose left in it and each call, complete.
A format with no special token (bare JSON, pythonic lists) holds everything until the end:
prose cannot be told from the start of a call before the call is complete. Linear in the
stream: each token is looked at once, and the held text is read once.
"""
from __future__ import annotations

import json
from typing import Any

from mcs_reference.calls import ExtractedCall
from mcs_reference.formats import format_codec, format_names

__all__ = ["ReferenceParser", "parser"]


def _tool_call(index: int, call: ExtractedCall) -> dict:
    """A call as the server sends it: arguments as JSON text, or the raw text of
    arguments that are not a JSON object (surfaced, for the client to refuse)."""
    arguments = call.raw_arguments if call.error is not None and call.raw_arguments is not None \
        else json.dumps(call.arguments, ensure_ascii=False)
    return {"index": index, "id": call.id or f"call_{index}", "type": "function",
            "function": {"name": call.name, "arguments": arguments}}


class ReferenceParser:
    """One catalogue format's reference codec, as an engine's tool parser."""

    def __init__(self, format: str):
        self.codec = format_codec(format)
        self.name = f"mcs_reference {type(self.codec).__name__} ({format})"
        probe = self.codec.encode([ExtractedCall("f", {})])
        # Calls that open with a special token end the prose there; others may open with
        # `{` or `[`, which prose holds too.
        self.openings = {token for token in self.codec.special_tokens if probe.startswith(token)}

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
        """Prose streams until the special token that opens a call; the rest is read once, at
        the end."""
        specials = self.openings
        emitted: list[dict] = []
        held: list[str] | None = None if specials else []
        for delta in deltas:
            shown = []
            for token in delta:
                if held is None and token in specials:
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

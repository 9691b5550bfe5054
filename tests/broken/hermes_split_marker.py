"""Hermes text strategy: a `<tool_call>` marker split across two deltas is lost.

Streaming tool parsers hold back a delta's tail that could be the start of a marker
(`<tool_`), so that the marker never flashes on screen. This one holds it back and then
reads the next delta on its own, so the held text is dropped: when the server's chunking
splits the marker (tokenizers without a single `<tool_call>` token do, at random), the
call vanishes. The same family as vllm-project/vllm#18791 (per-delta marker detection).
"""
from __future__ import annotations

from typing import Any

from mcs_reference import HermesCodec, TextStrategy

CAUGHT_BY = "codec.split-markers"
STRATEGY = "HermesSplitMarkerLost"

_OPEN = "<tool_call>"


def _marker_start(text: str) -> int:
    """Where a proper prefix of the opening marker ends `text` (len(text) when none)."""
    for size in range(min(len(_OPEN) - 1, len(text)), 0, -1):
        if text.endswith(_OPEN[:size]):
            return len(text) - size
    return len(text)


class HermesSplitMarkerLost(TextStrategy):
    def __init__(self) -> None:
        super().__init__(HermesCodec())

    def accumulate(self, acc: Any, chunk: Any) -> str:
        text = chunk if isinstance(chunk, str) else (
            chunk.get("content") if isinstance(chunk, dict) else None)
        if isinstance(text, str):
            # BUG: the possible marker start is held back, and never given back.
            kept = text[:_marker_start(text)]
            chunk = kept if isinstance(chunk, str) else {**chunk, "content": kept}
        return super().accumulate(acc, chunk)

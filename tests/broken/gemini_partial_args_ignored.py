"""Gemini: a call's streamed arguments (`partialArgs`) are never read.

Mimics Gemini stream translators written before Vertex AI's `streamFunctionCallArguments`:
they take a call's `args` whole from the part that names it, so with the option on every
call runs with `{}` (its arguments came as `partialArgs` in later records). The family of
the Gemini stream translations that dropped a call's arguments (LiteLLM 25836).
"""
from __future__ import annotations

import copy
from typing import Any

from mcs_reference import GeminiStrategy

CAUGHT_BY = "reassembly.round-trip"
STRATEGY = "PartialArgsIgnored"


class PartialArgsIgnored(GeminiStrategy):
    def accumulate(self, acc: Any, chunk: Any) -> str:
        if isinstance(chunk, dict) and isinstance(chunk.get("candidates"), list):
            chunk = copy.deepcopy(chunk)
            for candidate in chunk["candidates"]:
                content = candidate.get("content") if isinstance(candidate, dict) else {}
                for part in (content or {}).get("parts") or ():
                    if isinstance(part, dict) and isinstance(part.get("functionCall"), dict):
                        part["functionCall"].pop("partialArgs", None)
        return super().accumulate(acc, chunk)

"""Gemini: an answer stopped with MALFORMED_FUNCTION_CALL reads as an ordinary stop.

Mimics adapters that map every finish reason they do not know to `stop`, so a turn whose
call Gemini could not form comes out as an empty success: no call, no error, nothing that
tells the model to try again. Reported as LiteLLM 21744 (MALFORMED_FUNCTION_CALL normalised
to `stop` when streaming) and fixed in NousResearch/hermes-agent#83886.
"""
from __future__ import annotations

from typing import Any

from mcs_reference import GeminiStrategy

CAUGHT_BY = "extract.malformed"
STRATEGY = "MalformedAsStop"


class MalformedAsStop(GeminiStrategy):
    def extract(self, message: Any) -> list:
        return [call for call in super().extract(message) if call.name or call.error is None]

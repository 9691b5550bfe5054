"""Raises when the answer stopped at the token limit (Gemini's `finishReason: MAX_TOKENS`),
as llama-index's `_error_if_finished_early` does: the stream itself says it was cut, so the
error is strict, not a crash of a completed stream (a strictness note)."""
from mcs_conformance.clients.reference_client import reference_client

WIRE = "gemini"
CAUGHT_BY = "client.text"
SEVERITY = "strictness"


def client(base_url: str, wire: str) -> dict:
    outcome = reference_client(base_url, wire)
    candidates = (outcome["message"] or {}).get("candidates") or [{}]
    if candidates[0].get("finishReason") == "MAX_TOKENS":
        return {"calls": [], "text": "", "message": None,
                "error": "RuntimeError: Response was terminated early: MAX_TOKENS"}
    return outcome

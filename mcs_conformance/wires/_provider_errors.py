"""How each wire reports a provider error after HTTP 200, as real servers send it.

One place for these forms, used by the wires (error cases for `reassembly.provider-error`)
and by the local provider server (error endings for `client.provider-error`). The shapes
follow the recordings in shared/corpora-real (QUIRKS.md) and the official SDK types:

- OpenAI Chat, Groq style: an SSE `event: error` whose data is `{"error": {...}}`, no
  `[DONE]` after it (`form="event"`);
- OpenAI Chat, OpenRouter style: an ordinary chunk that also carries a top-level `error`
  object, `[DONE]` still follows (`form="chunk"`);
- Anthropic: an `error` event, `{"type": "error", "error": {"type", "message"}}`;
- OpenAI Responses: an `error` event (the SDK's flat `code`/`message`/`param`, or the nested
  `error` object seen in 2025 recordings), then `response.failed` whose response carries
  `status: "failed"` and the error;
- Ollama: a line `{"error": "message"}`.
- Bedrock Converse: an exception event `{"throttlingException": {"message": ...}}` (a frame
  with `:message-type: exception`); the error object is `{"type": <event name>, "message"}`.
- Gemini: a record `{"error": {"code", "message", "status"}}` (`form="record"`), an answer
  stopped by a `finishReason` that means it failed (`SAFETY`, ...; `form="finish"`), or a
  prompt blocked before any answer (`promptFeedback.blockReason`; `form="blocked"`). The
  last two carry `{"status": REASON, "message": finishMessage or REASON}`.

`error_tail(...)` returns the chunks to append after the stream's last good chunk, and the
drawn error object. A strategy's `ProviderError` must carry the provider's message (the
`message` of that object, or the string itself for Ollama): compare messages, since each
wire nests the object its own way.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from mcs_conformance.base import copy_json

__all__ = ["ERROR_FORMS", "HTTP_STATUSES", "error_message", "error_objects", "error_tail",
           "http_error_body",
           "is_error_event_chunk"]

#: The forms each wire can report an error in (drawn by `error_objects`).
ERROR_FORMS = {
    "openai-chat": ("event", "chunk"),
    "text": ("event", "chunk"),
    "anthropic-messages": ("event",),
    "openai-responses": ("flat", "nested"),
    "ollama-chat": ("line",),
    "gemini": ("record", "finish", "blocked"),
    "bedrock-converse": ("exception",),
}
_BEDROCK_ERRORS = (
    ("throttlingException", "Too many requests, please wait before trying again."),
    ("modelStreamErrorException", "The model stream was interrupted."),
    ("internalServerException", "The server encountered an internal error."),
    ("serviceUnavailableException", "The service is unavailable. Try again later."),
    ("validationException", "The model returned a response the service cannot read."),
)
_GEMINI_ERRORS = (
    {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"},
    {"code": 503, "message": "The model is overloaded. Please try again later.",
     "status": "UNAVAILABLE"},
)
_GEMINI_STOPS = {  # form -> the error objects of answers stopped or prompts blocked
    # only reasons that unmistakably mean the answer was refused (not OTHER, whose meaning
    # is "unknown": a library that reads it as a normal end is not plainly wrong)
    "finish": ({"status": "SAFETY", "message": "SAFETY"},
               {"status": "RECITATION", "message": "RECITATION"},
               {"status": "PROHIBITED_CONTENT", "message": "The response was blocked."}),
    "blocked": ({"status": "SAFETY", "message": "SAFETY"},
                {"status": "PROHIBITED_CONTENT", "message": "PROHIBITED_CONTENT"}),
}

_CHAT_ERRORS = (
    ("server_error", "server_error", "The server had an error while processing your request."),
    ("invalid_request_error", "tool_use_failed", "Tool call validation failed."),
    ("rate_limit_exceeded", "rate_limit_exceeded", "Rate limit reached for requests."),
)
_ANTHROPIC_ERRORS = (
    ("overloaded_error", "Overloaded"),
    ("api_error", "Internal server error"),
)


def _errors_of(wire: str) -> tuple:
    """The provider's error objects on `wire`, as the error chunk carries them."""
    if wire in ("openai-chat", "text", "openai-responses"):
        return tuple({"message": message, "type": kind, "code": code, "param": None}
                     for kind, code, message in _CHAT_ERRORS)
    if wire == "anthropic-messages":
        return tuple({"type": kind, "message": message} for kind, message in _ANTHROPIC_ERRORS)
    if wire == "bedrock-converse":
        return tuple({"type": kind, "message": message} for kind, message in _BEDROCK_ERRORS)
    return ("model runner has unexpectedly stopped", "out of memory")


def _fresh(drawn: tuple) -> tuple[str, dict | str]:
    form, error = drawn
    return form, copy_json(error)


@lru_cache(maxsize=None)
def error_objects(wire: str) -> st.SearchStrategy[tuple[str, dict | str]]:
    """A drawn `(form, error)` for `wire`: how the error is reported, and the provider's
    message object as the error chunk carries it. One drawn value (built once per wire):
    every pair of form and error, the first form's first error the simplest."""
    if wire == "gemini":
        pairs = [("record", error) for error in _GEMINI_ERRORS] + [
            (form, error) for form, errors in _GEMINI_STOPS.items() for error in errors]
    else:
        pairs = [(form, error) for form in ERROR_FORMS[wire] for error in _errors_of(wire)]
    return st.sampled_from(pairs).map(_fresh)


def error_tail(wire: str, form: str, error: dict | str, *, last: Any = None,
               response: dict | None = None, sequence: int | None = None) -> tuple[list, Any]:
    """The chunks that report `error` on `wire` in `form`, and `error` itself.

    `last` is the stream's last good chunk (OpenAI Chat copies its envelope into the chunk
    form); `response` the `Response` so far and `sequence` the next `sequence_number`
    (Responses; `None` when the stream has no sequence numbers).
    """
    if wire in ("openai-chat", "text"):
        if form == "event":
            return [{"error": copy_json(error)}], error
        chunk = {key: copy_json(last[key]) for key in ("id", "object", "created", "model")
                 if isinstance(last, dict) and key in last}
        chunk["choices"] = [{"index": 0, "delta": {"content": ""}, "finish_reason": None}]
        chunk["error"] = copy_json(error)
        return [chunk], error
    if wire == "anthropic-messages":
        return [{"type": "error", "error": copy_json(error)}], error
    if wire == "openai-responses":
        return _responses_tail(form, error, response, sequence)
    if wire == "ollama-chat":
        return [{"error": error}], error
    if wire == "gemini":
        return [_gemini_error_record(form, error, last)], error
    if wire == "bedrock-converse":
        return [{error["type"]: {"message": error["message"]}}], error
    raise ValueError(f"no provider error form for wire {wire!r}")


def _responses_tail(form: str, error: dict, response: dict | None,
                    sequence: int | None) -> tuple[list, dict]:
    if form == "flat":
        event = {"type": "error", "code": error.get("code"), "message": error.get("message"),
                 "param": error.get("param")}
    else:
        event = {"type": "error", "error": copy_json(error)}
    failed = copy_json(response) if response is not None else {}
    failed["status"] = "failed"
    failed["error"] = {"code": error.get("code"), "message": error.get("message")}
    events = [event, {"type": "response.failed", "response": failed}]
    if sequence is not None:
        for offset, item in enumerate(events):
            item["sequence_number"] = sequence + offset
    return events, error


def _gemini_error_record(form: str, error: dict, last: Any) -> dict:
    """The record that reports `error` in `form`, in the envelope of the last good one."""
    if form == "record":
        return {"error": copy_json(error)}
    envelope = {key: copy_json(value) for key, value in (last or {}).items()
                if key != "candidates"}
    if form == "blocked":
        return {"promptFeedback": {"blockReason": error["status"]}, **envelope}
    candidate: dict[str, Any] = {"finishReason": error["status"]}
    if error["message"] != error["status"]:
        candidate["finishMessage"] = error["message"]
    previous = ((last or {}).get("candidates") or [{}])[0]
    if "index" in previous:
        candidate["index"] = previous["index"]
    return {"candidates": [candidate], **envelope}


def is_error_event_chunk(wire: str, chunk: Any) -> bool:
    """Does this chunk travel as an SSE `event: error` (OpenAI Chat's Groq form)?"""
    return (wire in ("openai-chat", "text") and isinstance(chunk, dict)
            and set(chunk) == {"error"})


#: Statuses a provider answers a request with before any stream starts.
HTTP_STATUSES = (400, 401, 404, 429, 500, 503)


def http_error_body(wire: str, error: dict | str) -> dict:
    """The JSON body of an HTTP 4xx/5xx answer on `wire` carrying the drawn `error` (as
    `error_objects` draws it): OpenAI's `{"error": {...}}`, Anthropic's
    `{"type": "error", "error": {...}}`, Ollama's `{"error": "message"}`."""
    if wire == "anthropic-messages":
        return {"type": "error", "error": copy_json(error)}
    if wire == "bedrock-converse":  # AWS's: the message, the error's type in `__type`
        kind = str(error.get("type", "validationException"))
        return {"__type": kind[:1].upper() + kind[1:], "message": error["message"]}
    if wire == "gemini":  # Google's shape: the HTTP code and its canonical status name
        return {"error": {"code": error.get("code", 400), "message": error["message"],
                          "status": error.get("status", "INVALID_ARGUMENT")}}
    return {"error": copy_json(error)}


def error_message(error: dict | str) -> str:
    """The provider's human-readable message inside an error object (Ollama's is the string)."""
    return error if isinstance(error, str) else str(error.get("message", ""))

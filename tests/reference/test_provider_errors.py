"""Every mid-stream provider error form of every wire, through the buffer (issue 14).

The forms are the kit's (`mcs_conformance.wires._provider_errors`): each must raise
`ProviderError` carrying the provider's message, and leave a buffer that is not done, holding
a message that does not look complete, whatever the client feeds after the error.
"""
from __future__ import annotations

import pytest

from mcs_conformance.wires._provider_errors import ERROR_FORMS, error_tail
from mcs_reference import BaseDriver, LLMStreamBuffer, ProviderError

CHAT = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hi"},
                     "finish_reason": None}]}
RESPONSE = {"id": "resp_1", "object": "response", "status": "in_progress", "output": []}
OPENINGS = {
    "openai-chat": [CHAT],
    "text": [dict(CHAT, choices=[dict(CHAT["choices"][0], delta={"content": '{"tool": "f"'})])],
    "anthropic-messages": [{"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1}}}],
    "openai-responses": [{"type": "response.created", "sequence_number": 0,
                          "response": RESPONSE}],
    "ollama-chat": [{"model": "m", "created_at": "2025-01-01T00:00:00Z",
                     "message": {"role": "assistant", "content": "Hi"}, "done": False}],
    "gemini": [{"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"},
                                "index": 0}], "modelVersion": "gemini-2.5-flash"}],
    "bedrock-converse": [{"messageStart": {"role": "assistant"}},
                         {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hi"}}}],
}
ERRORS = {
    "anthropic-messages": {"type": "overloaded_error", "message": "Overloaded"},
    "ollama-chat": "model runner has unexpectedly stopped",
    # Gemini: an error record; an answer stopped (finishReason) or a prompt blocked, by name
    ("gemini", "record"): {"code": 503, "message": "The model is overloaded.",
                           "status": "UNAVAILABLE"},
    "gemini": {"status": "SAFETY", "message": "SAFETY"},
    "bedrock-converse": {"type": "throttlingException", "message": "Too many requests."},
}
CASES = [(wire, form) for wire, forms in ERROR_FORMS.items() for form in forms]


def message_of(error) -> str:
    return error if isinstance(error, str) else error["message"]


@pytest.mark.parametrize("wire, form", CASES, ids=[f"{w}-{f}" for w, f in CASES])
def test_every_error_form_raises_provider_error_and_never_completes(wire, form):
    error = ERRORS.get((wire, form)) or ERRORS.get(wire, {
        "message": "The server had an error.", "type": "server_error", "code": "server_error",
        "param": None})
    opening = OPENINGS[wire]
    tail, _ = error_tail(wire, form, error, last=opening[-1], response=RESPONSE, sequence=1)
    if wire in ("openai-chat", "text"):
        tail.append("[DONE]")  # OpenRouter still ends the body; a client may feed it
    buffer = LLMStreamBuffer()
    raised = []
    for chunk in opening + tail:
        try:
            buffer.add(chunk)
        except ProviderError as exc:
            raised.append(exc)
    assert raised, f"{wire} {form}: no ProviderError"
    first = raised[0]
    assert first.index == len(opening)
    assert first.message == message_of(error) and message_of(error) in str(first)
    assert all(exc.message == message_of(error) for exc in raised)
    buffer.close()  # even a client that closes the body gets no completed stream
    assert not buffer.is_done()
    message = buffer.as_dict()
    assert message.get("status") in (None, "in_progress", "failed")
    assert message.get("stop_reason") is None and message.get("done") in (None, False)
    reply = BaseDriver({"f": lambda: "ran"}).process_llm_response(buffer)
    assert not reply.call_executed and not reply.executed_calls


def test_a_failed_response_says_failed_and_carries_the_error():
    tail, error = error_tail("openai-responses", "nested",
                             {"message": "quota", "code": "insufficient_quota"},
                             response=RESPONSE, sequence=1)
    buffer = LLMStreamBuffer()
    buffer.add(OPENINGS["openai-responses"][0])
    for chunk in tail:
        with pytest.raises(ProviderError, match="insufficient_quota: quota"):
            buffer.add(chunk)
    message = buffer.as_dict()
    assert message["status"] == "failed" and message["error"]["message"] == "quota"


def test_an_incomplete_response_is_complete_and_says_so():
    buffer = LLMStreamBuffer()
    buffer.add(OPENINGS["openai-responses"][0])
    incomplete = dict(RESPONSE, status="incomplete",
                      incomplete_details={"reason": "max_output_tokens"})
    buffer.add({"type": "response.incomplete", "sequence_number": 1, "response": incomplete})
    assert buffer.is_done() and buffer.error is None
    assert buffer.as_dict()["status"] == "incomplete"


def test_reset_forgets_the_error():
    buffer = LLMStreamBuffer()
    with pytest.raises(ProviderError):
        buffer.add_all([*OPENINGS["ollama-chat"], {"error": "out of memory"}])
    buffer.reset()
    buffer.add_all([dict(OPENINGS["ollama-chat"][0], done=True)])
    assert buffer.is_done()
